import Foundation
import GRDB
import PostgresServer
import XCTest
@testable import LiveTableCore

/// Every row exactly once, in the server's order, paged from the first
/// row and back from the last: rows that the type's own equality takes
/// for equal but that print differently, a unique index of another
/// collation, a parent table whose children repeat its ids.
final class PostgresEveryRowTests: XCTestCase {
    private static let name = "everyRowTests"
    private static let sql = """
        CREATE EXTENSION IF NOT EXISTS citext;
        CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
        CREATE TABLE printed_numeric(v numeric);
        INSERT INTO printed_numeric SELECT round((i % 5)::numeric, i % 4) FROM generate_series(1, 300) i;
        CREATE VIEW printed_view AS SELECT v FROM printed_numeric;
        CREATE TABLE printed_interval(v interval, n int);
        INSERT INTO printed_interval
            SELECT (ARRAY['1 day', '24 hours', '1440 minutes', '2 days', '48 hours'])[1 + i % 5]::interval, i % 2
            FROM generate_series(1, 300) i;
        CREATE TABLE printed_citext(v citext);
        INSERT INTO printed_citext SELECT (ARRAY['a', 'A', 'b', 'B'])[1 + i % 4] FROM generate_series(1, 300) i;
        CREATE TABLE printed_float(v float8);
        INSERT INTO printed_float SELECT (ARRAY['0', '-0', '1'])[1 + i % 3]::float8 FROM generate_series(1, 300) i;
        CREATE TABLE printed_ci(v text COLLATE ci);
        INSERT INTO printed_ci SELECT (ARRAY['x', 'X', 'y', 'Y'])[1 + i % 4] FROM generate_series(1, 300) i;
        CREATE TABLE nd(name text COLLATE ci NOT NULL);
        CREATE UNIQUE INDEX ON nd (name COLLATE "C");
        INSERT INTO nd SELECT CASE WHEN i % 2 = 0 THEN 'n' ELSE 'N' END || (i / 2) FROM generate_series(0, 799) i;
        CREATE TABLE nd_own(name text COLLATE ci NOT NULL UNIQUE);
        CREATE TABLE parent(id int PRIMARY KEY, note text);
        CREATE TABLE child() INHERITS (parent);
        INSERT INTO parent SELECT i, 'parent ' || i FROM generate_series(1, 60) i;
        INSERT INTO child SELECT i, 'child ' || i FROM generate_series(1, 60, 7) i;
        """

    private func database() throws -> PostgresDataSource {
        try PostgresTestDatabase.open(Self.name, sql: Self.sql)
    }

    /// Rows equal under the type's equality that print differently: a
    /// table without key, a view, a query, sorted or not.
    func testRowsEqualInSQLButPrintedDifferentlyAreEachShownOnce() throws {
        let cases: [(ViewerTarget, String?, Bool, String)] = [
            (.table("printed_numeric"), nil, false, "v"),
            (.table("printed_numeric"), "v", true, "v DESC"),
            (.table("printed_view"), nil, false, "v"),
            (.table("printed_interval"), nil, false, "v, n"),
            (.table("printed_interval"), "n", false, "n, v"),
            (.query("SELECT v, n FROM printed_interval"), nil, false, "v, n"),
            (.table("printed_citext"), nil, false, "v"),
            (.table("printed_float"), nil, false, "v"),
            (.table("printed_ci"), nil, false, "v"),
        ]
        // The text of the inexact columns only, after all the columns.
        let interval = try database().open(.table("printed_interval"), sortColumn: nil, descending: false, ticket: ReadTicket())
        XCTAssertEqual(
            interval.ordering.keyColumns.map(\.expression), ["\"v\"", "\"n\"", "(ROW(\"v\")::text COLLATE \"C\")"])
        for (target, sort, descending, order) in cases {
            let from: String
            switch target {
            case let .table(name): from = name
            case let .query(sql): from = "(\(sql)) q"
            case let .sheet(sheet): from = "(\(sheet.sql)) q"
            case .changesLog: continue
            }
            // Values as the server prints them (a float's -0 too).
            let columns = from.contains("interval") ? "v::text || '|' || n" : "v::text"
            try assertEveryRowOnce(
                target, sort: sort, descending: descending, label: columns, from: from, order: order)
        }
    }

