import Foundation
import XCTest

/// `y`, `Y` and `s` in tmux, and `--format` with the screen's options
/// (issue 28 §1 and §2): the clipboard escape reaches tmux's paste buffer
/// (`set-clipboard on`) whole; a saved file and an export are byte for
/// byte what the `sqlite3` CLI prints for the same filter, order and
/// columns (compared by `sha256sum`); a stopped save leaves no file.
final class CopyAndSaveTests: LiveTableTestCase {
    private var database: URL!
    /// 300 characters, wider than the 80-column screen, with a tab.
    private static let longNote = String(repeating: "0123456789", count: 15) + "\t" + String(repeating: "abcdefghij", count: 15).dropLast()

    override func setUpWithError() throws {
        try super.setUpWithError()
        database = directory.appendingPathComponent("shop.sqlite")
        try Shell.python("""
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            c.execute("CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, note TEXT, price REAL)")
            c.execute("INSERT INTO item VALUES (1, 'pen', ?, 1.5)", (sys.argv[2],))
            c.execute("WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) "
                      "INSERT INTO item SELECT i, 'item-' || i, 'note-' || (i % 13), (i * 37 % 1009) * 0.25 FROM n")
            c.commit()
            """, [database.path, Self.longNote])
    }

    private func launchViewer(width: Int = 80) throws -> TmuxSession {
        let session = try launch(["view", database.path, "item"], width: width, height: 24)
        try session.waitForScreen(containing: "row 1 of 1,000 · live")
        return session
    }

    /// The sqlite3 CLI's CSV of `sql` (`.mode csv`: RFC 4180's CRLF, which
    /// `-csv` alone does not write), written by a shell to a file.
    private func sqlite3CSV(_ sql: String, to name: String) throws -> URL {
        let file = directory.appendingPathComponent(name)
        let result = try Shell.run("/bin/sh", ["-c", "sqlite3 -batch -header -cmd '.mode csv' \"$1\" \"$2\" > \"$3\"", "sh",
                                               database.path, sql, file.path])
        XCTAssertEqual(result.status, 0, result.standardError)
        return file
    }

    private func listing() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    // MARK: - Copy

    func testYAndCapitalYReachTmuxsPasteBufferWhole() throws {
        let session = try launchViewer()
        XCTAssertNil(try session.pasteBuffer())
        try session.send("l", "l", "y")
        try session.waitForScreen(containing: "copied note: 300 bytes")
        try waitUntil("the value in tmux's buffer") { try session.pasteBuffer() == Self.longNote }
        // The escape comes between two screens: the screen is whole.
        XCTAssertTrue(try session.screen().contains("row 1 of 1,000 · live"))

        try session.send("Y")
        let row = "id\tname\tnote\tprice\n1\tpen\t" + Self.longNote.replacingOccurrences(of: "\t", with: "\\t") + "\t1.5\n"
        try session.waitForScreen(containing: "copied the row (4 columns): \(row.utf8.count) bytes")
        try waitUntil("the row in tmux's buffer") { try session.pasteBuffer() == row }

        // The row view: y copies the field of the column cursor.
        try session.send("Enter")
        try session.waitForScreen(containing: "Row 1")
        try session.send("Left", "y")
        try session.waitForScreen(containing: "copied name: 3 bytes")
        try waitUntil("the field in tmux's buffer") { try session.pasteBuffer() == "pen" }
    }

    /// On PostgreSQL: `y` copies the whole value, which the window holds
    /// cut (a long text), read again for it; `Y` the row.
    func testYOnPostgresReachesTmuxsPasteBufferWhole() throws {
        let database = try classDatabase()
        _ = try psqlAsWriter("""
            DROP TABLE IF EXISTS notes;
            CREATE TABLE notes(id integer PRIMARY KEY, note text);
            INSERT INTO notes VALUES (1, repeat('0123456789', 2000) || E'\\tend');
            """, database)
        let session = try launch(["view", try viewerURL(database), "notes"], width: 80, height: 24)
        try session.waitForScreen(containing: "  1  0123456789")
        XCTAssertNil(try session.pasteBuffer())
        try session.send("l", "y")
        try session.waitForScreen(containing: "copied note: 20 KB")
        let note = String(repeating: "0123456789", count: 2000) + "\tend"
        try waitUntil("the value in tmux's buffer") { try session.pasteBuffer() == note }
        try session.send("Y")
        let row = "id\tnote\n1\t" + note.replacingOccurrences(of: "\t", with: "\\t") + "\n"
        try session.waitForScreen(containing: "copied the row (2 columns)")
        try waitUntil("the row in tmux's buffer") { try session.pasteBuffer() == row }
    }

