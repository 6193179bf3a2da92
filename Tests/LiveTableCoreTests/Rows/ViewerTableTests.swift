import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// Reading the schema of files made by the sqlite3 CLI: tables, views,
/// virtual tables, row identities, indexes, row counts, odd names.
final class ViewerTableTests: XCTestCase {
    private var file: String!
    private var database: SQLiteDataSource!

    override func setUpWithError() throws {
        file = try makeTemporaryDirectory().appendingPathComponent("schema.sqlite").path
        try ForeignFile.sqlite3(file, """
            CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL, note);
            CREATE INDEX item_on_price ON item(price, name);
            CREATE INDEX item_on_note ON item(note) WHERE note IS NOT NULL;
            CREATE TABLE pairs(a TEXT, b INTEGER, c BLOB, PRIMARY KEY(b, a)) WITHOUT ROWID;
            CREATE TABLE shadowed(rowid TEXT, x);
            CREATE TABLE eclipsed(rowid, _rowid_, oid);
            CREATE TABLE generated(a INTEGER, twice AS (a * 2), thrice AS (a * 3) STORED);
            CREATE VIRTUAL TABLE doc USING fts5(title, body);
            CREATE VIEW cheap AS SELECT name, price FROM item WHERE price < 10;
            CREATE TABLE "we""ird ta ble"("na""me é" TEXT, "中文" INTEGER);
            INSERT INTO "we""ird ta ble" VALUES ('Zoë', 1), ('a"b', 2);
            INSERT INTO item(name, price, note) VALUES ('pen', 1.5, NULL), ('ink', 3, 'blue'), ('book', 12, NULL);
            INSERT INTO doc VALUES ('SQLite', 'keyset paging'), ('Swift', 'on Linux');
            INSERT INTO shadowed VALUES ('text rowid', 1);
            INSERT INTO eclipsed VALUES (1, 2, 3);
            """)
        database = try SQLiteDataSource.open(path: file)
    }

    private func table(_ name: String) throws -> TableSchema {
        try database.read { db in try TableSchema.named(name, in: db) }
    }

    func testListsTablesViewsAndVirtualTables() throws {
        let tables = try database.read { db in try TableSchema.all(db) }
        let kinds = Dictionary(uniqueKeysWithValues: tables.map { ($0.name, $0.kind) })
        XCTAssertEqual(kinds["item"], .table)
        XCTAssertEqual(kinds["pairs"], .withoutRowidTable)
        XCTAssertEqual(kinds["cheap"], .view)
        XCTAssertEqual(kinds["doc"], .virtual)
        XCTAssertEqual(kinds["doc_content"], .shadow)
        XCTAssertEqual(kinds["we\"ird ta ble"], .table)
        XCTAssertNil(kinds["sqlite_schema"])
        XCTAssertEqual(tables.map(\.name), tables.map(\.name).sorted())
    }

