import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// Random SQL, from a small grammar, and the SQL that once broke the
/// viewer, given as filters and queries: each is refused or read, the
/// process never crashes, and the file is never written (its SHA-256, by
/// `sha256sum`, and `sqlite3`'s integrity check). Bounded in time, so that
/// it runs with every test run.
final class ViewerSQLFuzzTests: XCTestCase {
    /// How long the random part runs.
    private static let duration: TimeInterval = 3
    /// The most random cases it tries.
    private static let maximumCases = 3000

    /// What once broke the viewer, or could.
    private static let corpus = [
        "hex(fts3_tokenizer('simple', x'4141414141414141')) IS NOT NULL",
        "SELECT hex(fts3_tokenizer('simple', x'4141414141414141')) AS p",
        "(SELECT count(*) FROM ft WHERE ft MATCH 'hello') >= 0",
        "SELECT (SELECT hex(fts3_tokenizer('simple', x'4141414141414141'))) AS p, (SELECT count(*) FROM ft WHERE ft MATCH 'hello') AS n",
        "fts3_tokenizer('simple') IS NOT NULL",
        "load_extension('/lib/x86_64-linux-gnu/libc.so.6') IS NULL",
        "SELECT load_extension('libm')",
        "1); DELETE FROM item; --",
        "1) OR (1",
        "name = 'keep') OR (1",
        "DELETE FROM item",
        "UPDATE item SET name = 'x'",
        "INSERT INTO item(name) VALUES ('x')",
        "ATTACH 'other.sqlite' AS o",
        "VACUUM",
        "REINDEX",
        "ANALYZE",
        "CREATE TABLE t(x)",
        "DROP TABLE item",
        "PRAGMA writable_schema = ON",
        "PRAGMA trusted_schema = ON",
        "PRAGMA journal_mode = WAL",
        "PRAGMA user_version = 7",
        "SELECT * FROM pragma_table_info('item')",
        "SELECT ?", "id = ?", "name = :name", "@x", "$x IS NULL",
        "sqlite_log(1, 'x') IS NULL",
        "randomblob(16) IS NOT NULL",
        "WITH x AS (DELETE FROM item RETURNING *) SELECT * FROM x",
        "SELECT * FROM item; DELETE FROM item",
        "name -- comment",
        "/* open comment",
        "'unterminated",
        "json_extract(name, '$.a') > 1",
        "rtreenode(2, x'00') IS NULL",
        "fts5(NULL) IS NULL",
        "SELECT 1 FROM sqlite_schema",
        "SELECT highlight(ft, 0, '[', ']') FROM ft WHERE ft MATCH 'hello'",
        "(SELECT count(*) FROM pragma_cache_size) >= 0",
        "SELECT * FROM pragma_optimize",
        "SELECT * FROM pragma_journal_mode('delete')",
        "SELECT * FROM dbstat",
    ]

    func testQueryOfRandomValuesPagesWithoutCrashing() throws {
        // Each statement of a window sees other rows: a count of a key
        // found none of the rows just read (a negative position, a trap).
        let path = try makeTemporaryDirectory().appendingPathComponent("random.sqlite").path
        try ForeignFile.sqlite3(path, "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3), (4), (5), (6);")
        let database = try SQLiteDataSource.open(path: path)
        let source = try database.read { db in try RowSource.query("SELECT random() AS r FROM t", in: db) }
        let ordering = try RowOrdering(source)
        for _ in 0..<20 {
            let last = try database.read { db in
                try RowWindow.fetch(db, source, RowWindowRequest(ordering: ordering, anchor: .last, before: 2, after: 0))
            }
            XCTAssertTrue(last.positions.allSatisfy { $0.occurrence >= 0 }, "\(last.positions)")
            for position in last.positions {
                _ = try database.read { db in
                    try RowWindow.fetch(
                        db, source, RowWindowRequest(ordering: ordering, anchor: .position(position), before: 3, after: 3))
                }
            }
        }
    }

