import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// Primary keys as SQLite really orders them: `INTEGER PRIMARY KEY DESC`,
/// which is no rowid alias, and a WITHOUT ROWID table whose key is
/// declared `PRIMARY KEY(b DESC, a)`.
final class ViewerKeyOrderTests: XCTestCase {
    private var database: SQLiteDataSource!

    override func setUpWithError() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("keys.sqlite").path
        try ForeignFile.sqlite3(path, """
            CREATE TABLE down(id INTEGER PRIMARY KEY DESC, name TEXT);
            INSERT INTO down(id, name) VALUES (NULL, 'n1'), (3, 'c'), (NULL, 'n2'), (1, 'a'), (2, 'b');
            CREATE TABLE alias(id INTEGER, name TEXT, PRIMARY KEY(id DESC));
            INSERT INTO alias(id, name) VALUES (5, 'e'), (4, 'd');
            CREATE TABLE pairs(a INTEGER, b INTEGER, c TEXT, PRIMARY KEY(b DESC, a)) WITHOUT ROWID;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
            INSERT INTO pairs SELECT i % 7, i / 7, printf('c%03d', (i * 37) % 300) FROM n;
            """)
        database = try SQLiteDataSource.open(path: path)
    }

    private func viewed(_ table: String, sort: String? = nil, descending: Bool = false) throws -> ViewedSource {
        try database.read { db in try ViewedSource.open(.table(table), sortColumn: sort, descending: descending, in: db) }
    }

    private func reference(_ sql: String) throws -> [[DatabaseValue]] {
        try database.read { db in try Row.fetchAll(db, sql: sql).map { Array($0.databaseValues) } }
    }

    private func fetch(_ viewed: ViewedSource, _ anchor: RowAnchor, before: Int, after: Int) throws -> RowWindow {
        try database.read { db in
            try RowWindow.fetch(
                db, viewed.source, RowWindowRequest(ordering: viewed.ordering, anchor: anchor, before: before, after: after),
                scans: viewed.cost == .scan)
        }
    }

    /// Pages `viewed` forwards from the first row and backwards from the
    /// last, two rows at a time, and compares both with `sql`.
    private func assertPages(_ viewed: ViewedSource, like sql: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let expected = try reference(sql)
        var forwards: [[DatabaseValue]] = []
        var window = try fetch(viewed, .first, before: 0, after: 2)
        while true {
            forwards += window.rows
            guard !window.reachesEnd, var next = window.positions.last, forwards.count <= expected.count else { break }
            next.occurrence += 1
            window = try fetch(viewed, .position(next), before: 0, after: 2)
        }
        XCTAssertEqual(forwards, expected, "forwards", file: file, line: line)
        var backwards: [[DatabaseValue]] = []
        window = try fetch(viewed, .last, before: 2, after: 0)
        while true {
            backwards = window.rows + backwards
            guard !window.reachesStart, let first = window.positions.first, backwards.count <= expected.count else { break }
            window = try fetch(viewed, .position(first), before: 2, after: 0)
        }
        XCTAssertEqual(backwards, expected, "backwards", file: file, line: line)
    }

    // MARK: - INTEGER PRIMARY KEY DESC

    func testIntegerPrimaryKeyDescIsAnOrdinaryColumn() throws {
        // A quirk of SQLite: not an alias of the rowid, so it may hold NULL.
        let down = try viewed("down")
        XCTAssertEqual(down.source.identity, .rowid("rowid"))
        XCTAssertEqual(down.source.columns[0].isRowidAlias, false)
        XCTAssertEqual(down.source.columns[0].isNotNull, false)
        XCTAssertEqual(down.source.columns[0].isIndexed, true, "its own index")
        XCTAssertEqual(down.source.keyColumns, [], "the hidden rowid identifies a row")
        // Declared as a table constraint, it is the rowid.
        let alias = try viewed("alias")
        XCTAssertEqual(alias.source.columns[0].isRowidAlias, true)
        XCTAssertEqual(alias.source.columns[0].isNotNull, true)
    }

    func testRowsWithANullIntegerPrimaryKeyDescAreReachable() throws {
        for descending in [false, true] {
            let byID = try viewed("down", sort: "id", descending: descending)
            XCTAssertEqual(byID.cost, .indexSearch)
            let order = descending ? "DESC" : ""
            try assertPages(byID, like: "SELECT id, name FROM down ORDER BY id \(order), rowid \(order)")
        }
        // Id 1 comes after the two NULLs: row 3.
        let byID = try viewed("down", sort: "id")
        let one = try XCTUnwrap(fetch(byID, .first, before: 0, after: 5).positions.first { $0.key.first == 1.databaseValue })
        let rank = try database.read { db in try byID.ordering.countRows(db, in: byID.source, before: one, limit: 100) }
        XCTAssertEqual(rank, 2)
    }

    // MARK: - WITHOUT ROWID, PRIMARY KEY(b DESC, a)

    func testNaturalOrderFollowsTheDeclaredKey() throws {
        let pairs = try viewed("pairs")
        XCTAssertEqual(pairs.source.identity, .primaryKey(["b", "a"]))
        XCTAssertEqual(pairs.ordering.keyColumns.map(\.descending), [true, false])
        XCTAssertEqual(pairs.cost, .indexSearch, "the primary key's own walk")
        try assertPages(pairs, like: "SELECT a, b, c FROM pairs ORDER BY b DESC, a")
        // Reversed, the key is walked backwards.
        XCTAssertEqual(try fetch(pairs, .last, before: 1, after: 0).rows, try reference(
            "SELECT a, b, c FROM pairs ORDER BY b, a DESC LIMIT 1"))
    }

    func testSortsKeepTheKeysDirectionsAsTiebreakers() throws {
        // b ascending: the key's index walked backwards.
        let byB = try viewed("pairs", sort: "b")
        XCTAssertEqual(byB.ordering.keyColumns.map(\.descending), [false, true])
        XCTAssertEqual(byB.cost, .indexSearch)
        try assertPages(byB, like: "SELECT a, b, c FROM pairs ORDER BY b, a DESC")
        let byBDescending = try viewed("pairs", sort: "b", descending: true)
        XCTAssertEqual(byBDescending.ordering.keyColumns.map(\.descending), [true, false])
        XCTAssertEqual(byBDescending.cost, .indexSearch)
        try assertPages(byBDescending, like: "SELECT a, b, c FROM pairs ORDER BY b DESC, a")
        let byC = try viewed("pairs", sort: "c", descending: true)
        XCTAssertEqual(byC.ordering.keyColumns.map(\.descending), [true, false, true])
        try assertPages(byC, like: "SELECT a, b, c FROM pairs ORDER BY c DESC, b, a DESC")
        XCTAssertEqual(byC.cost, .scan, "no index on c")
    }

    func testSortOfTheRightPartOfAnIndexWalkIsNoScan() throws {
        // `ORDER BY b, a` on PRIMARY KEY(b DESC, a): SQLite walks the key
        // and sorts the rows of one b at a time (USE TEMP B-TREE FOR RIGHT
        // PART OF ORDER BY): an End reads a few rows, not the table.
        let plan = try database.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT * FROM pairs WHERE b > 3 ORDER BY b, a LIMIT 5")
                .map { ($0["detail"] as String?) ?? "" }
        }
        XCTAssertTrue(plan.contains("USE TEMP B-TREE FOR RIGHT PART OF ORDER BY"), "\(plan)")
        XCTAssertFalse(RowOrdering.isScan(plan: plan.map { $0.uppercased() }), "\(plan)")
        let search = "SEARCH PAIRS USING PRIMARY KEY (B>?)"
        XCTAssertFalse(RowOrdering.isScan(plan: [search]))
        XCTAssertFalse(RowOrdering.isScan(plan: [search, "USE TEMP B-TREE FOR RIGHT PART OF ORDER BY"]))
        XCTAssertFalse(RowOrdering.isScan(plan: [search, "USE TEMP B-TREE FOR LAST TERM OF ORDER BY"]))
        XCTAssertTrue(RowOrdering.isScan(plan: [search, "USE TEMP B-TREE FOR ORDER BY"]), "all rows after b")
        XCTAssertFalse(RowOrdering.isScan(plan: [
            "SEARCH DOWN USING INDEX SQLITE_AUTOINDEX_DOWN_1 (ID=?)", "USE TEMP B-TREE FOR ORDER BY",
        ]), "the rows of one key")
        XCTAssertTrue(RowOrdering.isScan(plan: ["SCAN PAIRS"]))
    }
}
