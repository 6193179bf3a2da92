import Foundation
import GRDB
import PostgresServer
import XCTest
@testable import LiveTableCore

/// Tables that once could not be opened (issue 24, item 5): a keyless
/// table with a composite column holding json, and a table of which the
/// role may read only some columns.
final class PostgresOpeningTests: XCTestCase {
    private static let name = "openingTests"
    private static let sql = """
        CREATE TYPE pair2 AS (k text, doc json);
        CREATE TYPE nested2 AS (n int, p pair2);
        CREATE TABLE pairs(id int, p pair2, ps pair2[], deep nested2);
        INSERT INTO pairs VALUES
            (1, ROW('a', '{"x": 1}'), ARRAY[ROW('a', '[1]')::pair2], ROW(1, ROW('z', '{}'))),
            (2, ROW('b', '[2]'), NULL, ROW(2, NULL)),
            (2, ROW('b', '[1]'), ARRAY[ROW('b', 'null')::pair2, NULL], NULL),
            (NULL, NULL, NULL, NULL);
        CREATE TABLE people(id int PRIMARY KEY, public_ text, private_ text);
        INSERT INTO people SELECT i, 'name ' || i, 'secret ' || i FROM generate_series(1, 5) i;
        CREATE TABLE people_nokey(id int, public_ text, private_ text);
        INSERT INTO people_nokey SELECT i % 3, 'name ' || i, 'secret ' || i FROM generate_series(1, 5) i;
        REVOKE SELECT ON people, people_nokey FROM viewer;
        GRANT SELECT (id, public_) ON people, people_nokey TO viewer;
        """

    private func database() throws -> PostgresDataSource {
        try PostgresTestDatabase.open(Self.name, sql: Self.sql)
    }

    private func csv(_ database: PostgresDataSource, _ viewed: ViewedSource) throws -> String {
        var data = Data()
        _ = try database.export(viewed.source, format: .csv) { data.append(contentsOf: $0) }
        return String(decoding: data, as: UTF8.self)
    }

    /// Every row read, and found again from its position, in each sort.
    private func assertEveryRowFoundAgain(
        _ database: PostgresDataSource, _ table: String, columns: [String?], count: Int,
        file: StaticString = #filePath, line: UInt = #line) throws
    {
        for column in columns {
            let viewed = try database.open(.table(table), sortColumn: column, descending: false, ticket: ReadTicket())
            let all = try database.fetchWindow(
                viewed, RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 20), ticket: ReadTicket())
            XCTAssertEqual(all.window.rows.count, count, "\(table) \(column ?? "-")", file: file, line: line)
            for (index, position) in all.window.positions.enumerated() {
                let from = try database.fetchWindow(
                    viewed, RowWindowRequest(ordering: viewed.ordering, anchor: .position(position), before: 0, after: 20),
                    ticket: ReadTicket())
                XCTAssertEqual(from.window.rows, Array(all.window.rows[index...]), "\(table) \(column ?? "-") at \(index)",
                               file: file, line: line)
            }
        }
    }

    func testAKeylessTableWithACompositeHoldingJSONOpens() throws {
        let database = try database()
        try assertEveryRowFoundAgain(database, "pairs", columns: [nil, "p", "ps", "deep", "id"], count: 4)
        let viewed = try database.open(.table("pairs"), sortColumn: nil, descending: false, ticket: ReadTicket())
        let csv = try csv(database, viewed)
        XCTAssertTrue(csv.hasPrefix("id,p,ps,deep\r\n"), csv)
        XCTAssertEqual(csv.components(separatedBy: "\r\n").count, 6, csv)
    }

    func testATableWithSomeReadableColumnsIsListedAndOpensWithThem() throws {
        let database = try database()
        let names = try database.listTables(ticket: ReadTicket()).map(\.name)
        XCTAssertTrue(names.contains("people"), "\(names)")
        XCTAssertTrue(names.contains("people_nokey"), "\(names)")
        for table in ["people", "people_nokey"] {
            let viewed = try database.open(.table(table), sortColumn: nil, descending: false, ticket: ReadTicket())
            XCTAssertEqual(viewed.source.columnNames, ["id", "public_"])
            try assertEveryRowFoundAgain(database, table, columns: [nil, "public_", "id"], count: 5)
            XCTAssertTrue(try csv(database, viewed).hasPrefix("id,public_\r\n"))
            XCTAssertEqual(try database.countRows(of: viewed.source, ticket: ReadTicket()), .exact(5))
        }
        let viewed = try database.open(.table("people"), sortColumn: nil, descending: false, ticket: ReadTicket())
        XCTAssertEqual(try csv(database, viewed), "id,public_\r\n1,name 1\r\n2,name 2\r\n3,name 3\r\n4,name 4\r\n5,name 5\r\n")
        XCTAssertEqual(try database.quickRowCount(ofTable: "people", kind: .table, ticket: ReadTicket()), .exact(5))
    }
}
