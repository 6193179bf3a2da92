import Foundation
import XCTest

/// `livetable view --format`, the real binary, on values that a C string
/// or a careless decoder loses: read back with Python.
final class ExportFidelityTests: LiveTableTestCase {
    private var database: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        database = directory.appendingPathComponent("odd.sqlite")
        try Shell.python(#"""
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            c.execute("CREATE TABLE odd(id INTEGER PRIMARY KEY, v)")
            c.execute("INSERT INTO odd VALUES (1, 'admin' || char(0) || 'root'), (2, CAST(x'61ff62' AS TEXT)), (3, x''), (4, NULL)")
            c.commit()
            """#, [database.path])
    }

    /// Reads an export with Python's csv or json module, and prints each
    /// record as Python sees it.
    private func parse(_ output: String, _ format: String) throws -> String {
        let file = directory.appendingPathComponent("output.\(format)")
        try Data(output.utf8).write(to: file)
        return try Shell.python(#"""
            import csv, json, sys
            data = open(sys.argv[1], encoding="utf-8", newline="").read()
            if sys.argv[2] == "csv":
                for row in csv.reader(data.splitlines(keepends=True)):
                    print(repr(row))
            else:
                for record in json.loads(data, object_pairs_hook=lambda pairs: pairs):
                    print(repr(record))
            """#, [file.path, format])
    }

    func testNulInvalidUTF8AndEmptyBlobSurviveCSV() throws {
        let result = try Shell.run(Self.binaryPath, ["view", database.path, "odd", "--format", "csv"])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertEqual(try parse(result.standardOutput, "csv"), """
            ['id', 'v']
            ['1', 'admin\\x00root']
            ['2', 'a\u{FFFD}b']
            ['3', '']
            ['4', '']

            """)
        // The empty BLOB is quoted, NULL is not.
        XCTAssertTrue(result.standardOutput.hasSuffix("3,\"\"\r\n4,\r\n"), result.standardOutput)
        XCTAssertEqual(
            result.standardError,
            "livetable: warning: 1 text value is not valid UTF-8: its invalid bytes are written as U+FFFD\n")
    }

    func testNulAndInvalidUTF8AreShownEscaped() throws {
        let session = try launch(["view", database.path, "odd"])
        try session.waitForScreen(containing: "row 1 of 4 · live")
        try session.waitForScreen(containing: #"admin\u{0}root"#)
        try session.waitForScreen(containing: #"a\x{ff}b"#)
        try session.send("q")
        _ = try waitForExit(session, status: 0)
    }

    func testDuplicateNamesKeepEveryJSONKey() throws {
        let result = try Shell.run(Self.binaryPath, [
            "view", database.path, "--query", "SELECT id, id, v FROM odd WHERE id = 1", "--format", "json",
        ])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertEqual(result.standardError, "")
        XCTAssertEqual(try parse(result.standardOutput, "json"), """
            [('id', 1), ('id:1', 1), ('v', 'admin\\x00root')]

            """)
    }
}
