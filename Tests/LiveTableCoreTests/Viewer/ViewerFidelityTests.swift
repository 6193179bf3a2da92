import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// What SQLite stores is what the viewer shows and exports: text with a
/// NUL byte whole, invalid UTF-8 escaped on screen and said in exports, an
/// empty BLOB apart from NULL, and no JSON key lost to a duplicate name.
final class ViewerFidelityTests: XCTestCase {
    private var database: SQLiteDataSource!

    override func setUpWithError() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("odd.sqlite").path
        try ForeignFile.sqlite3(path, """
            CREATE TABLE odd(id INTEGER PRIMARY KEY, v);
            INSERT INTO odd(id, v) VALUES
                (1, 'admin' || char(0) || 'root'),
                (2, CAST(x'61ff62c3' AS TEXT)),
                (3, x''),
                (4, NULL),
                (5, '');
            """)
        database = try SQLiteDataSource.open(path: path)
    }

    private func source(_ target: ViewerTarget) throws -> RowSource {
        try database.read { db in try ViewedSource.open(target, sortColumn: nil, descending: false, in: db).source }
    }

    private func window() throws -> [[DatabaseValue]] {
        let source = try source(.table("odd"))
        return try database.read { db in
            try RowWindow.fetch(db, source, RowWindowRequest(ordering: try RowOrdering(source), anchor: .first, before: 0, after: 10))
        }.rows
    }

    private func export(_ target: ViewerTarget, _ format: ExportFormat) throws -> (text: String, summary: RowExport.Summary) {
        var bytes: [UInt8] = []
        let summary = try RowExport.export(database, try source(target), format: format) { bytes += $0 }
        return (String(decoding: bytes, as: UTF8.self), summary)
    }

    // MARK: - NUL

    func testTextWithANulIsShownWhole() throws {
        let value = try window()[0][1]
        XCTAssertEqual(value, "admin\u{0}root".databaseValue)
        XCTAssertEqual(CellText(value).text, "admin\\u{0}root")
    }

    func testTextWithANulIsExportedWhole() throws {
        // A table is exported by pages (windows), a query in one read.
        for target in [ViewerTarget.table("odd"), .query("SELECT id, v FROM odd")] {
            XCTAssertTrue(try export(target, .csv).text.contains("1,admin\u{0}root\r\n"), "\(target)")
            XCTAssertTrue(try export(target, .tsv).text.contains("1\tadmin\u{0}root\n"), "\(target)")
            XCTAssertTrue(try export(target, .json).text.contains(#"{"id": 1, "v": "admin\u0000root"}"#), "\(target)")
        }
    }

    // MARK: - Invalid UTF-8

    func testInvalidUTF8IsShownEscaped() throws {
        let value = try window()[1][1]
        XCTAssertEqual(CellText(value).text, "a\\x{ff}b\\x{c3}")
    }

    func testInvalidUTF8IsExportedAsReplacementCharactersAndCounted() throws {
        for target in [ViewerTarget.table("odd"), .query("SELECT id, v FROM odd")] {
            let (csv, summary) = try export(target, .csv)
            XCTAssertTrue(csv.contains("2,a\u{FFFD}b\u{FFFD}\r\n"), csv)
            XCTAssertEqual(summary.invalidTextCount, 1)
            XCTAssertEqual(summary.rowCount, 5)
            XCTAssertEqual(
                summary.warning, "1 text value is not valid UTF-8: its invalid bytes are written as U+FFFD")
        }
        XCTAssertNil(RowExport.Summary(rowCount: 3, invalidTextCount: 0).warning)
    }

    func testDecodingKeepsEachInvalidByte() {
        let text = StoredText.decoding([0x61, 0xE2, 0x82, 0x00, 0xF0, 0x9F, 0x98, 0x80, 0xFF])
        XCTAssertEqual(CellText.escaped(text), "a\\x{e2}\\x{82}\\u{0}😀\\x{ff}")
        XCTAssertEqual(StoredText.decoding(Array("Zoë 中文".utf8)), "Zoë 中文")
    }

    // MARK: - Empty BLOB

    func testEmptyBlobIsNotNullInCSV() throws {
        let csv = try export(.table("odd"), .csv).text
        XCTAssertTrue(csv.contains("3,\"\"\r\n4,\r\n5,\"\"\r\n"), csv)
        let tsv = try export(.table("odd"), .tsv).text
        XCTAssertTrue(tsv.contains("3\t\n4\t\\N\n"), tsv)
    }

    // MARK: - Duplicate names in JSON

    func testDuplicateColumnNamesGetNumberedJSONKeys() throws {
        let json = try export(.query(#"SELECT id, id, v AS "id:1", id FROM odd WHERE id = 4"#), .json).text
        let objects = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        XCTAssertEqual(objects.count, 1)
        XCTAssertEqual(Set(objects[0].keys), ["id", "id:1", "id:2", "id:3"])
        XCTAssertTrue(json.contains(#"{"id": 4, "id:2": 4, "id:1": null, "id:3": 4}"#), json)
        // CSV and TSV headers keep the names as they are.
        XCTAssertTrue(try export(.query("SELECT id, id FROM odd"), .csv).text.hasPrefix("id,id\r\n"))
    }
}