    /// A unique index under another collation than the column's is not
    /// the rows' identity: the order's equality would take two of its
    /// rows for one.
    func testAUniqueIndexOfAnotherCollationIsNoIdentity() throws {
        let database = try database()
        let own = try database.open(.table("nd_own"), sortColumn: nil, descending: false, ticket: ReadTicket())
        XCTAssertEqual(own.source.identity, .primaryKey(["name"]))
        try assertEveryRowOnce(.table("nd"), sort: nil, descending: false, label: "name", from: "nd", order: "name")
        try assertEveryRowOnce(.table("nd"), sort: "name", descending: true, label: "name", from: "nd", order: "name DESC")
    }

    /// A parent table shows its children's rows, whose ids repeat its own.
    func testAParentTableShowsEveryRowOfItsChildren() throws {
        try assertEveryRowOnce(
            .table("parent"), sort: nil, descending: false, label: "id || '|' || note", from: "parent", order: "id")
        try assertEveryRowOnce(
            .table("parent"), sort: "note", descending: false, label: "id || '|' || note", from: "parent", order: "note")
        // A child made while the parent is open.
        let database = try database()
        try PostgresTestDatabase.write(Self.name, """
            DROP TABLE IF EXISTS later_parent CASCADE;
            CREATE TABLE later_parent(id int PRIMARY KEY);
            INSERT INTO later_parent SELECT generate_series(1, 30);
            """)
        let viewed = try database.open(.table("later_parent"), sortColumn: nil, descending: false, ticket: ReadTicket())
        XCTAssertEqual(viewed.source.identity, .primaryKey(["id"]))
        try PostgresTestDatabase.write(Self.name, """
            CREATE TABLE later_child() INHERITS (later_parent);
            INSERT INTO later_child SELECT generate_series(1, 30, 3);
            """)
        try assertEveryRowOnce(
            .table("later_parent"), sort: nil, descending: false, label: "id", from: "later_parent", order: "id",
            viewed: viewed)
    }

    // MARK: - Helpers

    /// Pages `target` from the first row to the last and from the last to
    /// the first, and checks that each shows every row of the server's
    /// `SELECT label FROM from` exactly once, in the order of its
    /// `ORDER BY order` (rows equal in it in any order); `opened`, the
    /// source as opened before, when given.
    private func assertEveryRowOnce(
        _ target: ViewerTarget, sort: String?, descending: Bool, label: String, from: String, order: String,
        viewed opened: ViewedSource? = nil, file: StaticString = #filePath, line: UInt = #line) throws
    {
        let database = try database()
        let server = try PostgresServer.shared
        let viewed = try opened ?? database.open(target, sortColumn: sort, descending: descending, ticket: ReadTicket())
        // Each row's label and the rank of its place in the order.
        let expected = try server.psql(
            "SELECT \(label) || '#' || dense_rank() OVER (ORDER BY \(order)) FROM \(from) ORDER BY \(order);",
            database: Self.name, as: server.viewer)
            .split(separator: "\n").map { line -> (String, Int) in
                let parts = line.split(separator: "#", omittingEmptySubsequences: false)
                return (parts.dropLast().joined(separator: "#"), Int(parts.last ?? "") ?? -1)
            }
        var rank: [String: Int] = [:]
        for (text, place) in expected { rank[text] = place }
        let what = "\(target) \(sort ?? "-") \(descending)"
        for forward in [true, false] {
            let rows = try walk(database, viewed, forward: forward)
            let direction = forward ? "from the first row" : "from the last row"
            XCTAssertEqual(rows.sorted(), expected.map(\.0).sorted(), "\(what) \(direction): every row once", file: file, line: line)
            XCTAssertEqual(rows.map { rank[$0] ?? -1 }, expected.map(\.1), "\(what) \(direction): the order", file: file, line: line)
        }
    }

    /// The rows (columns joined by `|`) read 7 at a time from one end.
    private func walk(_ database: PostgresDataSource, _ viewed: ViewedSource, forward: Bool) throws -> [String] {
        try pagedRows(database, viewed, forward: forward, maxPages: 400) { $0.joined(separator: "|") }
    }
}
