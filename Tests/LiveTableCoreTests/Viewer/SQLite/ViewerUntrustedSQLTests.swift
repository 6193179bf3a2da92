import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// The SQL a user types, and the SQL a file holds, is untrusted: the
/// viewer's connections allow reads and the built-in functions they need,
/// and nothing else, whatever `sqlite3_stmt_readonly` says.
final class ViewerUntrustedSQLTests: XCTestCase {
    private var path: String!
    private var database: SQLiteDataSource!

    override func setUpWithError() throws {
        path = try makeTemporaryDirectory().appendingPathComponent("tok.sqlite").path
        try ForeignFile.sqlite3(path, """
            CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, doc TEXT);
            INSERT INTO item(name, doc) VALUES ('a', '{"n": 1}'), ('b', '{"n": 2}'), ('c', NULL);
            CREATE VIRTUAL TABLE ft USING fts3(body);
            INSERT INTO ft VALUES ('hello world'), ('goodbye');
            CREATE VIEW tokenizer AS SELECT hex(fts3_tokenizer('simple')) AS p;
            CREATE VIEW hello AS SELECT body FROM ft WHERE ft MATCH 'hello';
            """)
        database = try SQLiteDataSource.open(path: path)
    }

    private func query(_ sql: String) throws -> RowSource {
        try database.read { db in try RowSource.query(sql, in: db) }
    }

    private func filter(_ expression: String, table: String = "item") throws -> RowSource {
        try database.read { db in try RowSource.table(TableSchema.named(table, in: db), dialect: .sqlite).filtered(expression, in: db) }
    }

    private func assertRefused(
        _ body: @autoclosure () throws -> RowSource, saying words: String,
        file: StaticString = #filePath, line: UInt = #line)
    {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            XCTAssertTrue(
                String(describing: error).contains(words), "\(error) does not say \(words)", file: file, line: line)
        }
    }

    // MARK: - The crash

    func testTwoArgumentTokenizerIsRefusedBeforeAnythingRuns() throws {
        // Replacing the "simple" tokenizer with the address 0x4141414141414141
        // made the next MATCH jump there: SIGSEGV.
        assertRefused(
            try query("SELECT hex(fts3_tokenizer('simple', x'4141414141414141')) AS p"),
            saying: "the function fts3_tokenizer() is not allowed")
        assertRefused(
            try filter("fts3_tokenizer('simple', x'4141414141414141') IS NOT NULL"),
            saying: "fts3_tokenizer() is not allowed")
        // The search the crash needed still works.
        let search = try filter("(SELECT count(*) FROM ft WHERE ft MATCH 'hello') >= 0")
        XCTAssertEqual(try database.read { db in try search.exactRowCount(db) }, 3)
        let matches = try query("SELECT body FROM ft WHERE ft MATCH 'hello'")
        XCTAssertEqual(try database.read { db in try matches.exactRowCount(db) }, 1)
    }

    func testViewOfTheFileCannotCallTheTokenizer() throws {
        // The file's own SQL is untrusted too.
        XCTAssertThrowsError(try database.read { db in try Row.fetchAll(db, sql: "SELECT * FROM tokenizer") })
    }

    func testViewOfAFullTextTableIsRefusedWithAWayOut() throws {
        // trusted_schema = OFF: SQLite does not let a view of the file read
        // a virtual table that is not innocuous (FTS3, FTS5).
        XCTAssertThrowsError(try database.read { db in try TableSchema.named("hello", in: db) }) { error in
            XCTAssertEqual(
                "\(error)", #"cannot read "hello": unsafe use of virtual table "ft" in a view of the file, "#
                    + "which livetable view does not trust: give the view's SELECT with --query")
        }
        let query = try query("SELECT body FROM ft WHERE ft MATCH 'hello'")
        XCTAssertEqual(try database.read { db in try query.exactRowCount(db) }, 1)
    }

    func testEveryConnectionIsGuarded() throws {
        for background in [false, true] {
            let options = try database.read(background: background) { db in
                try Row.fetchOne(db, sql: "SELECT * FROM pragma_trusted_schema")
            }
            XCTAssertEqual(options?[0] as Int?, 0, "trusted_schema, background: \(background)")
            try database.read(background: background) { db in
                XCTAssertThrowsError(try db.execute(sql: "SELECT load_extension('/lib/x86_64-linux-gnu/libc.so.6')"))
                XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT abs(-4) + length('ab')"), 6)
            }
        }
    }

    // MARK: - What is refused

    func testFunctionsOffTheListAreRefused() throws {
        assertRefused(try query("SELECT load_extension('x')"), saying: "load_extension() is not allowed")
        assertRefused(try filter("fts3_tokenizer('simple') IS NOT NULL"), saying: "fts3_tokenizer() is not allowed")
        assertRefused(try filter("sqlite_log(1, 'x') IS NULL"), saying: "sqlite_log() is not allowed")
    }