    func testAValueOverTheLimitIsRefusedNotCut() throws {
        _ = try sqlite(database, "UPDATE item SET note = printf('%.*c', 150000, 'x') WHERE id = 1")
        let session = try launchViewer()
        try session.send("l", "l", "y")
        try session.waitForScreen(containing: "not copied: note is 150 KB, over the clipboard's 100 KB")
        XCTAssertNil(try session.pasteBuffer())
    }

    // MARK: - Save

    /// Filtered, sorted by price descending, `note` hidden: every row of
    /// the sheet (143, where the screen shows 19), as sqlite3 prints them.
    func testSSavesTheSheetAsSqlite3PrintsIt() throws {
        let session = try launchViewer(width: 150)
        try session.send("f")
        try session.type("id % 7 = 3")
        try session.send("Enter")
        try session.waitForScreen(containing: "of 143")
        try session.send("l", "l", "l", "]", "h", "-")
        try session.waitForScreen(containing: "1 hidden")
        let saved = directory.appendingPathComponent("sheet.csv")
        try session.send("s")
        try session.waitForScreen(containing: "save to: item.csv")
        try session.send("C-u")
        try session.type(saved.path)
        try session.send("Enter")
        try session.waitForScreen(containing: "saved 143 rows to \(saved.path)")
        let expected = try sqlite3CSV(
            "SELECT id, name, price FROM item WHERE id % 7 = 3 ORDER BY price DESC, id DESC", to: "expected.csv")
        XCTAssertEqual(try Shell.sha256(saved), try Shell.sha256(expected))
        XCTAssertEqual(try listing().filter { $0.hasPrefix(".") }, [])
    }

    /// An existing file is replaced only after `y`.
    func testOverwriteAsksFirst() throws {
        let saved = directory.appendingPathComponent("item.json")
        try Data("old\n".utf8).write(to: saved)
        let session = try launchViewer(width: 120)
        for answer in ["n", "y"] {
            try session.send("s", "C-u")
            try session.type(saved.path)
            try session.send("Enter")
            try session.waitForScreen(containing: "\(saved.path) exists: y replaces it, any other key keeps it")
            try session.send(answer)
            if answer == "n" {
                try session.waitForScreen(containing: "not saved: \(saved.path) is kept")
                XCTAssertEqual(try contents(saved), Data("old\n".utf8))
            }
        }
        try session.waitForScreen(containing: "saved 1,000 rows to \(saved.path)")
        let rows = try Shell.python("""
            import json, sys
            print(len(json.load(open(sys.argv[1]))))
            """, [saved.path])
        XCTAssertEqual(rows, "1000\n")
    }

    /// Esc during a long save (100,000 rows more, and a filter that costs
    /// each row a 20 KB random blob): the save stops, and neither the file
    /// nor a part of it is left.
    func testEscStopsABigSaveAndLeavesNoFile() throws {
        _ = try sqlite(database, """
            WITH RECURSIVE n(i) AS (SELECT 1001 UNION ALL SELECT i + 1 FROM n WHERE i < 101000)
            INSERT INTO item SELECT i, 'item-' || i, NULL, i FROM n
            """)
        let session = try launch(["view", database.path, "item"], width: 120, height: 24)
        try session.waitForScreen(containing: "row 1 of 101,000 · live")
        try session.send("f")
        try session.type("length(randomblob(20000)) > 0")
        try session.send("Enter")
        try session.waitForScreen(containing: "row 1 of")
        let saved = directory.appendingPathComponent("big.csv")
        try session.send("s", "C-u")
        try session.type(saved.path)
        try session.send("Enter")
        try session.waitForScreen(containing: "rows · Esc stops")
        try session.send("Escape")
        try session.waitForScreen(containing: "save stopped: no file written")
        try waitUntil("no file and no part of one", timeout: 10) {
            try listing() == ["shop.sqlite"]
        }
        // Quitting during a save leaves no part of a file either.
        try session.send("s", "C-u")
        try session.type(saved.path)
        try session.send("Enter")
        try session.waitForScreen(containing: "rows · Esc stops")
        try session.send("q")
        try waitForExit(session, status: 0)
        XCTAssertEqual(try listing(), ["shop.sqlite"])
    }

