import Foundation
import GRDB
import PostgresServer
import XCTest
@testable import LiveTableCore

/// Every statement of a window in the natural order and in a sort on an
/// indexed column is an index scan on a table of 200,000 rows: the
/// keyset's `x = $1` (not `IS NOT DISTINCT FROM`, which PostgreSQL reads
/// as a filter of every row) and its NULLs last. Where the index leads
/// with the sort column alone, the rows of one sort value are sorted by
/// the key's next column: a sort of that value's duplicates, not of the
/// table.
final class PostgresPlanTests: XCTestCase {
    private static let name = "planTests"
    private static let sql = """
        CREATE TABLE track(id bigint PRIMARY KEY, album int, title text);
        CREATE INDEX track_album ON track(album);
        INSERT INTO track SELECT i, CASE WHEN i % 50 = 0 THEN NULL ELSE i % 997 END, 'track ' || i
            FROM generate_series(1, 200000) i;
        ANALYZE track;
        """

    func testEveryWindowStatementIsAnIndexScan() throws {
        let database = try PostgresTestDatabase.open(Self.name, sql: Self.sql)
        for (sortColumn, descending) in [(nil, false), (nil, true), ("album", false), ("album", true)] as [(String?, Bool)] {
            let viewed = try database.open(.table("track"), sortColumn: sortColumn, descending: descending, ticket: ReadTicket())
            XCTAssertEqual(viewed.cost, .indexSearch)
            let ordering = viewed.ordering
            let keys: [[DatabaseValue]] = sortColumn == nil
                ? [[100_000.databaseValue]]
                : [[500.databaseValue, 100_000.databaseValue], [DatabaseValue.null, 100_000.databaseValue]]
            var ranges = ordering.all(forward: true) + ordering.all(forward: false)
            for key in keys {
                ranges += ordering.after(key) + ordering.before(key) + ordering.equal(to: key, forward: true)
            }
            for range in ranges {
                let sql = viewed.source.selectSQL(
                    extra: ordering.keyColumns.map(\.expression), where: range.condition,
                    orderBy: ordering.orderBy(forward: range.forward), limit: true)
                let plan = try database.screen.read(ticket: ReadTicket()) { reader in
                    try PostgresDataSource.plan(
                        of: sql, arguments: (range.arguments + [51.databaseValue]).map(PostgresValues.parameter), reader)
                }
                let label = "\(sortColumn ?? "-") \(descending): \(sql)\n" + plan.joined(separator: "\n")
                XCTAssertTrue(plan.contains { $0.contains("Index Scan") || $0.contains("Index Only Scan") }, label)
                XCTAssertFalse(plan.contains { $0.contains("Seq Scan") }, label)
                XCTAssertFalse(PostgresDataSource.isScan(plan: plan, filtered: false), label)
            }
        }
    }

    /// The same statement with `IS NOT DISTINCT FROM`: no index condition.
    func testIsNotDistinctFromWouldScan() throws {
        let database = try PostgresTestDatabase.open(Self.name, sql: Self.sql)
        let plan = try database.screen.read(ticket: ReadTicket()) { reader in
            try PostgresDataSource.plan(
                of: "SELECT * FROM track WHERE album IS NOT DISTINCT FROM $1 AND id > $2 ORDER BY album, id LIMIT 51",
                arguments: ["500", "100000"], reader)
        }
        XCTAssertTrue(PostgresDataSource.isScan(plan: plan, filtered: false) || plan.contains { $0.contains("Filter:") },
                      plan.joined(separator: "\n"))
    }

    /// 200,000 rows go out a megabyte at a time, as they come (libpq's
    /// single-row mode), in the order of the primary key.
    func testAnExportStreamsInPiecesOfAboutAMegabyte() throws {
        let database = try PostgresTestDatabase.open(Self.name, sql: Self.sql)
        let viewed = try database.open(.table("track"), sortColumn: nil, descending: false, ticket: ReadTicket())
        var pieces: [Int] = []
        var lastLine = ""
        let summary = try database.export(viewed.source, format: .csv) { bytes in
            pieces.append(bytes.count)
            if let last = String(decoding: bytes, as: UTF8.self).split(separator: "\r\n").last { lastLine = String(last) }
        }
        XCTAssertEqual(summary.rowCount, 200_000)
        XCTAssertEqual(lastLine, "200000,,track 200000")
        XCTAssertGreaterThan(pieces.count, 3)
        XCTAssertLessThanOrEqual(pieces.max() ?? 0, RowExport.bufferSize + 1024)
    }

    func testAnUnindexedSortIsAScan() throws {
        let database = try PostgresTestDatabase.open(Self.name, sql: Self.sql)
        XCTAssertEqual(try database.open(.table("track"), sortColumn: "title", descending: false, ticket: ReadTicket()).cost, .scan)
        let view = try database.open(.query("SELECT title, album FROM track"), sortColumn: "title", descending: false, ticket: ReadTicket())
        XCTAssertEqual(view.cost, .scan)
    }
}