    func testTableValuedPragmaOffTheListIsRefusedWhenChecked() throws {
        // `pragma_cache_size` compiled as a read and ran its PRAGMA only
        // when stepped: the filter was accepted, then every window failed
        // with "not authorized".
        assertRefused(
            try filter("(SELECT count(*) FROM pragma_cache_size) >= 0"),
            saying: "PRAGMA cache_size is not allowed")
        assertRefused(try query("SELECT * FROM pragma_optimize"), saying: "PRAGMA optimize is not allowed")
        // Those on the list still read.
        let columns = try query("SELECT name FROM pragma_table_info('item')")
        XCTAssertEqual(try database.read { db in try columns.exactRowCount(db) }, 3)
        let version = try filter("(SELECT data_version FROM pragma_data_version) > 0")
        XCTAssertEqual(try database.read { db in try version.exactRowCount(db) }, 3)
    }

    func testPragmasThatSetAreRefusedEvenAtCompileTime() throws {
        // SQLite applies `PRAGMA trusted_schema = ON` when it compiles it,
        // before anything checks whether it is a SELECT.
        assertRefused(try query("PRAGMA trusted_schema = ON"), saying: "the query is not read-only")
        assertRefused(try query("PRAGMA writable_schema = 1"), saying: "the query is not read-only")
        assertRefused(try query("PRAGMA writable_schema"), saying: "PRAGMA writable_schema is not allowed")
        let trusted = try database.read { db in try Int.fetchOne(db, sql: "SELECT * FROM pragma_trusted_schema") }
        XCTAssertEqual(trusted, 0)
    }

    func testReadsTheViewerNeedsStillWork() throws {
        let source = try query("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3)
            SELECT i, date('2024-01-01', '+' || i || ' days') AS day, json_extract('{"a": 2}', '$.a') * i AS j,
                   doc ->> '$.n' AS n, row_number() OVER (ORDER BY i DESC) AS r, sqrt(16) AS s, printf('%03d', i) AS p
            FROM n LEFT JOIN item ON item.id = n.i
            """)
        XCTAssertEqual(try database.read { db in try source.exactRowCount(db) }, 3)
        let filtered = try filter("json_extract(doc, '$.n') >= 2 OR name LIKE 'c%'")
        XCTAssertEqual(try database.read { db in try filtered.exactRowCount(db) }, 2)
        let viewed = try database.read { db in
            try ViewedSource.open(.table("item"), sortColumn: "name", descending: true, in: db)
        }
        XCTAssertEqual(viewed.cost, .scan)
    }

    // MARK: - Parameters

    func testParametersAreRefusedUpFront() throws {
        for sql in ["SELECT ? AS x", "SELECT * FROM item WHERE id = :id", "SELECT @x", "SELECT $x", "SELECT ?1"] {
            assertRefused(try query(sql), saying: "parameters (?, :name, @name, $name) have no value here")
        }
        for expression in ["id = ?", "name = :name", "name = @n OR 1", "$x IS NULL"] {
            assertRefused(try filter(expression), saying: "parameters (?, :name, @name, $name) have no value here")
        }
        // A question mark in a string is no parameter.
        XCTAssertNoThrow(try filter("name <> '?'"))
    }

    // MARK: - Where SQLite ends a token

    /// The texts that closed PostgreSQL's `WHERE (…)` unseen, as SQLite
    /// reads them: its `--` comment runs on past `\r` to the `\n` after the
    /// filter (no row kept), a blank beyond ASCII is part of a name, and
    /// so is a letter after a number (`1x`: no such token).
    func testSQLiteReadsTheFilterAsTheScanDoes() throws {
        let comment = "false -- x\r) OR TRUE OR (TRUE"
        XCTAssertNoThrow(try filter(comment))
        let kept = try database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item WHERE (\n\(comment)\n)") }
        XCTAssertEqual(kept, 0)
        assertRefused(try filter("name\u{A0}= 'a'"), saying: "no such column: name\u{A0}")
        assertRefused(try filter("id IN (SELECT 1x)"), saying: "unrecognized token: \"1x\"")
    }

    /// SQLite's comments do not nest: tokenize.c reads `/* /*/` as one
    /// comment, and the `) OR (1=1` after it as SQL, which keeps every
    /// row whatever the window's condition. Refused before it runs.
    func testASlashStarInsideACommentDoesNotHideWhatFollows() throws {
        let escaping = "1 /* /*/ ) OR (1=1 /* */"
        let kept = try database.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM item WHERE (\n\(escaping)\n) AND (\nid > 2\n)")
        }
        XCTAssertEqual(kept, 3, "the window's condition binds: no test")
        assertRefused(try filter(escaping), saying: "unbalanced parentheses")
        assertRefused(try query("SELECT * FROM item WHERE \(escaping)"), saying: "unbalanced parentheses")
    }
}