    /// Bad input is one line in the status line; the viewer goes on.
    func testUnknownFormatAndMissingDirectoryAreOneLine() throws {
        let session = try launchViewer(width: 120)
        try session.send("s", "C-u")
        try session.type("item.xlsx")
        try session.send("Enter")
        try session.waitForScreen(containing: "name the file .csv, .tsv, .json, .jsonl or .md")
        try session.send("C-u")
        try session.type(directory.appendingPathComponent("missing/item.csv").path)
        try session.send("Enter")
        try session.waitForScreen(containing: "cannot save \(directory.path)/missing/item.csv: No such file or directory")
        try session.send("j")
        try session.waitForScreen(containing: "row 2 of 1,000")
    }

    /// On PostgreSQL: the saved TSV is what `COPY … TO STDOUT` prints for
    /// the same filter, order and columns, NULLs and tabs included.
    func testSSavesAPostgresSheetAsCopyPrintsIt() throws {
        let database = try classDatabase()
        _ = try psqlAsWriter("""
            DROP TABLE IF EXISTS goods;
            CREATE TABLE goods(id integer PRIMARY KEY, name text, price numeric, note text);
            INSERT INTO goods SELECT i, 'good ' || i, (i * 37 % 1009) * 0.25,
              CASE WHEN i % 5 = 0 THEN NULL ELSE E'tab\\there ' || i END FROM generate_series(1, 1000) i;
            """, database)
        let session = try launch(["view", try viewerURL(database), "goods"], width: 150, height: 24)
        try session.waitForScreen(containing: "row 1 of 1,000 · live")
        try session.send("f")
        try session.type("id % 7 = 3")
        try session.send("Enter")
        try session.waitForScreen(containing: "of 143")
        try session.send("l", "-", "]")
        try session.waitForScreen(containing: "by price ↓")
        let saved = directory.appendingPathComponent("goods.tsv")
        try session.send("s", "C-u")
        try session.type(saved.path)
        try session.send("Enter")
        try session.waitForScreen(containing: "saved 143 rows to \(saved.path)")
        let expected = try psqlAsWriter("""
            COPY (SELECT id, price, note FROM goods WHERE id % 7 = 3 ORDER BY price DESC, id DESC) TO STDOUT WITH (HEADER);
            """, database) + "\n"
        XCTAssertEqual(String(decoding: try contents(saved), as: UTF8.self), expected)
    }

    // MARK: - --format

    func testFormatTakesSortFilterAndColumnsAsTheScreenDoes() throws {
        let arguments = ["view", database.path, "item", "--sort", "price", "--desc", "--filter", "id % 7 = 3",
                         "--columns", "name,id"]
        let csv = try Shell.run(Self.binaryPath, arguments + ["--format", "csv"])
        XCTAssertEqual(csv.status, 0, csv.standardError)
        let exported = directory.appendingPathComponent("exported.csv")
        try Data(csv.standardOutput.utf8).write(to: exported)
        let expected = try sqlite3CSV(
            "SELECT name, id FROM item WHERE id % 7 = 3 ORDER BY price DESC, id DESC", to: "expected.csv")
        XCTAssertEqual(try Shell.sha256(exported), try Shell.sha256(expected))

        // jsonl: one object a line, the values sqlite3's -json prints.
        let jsonl = try Shell.run(Self.binaryPath, arguments + ["--format", "jsonl"])
        XCTAssertEqual(jsonl.status, 0, jsonl.standardError)
        let lines = directory.appendingPathComponent("exported.jsonl")
        try Data(jsonl.standardOutput.utf8).write(to: lines)
        let check = try Shell.python("""
            import json, subprocess, sys
            expected = json.loads(subprocess.check_output(["sqlite3", "-json", sys.argv[1],
                "SELECT name, id FROM item WHERE id % 7 = 3 ORDER BY price DESC, id DESC"]))
            got = [json.loads(line) for line in open(sys.argv[2])]
            print("ok" if got == expected and [list(o) for o in got] == [["name", "id"]] * len(got) else got[:3])
            """, [database.path, lines.path])
        XCTAssertEqual(check, "ok\n")

        let unknown = try Shell.run(Self.binaryPath, ["view", database.path, "item", "--columns", "name,nope", "--format", "md"])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.standardError.contains("nope"), unknown.standardError)
    }
}
