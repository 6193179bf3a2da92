import Foundation
import XCTest
@testable import LiveTableCore

/// The CSV export on PostgreSQL is the server's `COPY (…) TO STDOUT`
/// (issue 25, item 11): its rows as COPY writes them, each line ended with
/// CRLF as the SQLite export ends it, and stopped as a save is stopped.
final class PostgresCopyExportTests: XCTestCase {
    private static let name = "copyExportTests"
    private static let sql = """
        CREATE TABLE notes(id int PRIMARY KEY, body text, n numeric);
        INSERT INTO notes VALUES (1, E'two\\nlines', 1.50), (2, '', NULL), (3, NULL, -2), (4, 'a,"b"', 0);
        """

    private func export(_ plan: ExportPlan, ticket: ReadTicket = ReadTicket()) throws -> (String, RowExport.Summary) {
        let database = try PostgresTestDatabase.open(Self.name, sql: Self.sql)
        var data = Data()
        let summary = try database.export(plan, format: .csv, ticket: ticket) { bytes, _ in data.append(contentsOf: bytes) }
        return (String(decoding: data, as: UTF8.self), summary)
    }

    func testRowsEndWithCRLFAndALineBreakInAValueStays() throws {
        let database = try PostgresTestDatabase.open(Self.name, sql: Self.sql)
        let viewed = try database.open(.table("notes"), sortColumn: nil, descending: false, ticket: ReadTicket())
        let (csv, summary) = try export(ExportPlan(source: viewed.source))
        XCTAssertEqual(csv, "id,body,n\r\n1,\"two\nlines\",1.50\r\n2,\"\",\r\n3,,-2\r\n4,\"a,\"\"b\"\"\",0\r\n")
        XCTAssertEqual(summary, RowExport.Summary(rowCount: 4, invalidTextCount: 0))
    }

    /// `--columns` and `--sort`, and a filter, are the SELECT's.
    func testColumnsSortAndFilterAreTheSelects() throws {
        let database = try PostgresTestDatabase.open(Self.name, sql: Self.sql)
        let viewed = try database.open(.table("notes"), sortColumn: "n", descending: true, ticket: ReadTicket())
        let filtered = try database.filter(viewed, by: "id > 1", ticket: ReadTicket()).viewed
        let (csv, summary) = try export(try ExportPlan(filtered, columns: ["n", "id"]))
        // PostgreSQL's NULL sorts first in a descending order.
        XCTAssertEqual(csv, "n,id\r\n,2\r\n0,4\r\n-2,3\r\n")
        XCTAssertEqual(summary.rowCount, 3)
    }

    /// Esc while the server has sent nothing yet: the ticket's cancel
    /// (PQcancel) stops the COPY on the server.
    func testAnAbandonedTicketStopsTheCopyOnTheServer() throws {
        let database = try PostgresTestDatabase.open(Self.name, sql: Self.sql)
        let query = try database.open(
            .query("SELECT g, pg_sleep(1)::text AS s FROM generate_series(1, 60) g"), sortColumn: nil, descending: false,
            ticket: ReadTicket())
        let ticket = ReadTicket()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { ticket.abandon() }
        let start = Date()
        XCTAssertThrowsError(try export(ExportPlan(source: query.source), ticket: ticket))
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
        let viewed = try database.open(.table("notes"), sortColumn: nil, descending: false, ticket: ReadTicket())
        XCTAssertEqual(try export(ExportPlan(source: viewed.source)).1.rowCount, 4, "the connection reads again")
    }

    /// Esc while rows stream: the export stops at its next piece.
    func testAStoppedSaveStopsAHugeCopy() throws {
        let database = try PostgresTestDatabase.open(Self.name, sql: Self.sql)
        let query = try database.open(
            .query("SELECT generate_series(1, 1000000000) AS g"), sortColumn: nil, descending: false, ticket: ReadTicket())
        let ticket = ReadTicket()
        let start = Date()
        var pieces = 0
        XCTAssertThrowsError(try database.export(ExportPlan(source: query.source), format: .csv, ticket: ticket) { _, rows in
            pieces += 1
            if rows > 0 { ticket.abandon() }
        })
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
        XCTAssertLessThanOrEqual(pieces, 3)
        let viewed = try database.open(.table("notes"), sortColumn: nil, descending: false, ticket: ReadTicket())
        XCTAssertEqual(try export(ExportPlan(source: viewed.source)).1.rowCount, 4, "the connection reads again")
    }
}