    func testFiltersAndQueriesNeverCrashNorWrite() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("fuzz.sqlite").path
        try ForeignFile.sqlite3(path, """
            CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price REAL, data BLOB);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
            INSERT INTO item(name, price, data) SELECT CASE WHEN i % 3 THEN 'keep' ELSE 'drop' END,
                i * 0.5, CASE WHEN i % 5 THEN randomblob(i % 7) END FROM n;
            CREATE TABLE pair(a TEXT, b INTEGER, PRIMARY KEY(b DESC, a)) WITHOUT ROWID;
            INSERT INTO pair VALUES ('x', 1), ('y', 2), ('z', 3);
            CREATE VIRTUAL TABLE ft USING fts3(body);
            INSERT INTO ft VALUES ('hello world'), ('goodbye');
            CREATE VIEW v AS SELECT name, price FROM item;
            """)
        let before = try FileSnapshot(path)
        let database = try SQLiteDataSource.open(path: path)
        let tables = try database.read { db in
            try ["item", "pair", "v", "ft"].map { RowSource.table(try TableSchema.named($0, in: db), dialect: .sqlite) }
        }

        accepted = 0
        refused = 0
        var generator = SQLGenerator(seed: 0x15_15_15)
        var cases = Self.corpus
        var tried = 0
        let start = Date()
        while true {
            for sql in cases {
                try check(sql, database, tables)
                tried += 1
            }
            cases = (0..<50).map { _ in generator.next() }
            if tried >= Self.maximumCases || Date().timeIntervalSince(start) > Self.duration { break }
        }
        XCTAssertGreaterThan(tried, Self.corpus.count)
        // The grammar reaches both sides of the checks.
        XCTAssertGreaterThan(accepted, 100, "accepted of \(tried)")
        XCTAssertGreaterThan(refused, 100, "refused of \(tried)")

        XCTAssertEqual(try FileSnapshot(path), before, "the file is never written")
        XCTAssertEqual(try ForeignFile.sqlite3(path, "PRAGMA integrity_check;"), "ok\n")
        // The tokenizer still tokenizes: nothing replaced it.
        XCTAssertEqual(try ForeignFile.sqlite3(path, "SELECT count(*) FROM ft WHERE ft MATCH 'hello';"), "1\n")
    }

    private var accepted = 0
    private var refused = 0

    /// Gives `sql` as a query, and as a filter of each table; reads what
    /// is accepted.
    private func check(_ sql: String, _ database: SQLiteDataSource, _ tables: [RowSource]) throws {
        do {
            let source = try database.read { db in try RowSource.query(sql, in: db) }
            accepted += 1
            try read(source, database)
        } catch is SourceError {
            refused += 1
        }
        for table in tables {
            do {
                let source = try database.read { db in try table.filtered(sql, in: db) }
                accepted += 1
                try read(source, database)
            } catch is SourceError {
                refused += 1
            }
        }
    }

    /// Reads a window and counts, as the screen does: SQLite may fail (a
    /// division by zero, malformed JSON), never crash nor write.
    private func read(_ source: RowSource, _ database: SQLiteDataSource) throws {
        let ordering = try RowOrdering(source)
        do {
            let window = try database.read { db in
                try RowWindow.fetch(db, source, RowWindowRequest(ordering: ordering, anchor: .last, before: 5, after: 0))
            }
            if let position = window.positions.first {
                _ = try database.read { db in
                    try RowWindow.fetch(
                        db, source, RowWindowRequest(ordering: ordering, anchor: .position(position), before: 3, after: 3),
                        scans: true)
                }
            }
            _ = try database.read { db in try source.quickRowCount(db, limit: 1000) }
            _ = try database.read { db in
                try RowSearch(text: "e", column: 0, forward: true, from: window.positions.last).run(db, source, ordering)
            }
        } catch is SourceError {
        } catch is DatabaseError {
        }
    }
}

