import Foundation
import GRDB
import PostgresServer
import XCTest
@testable import LiveTableCore

/// Windows of PostgreSQL sources through `PostgresDataSource`: first, last,
/// and from each row both ways, with NULLs and duplicates, in the order of
/// the server's own `ORDER BY`.
final class PostgresWindowTests: XCTestCase {
    private static let name = "windowTests"
    private static let sql = """
        CREATE TABLE item(id int PRIMARY KEY, name text, price numeric);
        CREATE INDEX item_price ON item(price);
        INSERT INTO item SELECT i, 'item ' || lpad(i::text, 3, '0'),
            CASE WHEN i % 7 = 0 THEN NULL ELSE (i % 5) * 10 + 0.5 END
            FROM generate_series(1, 60) i;
        CREATE TABLE loose(a int, b text);
        INSERT INTO loose SELECT i % 4, CASE WHEN i % 3 = 0 THEN NULL ELSE 'b' || (i % 2) END FROM generate_series(1, 30) i;
        CREATE VIEW cheap AS SELECT id, price FROM item WHERE price < 30;
        """

    private func database() throws -> PostgresDataSource {
        try PostgresTestDatabase.open(Self.name, sql: Self.sql)
    }

    func testFirstWindowOfTheNaturalOrder() throws {
        let database = try database()
        let viewed = try database.open(.table("item"), sortColumn: nil, descending: false, ticket: ReadTicket())
        XCTAssertEqual(viewed.source.identity, .primaryKey(["id"]))
        XCTAssertEqual(viewed.cost, .indexSearch)
        let request = RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 3)
        let window = try database.fetchWindow(viewed, request, ticket: ReadTicket())
        XCTAssertEqual(texts(window), [["1", "item 001", "10.5"], ["2", "item 002", "20.5"], ["3", "item 003", "30.5"]])
        XCTAssertEqual(window.rowsBefore, 0)
    }

    /// Every window, read forwards from the first row and backwards from
    /// the last one, page by page, and from every row's position, gives
    /// the rows in the order of PostgreSQL's `ORDER BY`.
    func testWindowsFollowTheServersOrderWithNullsAndDuplicates() throws {
        let database = try database()
        let server = try PostgresServer.shared
        let cases: [(ViewerTarget, String?, Bool, String)] = [
            (.table("item"), nil, false, "SELECT id FROM item ORDER BY id;"),
            (.table("item"), "price", false, "SELECT id FROM item ORDER BY price, id;"),
            (.table("item"), "price", true, "SELECT id FROM item ORDER BY price DESC, id DESC;"),
            (.table("item"), "name", true, "SELECT id FROM item ORDER BY name DESC, id DESC;"),
            (.table("cheap"), "price", false, "SELECT id FROM cheap ORDER BY price, id;"),
            (.query("SELECT id, price FROM item WHERE id > 20"), "price", true,
             "SELECT id FROM item WHERE id > 20 ORDER BY price DESC, id DESC;"),
            // The query's own order, also through parentheses around it.
            (.query("SELECT id, price FROM item ORDER BY price DESC, id DESC"), nil, false,
             "SELECT id FROM item ORDER BY price DESC, id DESC;"),
            (.query("(SELECT id, price FROM item ORDER BY price DESC, id DESC);"), nil, false,
             "SELECT id FROM item ORDER BY price DESC, id DESC;"),
        ]
        for (target, sortColumn, descending, expectedSQL) in cases {
            let viewed = try database.open(target, sortColumn: sortColumn, descending: descending, ticket: ReadTicket())
            let expected = try server.psql(expectedSQL, database: Self.name, as: server.viewer).split(separator: "\n").map(String.init)
            let label = "\(target) \(sortColumn ?? "-") \(descending)"
            XCTAssertEqual(try walk(database, viewed, forward: true), expected, label)
            XCTAssertEqual(try walk(database, viewed, forward: false), expected, label)
            // From each row's position: that row first, then the next ones.
            let all = try database.fetchWindow(
                viewed, RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 1000), ticket: ReadTicket())
            for (index, position) in all.window.positions.enumerated() {
                let window = try database.fetchWindow(
                    viewed, RowWindowRequest(ordering: viewed.ordering, anchor: .position(position), before: 2, after: 3),
                    ticket: ReadTicket())
                let ids = texts(window).map { $0[0] }
                let from = max(0, index - 2)
                XCTAssertEqual(ids, Array(expected[from..<min(expected.count, index + 3)]), "\(label) at \(index)")
            }
        }
    }

    /// A table without identity is ordered by all its columns, equal rows
    /// told apart by their position among equals.
    func testATableWithoutKeyIsPagedByAllColumns() throws {
        let database = try database()
        let viewed = try database.open(.table("loose"), sortColumn: nil, descending: false, ticket: ReadTicket())
        XCTAssertEqual(viewed.source.identity, .none)
        // int and text, no nondeterministic collation: no tiebreaker to sort by.
        XCTAssertEqual(viewed.ordering.keyColumns.map(\.expression), ["\"a\"", "\"b\""])
        let server = try PostgresServer.shared
        let expected = try server.psql(
            "SELECT a || '|' || coalesce(b, 'NULL') FROM loose ORDER BY a, b;", database: Self.name, as: server.viewer)
            .split(separator: "\n").map(String.init)
        var rows: [String] = []
        var request = RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 4)
        while true {
            let window = try database.fetchWindow(viewed, request, ticket: ReadTicket())
            let page = texts(window).map { $0.joined(separator: "|") }
            rows += request.anchor == .first ? page : Array(page.dropFirst())
            guard !window.window.reachesEnd, let last = window.window.positions.last else { break }
            request.anchor = .position(last)
        }
        XCTAssertEqual(rows, expected)
    }

    /// The ids of all rows, read 7 at a time from one end.
    private func walk(_ database: PostgresDataSource, _ viewed: ViewedSource, forward: Bool) throws -> [String] {
        try pagedRows(database, viewed, forward: forward, maxPages: 100) { $0[0] }
    }
}
