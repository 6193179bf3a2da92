import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// The export formats, value by value, and the export that pages through
/// a table a read at a time.
final class ViewerExportTests: XCTestCase {
    // MARK: - Encoding

    func testCSVQuotesOnlyWhatItMust() {
        var encoder = RowEncoder(format: .csv, columnNames: ["a", "b,c"])
        XCTAssertEqual(encoder.header(), "a,\"b,c\"\r\n")
        XCTAssertEqual(encoder.record(["plain".databaseValue, "say \"hi\"".databaseValue]), "plain,\"say \"\"hi\"\"\"\r\n")
        XCTAssertEqual(encoder.record(["a\nb".databaseValue, "a\rb".databaseValue]), "\"a\nb\",\"a\rb\"\r\n")
        XCTAssertEqual(encoder.record([.null, "".databaseValue]), ",\"\"\r\n", "NULL is empty, empty text is quoted")
        XCTAssertEqual(encoder.record([(-7).databaseValue, 2.5.databaseValue]), "-7,2.5\r\n")
        XCTAssertEqual(encoder.record([Data([0x00, 0xAB]).databaseValue, "é".databaseValue]), "00ab,é\r\n")
        XCTAssertEqual(encoder.footer(), "")
    }

    func testTSVEscapesSeparators() {
        var encoder = RowEncoder(format: .tsv, columnNames: ["a\tb", "c"])
        XCTAssertEqual(encoder.header(), "a\\tb\tc\n")
        XCTAssertEqual(encoder.record(["x\ty\nz\r\\".databaseValue, .null]), "x\\ty\\nz\\r\\\\\t\\N\n")
        XCTAssertEqual(encoder.record(["".databaseValue, Data([1]).databaseValue]), "\t01\n")
    }

    func testJSONTypesAndEscapes() {
        var encoder = RowEncoder(format: .json, columnNames: ["n", "t\"x"])
        var output = encoder.header()
        output += encoder.record([1.databaseValue, "a\"\\\n\u{1B}\u{7F}é".databaseValue])
        output += encoder.record([1e300.databaseValue, .null])
        output += encoder.record([(-Double.infinity).databaseValue, Data([0, 255, 16]).databaseValue])
        output += encoder.footer()
        XCTAssertEqual(output, """
            [
            {"n": 1, "t\\"x": "a\\"\\\\\\n\\u001b\\u007fé"},
            {"n": 1e+300, "t\\"x": null},
            {"n": -1e999, "t\\"x": "AP8Q"}
            ]

            """)
        // Infinities are written as the sqlite3 CLI writes them (1e999),
        // which Foundation's parser rejects: the rest is checked by it.
        let finite = output.replacingOccurrences(of: "-1e999", with: "0")
        let decoded = try? JSONSerialization.jsonObject(with: Data(finite.utf8)) as? [[String: Any]]
        XCTAssertEqual(decoded?.count, 3)
        XCTAssertEqual(decoded?[0]["t\"x"] as? String, "a\"\\\n\u{1B}\u{7F}é")
    }

    func testEmptyJSON() {
        let encoder = RowEncoder(format: .json, columnNames: ["a"])
        XCTAssertEqual(encoder.header() + encoder.footer(), "[]\n")
    }

    // MARK: - Export

    func testExportPagesThroughEveryRowOnceInShortReads() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("export.sqlite").path
        try ForeignFile.sqlite3(path, """
            CREATE TABLE t(id INTEGER PRIMARY KEY, v);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 25)
            INSERT INTO t(v) SELECT i * 10 FROM n;
            CREATE VIEW same AS SELECT 1 AS one FROM t;
            """)
        let database = try SQLiteDataSource.open(path: path)
        let table = try database.read { db in RowSource.table(try TableSchema.named("t", in: db), dialect: .sqlite) }

        // Between two writes, a writer that does not wait commits: no read
        // lasts longer than one page.
        var pieces: [String] = []
        try RowExport.export(database, table, format: .tsv, pageSize: 10) { bytes in
            pieces.append(String(decoding: bytes, as: UTF8.self))
            try ForeignFile.sqlite3(path, ".timeout 0\nUPDATE t SET v = v WHERE id = 1;")
        }
        let expected = "id\tv\n" + (1...25).map { "\($0)\t\($0 * 10)\n" }.joined()
        XCTAssertEqual(pieces.joined(), expected)
        XCTAssertEqual(pieces.count, 5, "header, three pages, footer")

        // A view of equal rows: all of them, none skipped.
        let view = try database.read { db in RowSource.table(try TableSchema.named("same", in: db), dialect: .sqlite) }
        var output = ""
        try RowExport.export(database, view, format: .csv, pageSize: 10) { output += String(decoding: $0, as: UTF8.self) }
        XCTAssertEqual(output, "one\r\n" + String(repeating: "1\r\n", count: 25))
    }

    func testExportOfAMultiColumnKeyPagesLikeTheSQLiteCommand() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("pairs.sqlite").path
        try ForeignFile.sqlite3(path, """
            CREATE TABLE pair(a TEXT, b INTEGER, v, w REAL, PRIMARY KEY(a, b)) WITHOUT ROWID;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 95)
            INSERT INTO pair SELECT char(65 + i % 7), i, CASE WHEN i % 5 = 0 THEN NULL ELSE 'v' || i END, i * 1.5 FROM n;
            INSERT INTO pair VALUES ('Z', -9223372036854775808, 'min', 0.25);
            """)
        let database = try SQLiteDataSource.open(path: path)
        let table = try database.read { db in RowSource.table(try TableSchema.named("pair", in: db), dialect: .sqlite) }
        var output = ""
        try RowExport.export(database, table, format: .csv, pageSize: 4) { output += String(decoding: $0, as: UTF8.self) }
        let expected = try ForeignFile.sqlite3(path, ".headers on\n.mode csv\nSELECT * FROM pair ORDER BY a, b;")
        XCTAssertEqual(output, expected)
        XCTAssertEqual(output.components(separatedBy: "\r\n").count, 98)
    }

    func testInvalidUTF8IsRepairedAndTheOutputIsValid() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("bytes.sqlite").path
        try ForeignFile.sqlite3(path, """
            CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);
            INSERT INTO t VALUES (1, CAST(X'61FF62' AS TEXT)), (2, 'é,"');
            """)
        let database = try SQLiteDataSource.open(path: path)
        let table = try database.read { db in RowSource.table(try TableSchema.named("t", in: db), dialect: .sqlite) }
        var bytes: [UInt8] = []
        try RowExport.export(database, table, format: .json) { bytes += $0 }
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), """
            [
            {"id": 1, "v": "a\u{FFFD}b"},
            {"id": 2, "v": "é,\\""}
            ]

            """)
    }
}