    /// The picker lists names as a person looks for them: ignoring case
    /// and quotes, then by the exact name (byte order put `Zebra` before
    /// `apple`); PostgreSQL's picker lists in the same order.
    func testTablesAreListedIgnoringCase() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("cases.sqlite").path
        try ForeignFile.sqlite3(path, """
            CREATE TABLE Zebra(x); CREATE TABLE apple(x); CREATE VIEW Banana AS SELECT 1;
            CREATE TABLE "Cherry.Pie"(x); CREATE TABLE cherry(x);
            """)
        let names = try SQLiteDataSource.open(path: path).listTables(ticket: ReadTicket()).map(\.name)
        XCTAssertEqual(names, ["apple", "Banana", "cherry", "Cherry.Pie", "Zebra"])
        XCTAssertEqual(["b", "B", "a", "\"A\"", "A"].sorted(by: TableSchema.listsBefore), ["\"A\"", "A", "a", "B", "b"])
        XCTAssertEqual(TableSchema.listed(["b", "B", "a", "\"A\"", "A"], name: { $0 }), ["\"A\"", "A", "a", "B", "b"])
    }

    func testColumnsWithDeclaredTypes() throws {
        let item = try table("item")
        XCTAssertEqual(item.columns, [
            SourceColumn(name: "id", declaredType: "INTEGER", isIndexed: true, isNotNull: true, isRowidAlias: true),
            SourceColumn(name: "name", declaredType: "TEXT", isIndexed: false, isNotNull: true),
            SourceColumn(name: "price", declaredType: "REAL", isIndexed: true),
            // Only a partial index leads with note: no keyset on it.
            SourceColumn(name: "note", declaredType: "", isIndexed: false),
        ])
        // Generated columns are in SELECT *, the hidden columns of FTS5 not.
        XCTAssertEqual(try table("generated").columnNames, ["a", "twice", "thrice"])
        XCTAssertEqual(try table("doc").columnNames, ["title", "body"])
        XCTAssertEqual(try table("cheap").columns.map(\.declaredType), ["TEXT", "REAL"])
    }

    func testRowIdentities() throws {
        XCTAssertEqual(try table("item").identity, .rowid("rowid"))
        XCTAssertEqual(try table("pairs").identity, .primaryKey(["b", "a"]))
        XCTAssertEqual(try table("shadowed").identity, .rowid("_rowid_"))
        XCTAssertEqual(try table("eclipsed").identity, .none)
        XCTAssertEqual(try table("cheap").identity, .none)
        XCTAssertEqual(try table("doc").identity, .rowid("rowid"))
    }

    func testTableWhoseColumnIsNamedRowidPagesByItsRealRowid() throws {
        let source = RowSource.table(try table("shadowed"), dialect: .sqlite)
        let window = try database.read { db in
            try RowWindow.fetch(db, source, RowWindowRequest(
                ordering: try RowOrdering(source), anchor: .first, before: 0, after: 5))
        }
        XCTAssertEqual(window.rows, [["text rowid".databaseValue, 1.databaseValue]])
        XCTAssertEqual(window.positions, [RowPosition(key: [1.databaseValue])])
    }

    func testOddNamesAreQuoted() throws {
        let table = try table("we\"ird ta ble")
        XCTAssertEqual(table.columnNames, ["na\"me é", "中文"])
        let source = RowSource.table(table, dialect: .sqlite)
        let window = try database.read { db in
            try RowWindow.fetch(db, source, RowWindowRequest(
                ordering: try RowOrdering(source, sortColumn: "na\"me é", descending: true),
                anchor: .first, before: 0, after: 5))
        }
        // Binary collation: "a" (0x61) after "Z" (0x5A).
        XCTAssertEqual(window.rows.map { $0[0] }, ["a\"b".databaseValue, "Zoë".databaseValue])
    }

    func testVirtualTableRows() throws {
        let source = RowSource.table(try table("doc"), dialect: .sqlite)
        let window = try database.read { db in
            try RowWindow.fetch(db, source, RowWindowRequest(
                ordering: try RowOrdering(source, sortColumn: "title", descending: true),
                anchor: .first, before: 0, after: 5))
        }
        XCTAssertEqual(window.rows.map { $0[0] }, ["Swift".databaseValue, "SQLite".databaseValue])
    }

    func testMissingTableListsTheTables() throws {
        XCTAssertThrowsError(try table("items")) { error in
            guard case let .noSuchTable(name, tables) = error as? SourceError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(name, "items")
            XCTAssertTrue(tables.contains("item"))
            // More than ten tables: the ten nearest the name first, and how many more.
            XCTAssertTrue("\(error)".hasPrefix(#"no table or view "items": the file has "item", "cheap", "doc", "#), "\(error)")
            XCTAssertTrue("\(error)".hasSuffix(" and \(tables.count - 10) more"), "\(error)")
        }
        XCTAssertEqual(try table("ITEM").name, "item", "names are case-insensitive, as in SQL")
    }

    func testMissingTableAmongThousandsListsAFewNamesNearestFirst() throws {
        let names = (1...20_000).map { "t\($0)" } + ["items_archive"]
        let error = SourceError.noSuchTable(name: "items", tables: names)
        XCTAssertEqual("\(error)", #"no table or view "items": the file has "items_archive", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9" and 19991 more"#)
        let long = SourceError.noSuchColumn(name: "x", source: "t", columns: [String(repeating: "c", count: 100_000)])
        XCTAssertLessThan("\(long)".count, 200, "\(long)")
    }

    func testVirtualTableOfAMissingModuleIsLeftOutAndExplained() throws {
        try ForeignFile.sqlite3(file, """
            PRAGMA writable_schema = ON;
            INSERT INTO sqlite_schema VALUES ('table', 'ghost', 'ghost', 0, 'CREATE VIRTUAL TABLE ghost USING nosuchmodule()');
            """)
        let database = try SQLiteDataSource.open(path: file)
        let names = try database.read { db in try TableSchema.all(db).map(\.name) }
        XCTAssertFalse(names.contains("ghost"))
        XCTAssertTrue(names.contains("item"))
        XCTAssertTrue(try database.read { db in try TableSchema.allNames(db) }.contains("ghost"))
        XCTAssertThrowsError(try database.read { db in try TableSchema.named("ghost", in: db) }) { error in
            XCTAssertEqual("\(error)", #"cannot read "ghost": no such module: nosuchmodule"#)
        }
    }

    func testSourceReloadsAfterAnotherProcessChangesTheSchema() throws {
        let item = RowSource.table(try table("item"), dialect: .sqlite)
        let query = try database.read { db in try RowSource.query("SELECT * FROM item", in: db) }
        let version = try database.read { db in try RowSource.schemaVersion(db) }

        try ForeignFile.sqlite3(file, "ALTER TABLE item ADD COLUMN color TEXT DEFAULT 'red';")
        XCTAssertNotEqual(try database.read { db in try RowSource.schemaVersion(db) }, version)
        XCTAssertEqual(try database.read { db in try item.reloaded(db) }.columnNames, ["id", "name", "price", "note", "color"])
        XCTAssertEqual(try database.read { db in try query.reloaded(db) }.columnNames, ["id", "name", "price", "note", "color"])
        XCTAssertEqual(try database.read { db in try query.reloaded(db) }.name, "SELECT * FROM item")

        try ForeignFile.sqlite3(file, "DROP VIEW cheap; DROP TABLE item;")
        XCTAssertThrowsError(try database.read { db in try item.reloaded(db) }) { error in
            guard case .noSuchTable(name: "item", tables: _) = error as? SourceError else { return XCTFail("\(error)") }
        }
        // The stale source fails with one line, and no crash.
        XCTAssertThrowsError(try database.read { db in
            try RowWindow.fetch(db, item, RowWindowRequest(
                ordering: try RowOrdering(item), anchor: .first, before: 0, after: 5))
        }) { error in
            XCTAssertEqual("\(error)", "cannot read \"\(self.file!)\": no such table: item")
        }
    }

    // MARK: - Row counts

    func testQuickRowCountIsExactBelowTheLimit() throws {
        let item = RowSource.table(try table("item"), dialect: .sqlite)
        XCTAssertEqual(try database.read { db in try item.quickRowCount(db) }, .exact(3))
    }

    func testQuickRowCountEstimatesBeyondTheLimit() throws {
        try ForeignFile.sqlite3(file, """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
            INSERT INTO item(name, price) SELECT 'p' || i, i FROM n;
            DELETE FROM item WHERE id % 2 = 0;
            """)
        let item = RowSource.table(try table("item"), dialect: .sqlite)
        let cheap = RowSource.table(try table("cheap"), dialect: .sqlite)
        let exact = try database.read { db in try item.exactRowCount(db) }
        XCTAssertEqual(exact, 252)
        // Without statistics: the span of the rowids (deleted rows included).
        XCTAssertEqual(try database.read { db in try item.quickRowCount(db, limit: 100) }, .estimated(503))
        // A view: no rowid, so only a bound.
        XCTAssertEqual(try database.read { db in try cheap.quickRowCount(db, limit: 5) }, .atLeast(5))

        // With statistics: what ANALYZE counted.
        try ForeignFile.sqlite3(file, "ANALYZE;")
        XCTAssertEqual(try database.read { db in try item.quickRowCount(db, limit: 100) }, .estimated(252))
    }
}
