import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// `--query`: refused before anything runs unless it is one read-only
/// statement that returns rows.
final class ViewerQueryTests: XCTestCase {
    private var file: String!
    private var database: SQLiteDataSource!

    override func setUpWithError() throws {
        file = try makeTemporaryDirectory().appendingPathComponent("query.sqlite").path
        try ForeignFile.sqlite3(file, """
            CREATE TABLE t(a INTEGER, b TEXT);
            INSERT INTO t VALUES (1, 'one'), (2, 'two'), (2, 'deux'), (NULL, 'none');
            """)
        database = try SQLiteDataSource.open(path: file)
    }

    private func query(_ sql: String) throws -> RowSource {
        try database.read { db in try RowSource.query(sql, in: db) }
    }

    private func assertRefused(
        _ sql: String, _ expected: SourceError,
        file: StaticString = #filePath, line: UInt = #line) throws
    {
        let before = try FileSnapshot(self.file)
        XCTAssertThrowsError(try query(sql), file: file, line: line) { error in
            XCTAssertEqual(error as? SourceError, expected, file: file, line: line)
        }
        XCTAssertEqual(try FileSnapshot(self.file), before, file: file, line: line)
        XCTAssertEqual(try ForeignFile.sqlite3(self.file, "SELECT COUNT(*) FROM t;"), "4\n", file: file, line: line)
    }

    /// A table named `source`, the name of the wrapper a query is read
    /// through: a query of it, and its frequency sheet, read the table.
    func testATableNamedSourceCanBeQueriedAndCounted() throws {
        try ForeignFile.sqlite3(file, "CREATE TABLE source(k TEXT); INSERT INTO source VALUES ('x'), ('x'), ('y');")
        let queried = try ViewerDriver(path: file, target: .query("SELECT k FROM source ORDER BY k"), width: 80, height: 24)
        XCTAssertNil(queried.state.table?.failure)
        XCTAssertEqual(queried.state.table?.window?.rows.map { $0[0] }, ["x", "x", "y"].map(\.databaseValue))
        let table = try ViewerDriver(path: file, target: .table("source"), width: 80, height: 24)
        try table.type("#")
        XCTAssertNil(table.state.table?.failure)
        XCTAssertNil(table.state.message)
        XCTAssertEqual(table.state.table?.window?.rows.count, 2, "the groups x and y")
    }

    func testWritesAreRefusedBeforeTheyRun() throws {
        for sql in [
            "DELETE FROM t",
            "INSERT INTO t VALUES (3, 'three') RETURNING *",
            "UPDATE t SET a = 0 RETURNING a",
            "DROP TABLE t",
            "CREATE TABLE u(x)",
            "PRAGMA journal_mode = WAL",
            "PRAGMA user_version = 3",
            "VACUUM",
        ] {
            try assertRefused(sql, .notReadOnly)
        }
        XCTAssertEqual("\(SourceError.notReadOnly)", "the query is not read-only: livetable view only reads")
    }

    func testMultipleStatementsAreRefusedBeforeAnyRuns() throws {
        try assertRefused("SELECT * FROM t; DELETE FROM t", .multipleStatements)
        try assertRefused("SELECT * FROM t; SELECT 1", .multipleStatements)
        // What follows is compiled to be refused, never run.
        try assertRefused("SELECT * FROM t; not even SQL", .multipleStatements)
    }

    func testStatementsThatReturnNoRowsAreRefused() throws {
        try assertRefused("BEGIN", .noResultColumns)
        // ATTACH opens another file: refused as a write, before it runs.
        try assertRefused("ATTACH 'other.sqlite' AS other", .notReadOnly)
        XCTAssertFalse(FileManager.default.fileExists(
            atPath: URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("other.sqlite").path))
    }

    func testEmptyAndInvalidQueries() throws {
        try assertRefused("", .emptyQuery)
        try assertRefused("  ;  ", .emptyQuery)
        try assertRefused("-- nothing", .emptyQuery)
        XCTAssertThrowsError(try query("SELEC 1")) { error in
            XCTAssertEqual("\(error)", #"invalid query: near "SELEC": syntax error"#)
        }
        XCTAssertThrowsError(try query("SELECT nope FROM t")) { error in
            XCTAssertEqual("\(error)", "invalid query: no such column: nope")
        }
    }

    /// Refused before SQLite compiles it, in the same words as on
    /// PostgreSQL. SQLite would say "incomplete input" of the statement
    /// around the query, or take a `/*` comment left open for one that
    /// ends with the text, where it would hide that statement's `)`.
    func testUnbalancedParenthesesAndWhatIsLeftOpenAreRefused() throws {
        let unbalanced = SourceError.invalidQuery(reason: "unbalanced parentheses")
        try assertRefused("SELECT a FROM t WHERE (a > 1", unbalanced)
        try assertRefused("SELECT a FROM t WHERE a > 1)", unbalanced)
        try assertRefused("SELECT a FROM t WHERE b = ')' AND (a > 1", unbalanced)
        try assertRefused("SELECT a FROM t WHERE b = 'one", .invalidQuery(reason: "unterminated '"))
        try assertRefused("SELECT [a FROM t", .invalidQuery(reason: "unterminated ["))
        try assertRefused("SELECT a FROM t /* the end", .invalidQuery(reason: "unterminated comment"))
        XCTAssertEqual(try query("SELECT a AS \")(\", ')' AS [(] FROM t -- (").columnNames, [")(", "("])
    }

    func testReadOnlyPragmaCanNotBePaged() throws {
        XCTAssertThrowsError(try query("PRAGMA table_info(t)")) { error in
            guard case .invalidQuery = error as? SourceError else { return XCTFail("\(error)") }
        }
        // Its table-valued function can.
        XCTAssertEqual(try query("SELECT name FROM pragma_table_info('t')").columnNames, ["name"])
    }

    func testQueryEndingWithSemicolonAndComment() throws {
        let source = try query("""
            WITH two AS (SELECT * FROM t WHERE a = 2)
            SELECT b, a, a * 10 FROM two; -- the end
            """)
        XCTAssertEqual(source.columnNames, ["b", "a", "a * 10"])
        XCTAssertTrue(source.isQuery)
        let window = try database.read { db in
            try RowWindow.fetch(db, source, RowWindowRequest(
                ordering: try RowOrdering(source, sortColumn: "b"), anchor: .first, before: 0, after: 10))
        }
        XCTAssertEqual(window.rows, [
            ["deux".databaseValue, 2.databaseValue, 20.databaseValue],
            ["two".databaseValue, 2.databaseValue, 20.databaseValue],
        ])
    }

    func testQueryRowCount() throws {
        let source = try query("SELECT a FROM t WHERE a IS NOT NULL")
        XCTAssertEqual(try database.read { db in try source.quickRowCount(db) }, .exact(3))
        XCTAssertEqual(try database.read { db in try source.quickRowCount(db, limit: 2) }, .atLeast(2))
        XCTAssertEqual(try database.read { db in try source.exactRowCount(db) }, 3)
    }
}