/// Random SQL expressions and statements from a small grammar, with the
/// functions the viewer allows and some it refuses. Values stay small: a
/// `randomblob(1e9)` would only measure memory.
private struct SQLGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    /// xorshift64*: the same cases on every run.
    private mutating func random(_ bound: Int) -> Int {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return Int((state &* 2_685_821_657_736_338_717) >> 33) % max(1, bound)
    }

    private mutating func pick(_ choices: [String]) -> String {
        choices[random(choices.count)]
    }

    private static let columns = ["id", "name", "price", "data", "a", "b", "body", "rowid", "c0", "nope"]
    private static let functions = [
        "abs", "length", "lower", "upper", "hex", "typeof", "coalesce", "ifnull", "instr", "substr", "replace",
        "round", "json_extract", "json_valid", "json_array", "date", "strftime", "unicode", "char", "quote",
        "max", "min", "count", "sum", "total", "group_concat", "iif", "nullif", "trim", "likely", "sqrt", "pow",
        "fts3_tokenizer", "load_extension", "sqlite_log", "fts5", "rtreenode", "randomblob", "zeroblob",
        "matchinfo", "snippet", "offsets", "writefile", "readfile", "edit", "no_such_function",
    ]
    private static let operators = [
        "+", "-", "*", "/", "%", "=", "<>", "<", ">=", "AND", "OR", "IS", "IS NOT", "||", "LIKE", "GLOB",
        "->", "->>", "&", "<<", "MATCH",
    ]
    private static let statements = [
        "DELETE FROM item WHERE ", "UPDATE item SET name = 1 WHERE ", "PRAGMA trusted_schema = ",
        "PRAGMA writable_schema = ", "ATTACH ", "CREATE TABLE t AS SELECT ", "INSERT INTO item(name) SELECT ",
    ]

    mutating func next() -> String {
        switch random(10) {
        case 0:
            return pick(Self.statements) + expression(depth: 2)
        case 1, 2:
            return "SELECT " + (0...random(3)).map { _ in expression(depth: 3) }.joined(separator: ", ")
                + pick(["", " FROM item", " FROM pair", " FROM ft", " FROM v", " FROM item WHERE " + expression(depth: 2)])
                + pick(["", " ORDER BY 1", " GROUP BY 1", " LIMIT 3", ";", "; DELETE FROM item"])
        default:
            return expression(depth: 4) + pick(["", "", "", ")", "(", " --", "'", ";"])
        }
    }

    private mutating func expression(depth: Int) -> String {
        let choice = depth <= 0 ? random(4) : random(11)
        switch choice {
        case 0: return pick(["NULL", "0", "1", "-1", "2.5", "1e308", "'keep'", "'drop'", "''", "x'00ff'", "'{\"a\":1}'", "'hello'"])
        case 1: return pick(Self.columns)
        case 2: return pick(["?", ":name", "@x", "$x", "?2"])
        case 3: return pick(["'simple'", "x'4141414141414141'", "'/lib/x86_64-linux-gnu/libc.so.6'", "'$.a'"])
        case 4, 5:
            return "\(expression(depth: depth - 1)) \(pick(Self.operators)) \(expression(depth: depth - 1))"
        case 6:
            let name = pick(Self.functions)
            let arguments = (0..<random(3)).map { _ in expression(depth: depth - 1) }
            return "\(name)(\(arguments.joined(separator: ", ")))"
        case 7: return "(\(expression(depth: depth - 1)))"
        case 8:
            return "CASE WHEN \(expression(depth: depth - 1)) THEN \(expression(depth: depth - 1)) ELSE \(expression(depth: depth - 1)) END"
        case 9:
            return "(SELECT \(expression(depth: depth - 1)) FROM \(pick(["item", "ft", "pair", "v", "sqlite_schema"])) "
                + "WHERE \(expression(depth: depth - 1)) LIMIT 1)"
        default:
            return "\(expression(depth: depth - 1)) IN (\(expression(depth: 0)), \(expression(depth: 0)))"
        }
    }
}
