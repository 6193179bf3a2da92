import Foundation
import XCTest

/// `livetable view`, the live screen, in tmux: the real binary on files
/// made by Python's sqlite3 module, written by the sqlite3 CLI and Python
/// while it runs, and checked with `sha256sum` to be left unchanged.
final class ViewerTests: LiveTableTestCase {
    // MARK: - Files

    /// A file of `item` (50 rows, "item 001"…, an index on name) and an
    /// empty `other`, in `mode` (a journal mode: "delete" or "wal").
    private func makeFile(_ name: String = "app.sqlite", mode: String = "delete") throws -> URL {
        let file = directory.appendingPathComponent(name)
        try Shell.python(#"""
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            c.execute("PRAGMA journal_mode=" + sys.argv[2])
            c.execute("CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price INTEGER, note)")
            c.execute("CREATE INDEX item_name ON item(name)")
            c.executemany("INSERT INTO item(name, price, note) VALUES (?, ?, ?)",
                          [("item %03d" % i, i * 10, None if i % 2 else "\x1b[2J") for i in range(1, 51)])
            c.execute("CREATE TABLE other(x)")
            c.commit()
            c.close()
            """#, [file.path, mode])
        return file
    }



    private func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path)
    }

    // MARK: - Live

    func testAnotherProcessCommitShowsAndSelectionStaysOnItsRowRollbackJournal() throws {
        try assertLiveUpdates(mode: "delete")
    }

    func testAnotherProcessCommitShowsAndSelectionStaysOnItsRowWAL() throws {
        try assertLiveUpdates(mode: "wal")
    }

    private func assertLiveUpdates(mode: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let database = try makeFile(mode: mode)
        let session = try launch(["view", database.path, "item", "--sort", "name"])
        try session.waitForScreen(containing: "row 1 of 50 · live", file: file, line: line)
        // The escape sequence that another process stored is shown, not run.
        try session.waitForScreen(containing: #"item 002     20  \u{1b}[2J"#, file: file, line: line)
        try session.send("j", "j", "j")
        try session.waitForScreen(containing: "row 4 of 50", file: file, line: line)
        XCTAssertEqual(try selectedName(session), "item 004", file: file, line: line)

        // Rows that sort before the selection: it stays on its row, and
        // its place on the screen (the new rows are above, out of sight).
        let rowsBefore = try session.screen().components(separatedBy: "\n")
        _ = try sqlite(database, "INSERT INTO item(name, price) VALUES ('a new 1', 1), ('a new 2', 2), ('a new 3', 3)")
        try session.waitForScreen(containing: "row 7 of 53 · live", file: file, line: line)
        XCTAssertEqual(try selectedName(session), "item 004", file: file, line: line)
        let rowsAfter = try session.screen().components(separatedBy: "\n")
        // All but the title: the same rows at the same places.
        XCTAssertEqual(rowsAfter.dropFirst(), rowsBefore.dropFirst(), "the rows moved on the screen", file: file, line: line)

        // Python renames the selected row: the selection follows it.
        try Shell.python(#"""
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            c.execute("UPDATE item SET name = 'zz moved' WHERE name = 'item 004'")
            c.commit()
            """#, [database.path])
        try session.waitForScreen(containing: "row 53 of 53 · live", file: file, line: line)
        XCTAssertEqual(try selectedName(session), "zz moved", file: file, line: line)

        // Nothing is written by the viewer, whatever the keys.
        let sha256 = try Shell.sha256(database)
        try session.send("g")
        try session.waitForScreen(containing: "a new 2", file: file, line: line)
        try session.send("G", "PageUp", "t")
        try session.waitForScreen(containing: "tables and views", file: file, line: line)
        try session.send("q")
        try waitForExit(session, status: 0, file: file, line: line)
        XCTAssertEqual(try Shell.sha256(database), sha256, file: file, line: line)
        if mode == "delete" {
            XCTAssertFalse(exists(database.path + "-wal"), "a -wal file was left", file: file, line: line)
            XCTAssertFalse(exists(database.path + "-journal"), file: file, line: line)
        }
        XCTAssertEqual(try sqlite(database, "PRAGMA journal_mode"), mode, file: file, line: line)
    }

    func testViewingLeavesTheFileUnchanged() throws {
        let database = try makeFile()
        let sha256 = try Shell.sha256(database)
        let session = try launch(["view", database.path])
        try session.waitForScreen(containing: "2 tables")
        // The picker's row of the table, with its count (a capture can catch
        // the list half drawn: waited for).
        try session.waitForScreen("item, a table of 50 rows") { screen in
            screen.components(separatedBy: "\n").contains { $0.split(separator: " ") == ["item", "table", "50"] }
        }
        try session.send("Enter")
        try session.waitForScreen(containing: "row 1 of 50 · live")
        try session.send("G", "Enter")
        try session.waitForScreen(containing: "┌ Row 50")
        try session.send("Escape")
        try session.waitForScreen("the row closed") { !$0.contains("┌ Row") }
        try session.send("?")
        try session.waitForScreen(containing: "Press any key to close")
        try session.send("x", "C-c")
        try waitForExit(session, status: 0)
        XCTAssertEqual(try Shell.sha256(database), sha256)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("app") },
                       ["app.sqlite"])
    }

    func testDroppedTableGoesBackToThePicker() throws {
        let database = try makeFile()
        let session = try launch(["view", database.path, "item"])
        try session.waitForScreen(containing: "row 1 of 50 · live")
        _ = try sqlite(database, "DROP TABLE item")
        try session.waitForScreen(containing: #"no table or view "item": the file has "other""#)
        try session.waitForScreen(containing: "1 table")
        try session.send("q")
        try waitForExit(session, status: 0)
    }

    func testLeavingAViewWhoseReadNeverEndsOpensTheNextTable() throws {
        let database = try makeFile()
        _ = try sqlite(database, """
            CREATE VIEW forever AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
            SELECT x FROM c WHERE x < 0
            """)
        let session = try launch(["view", database.path, "forever"])
        try session.waitForScreen(containing: "loading")
        // Its window and its count never end: `t` interrupts them.
        try session.send("t")
        try session.waitForScreen("the picker, the view's count out of time") { screen in
            let lines = screen.components(separatedBy: "\n")
            return lines.contains { $0.contains(" item ") && $0.contains(" 50") }
                && lines.contains { $0.contains(" forever ") && $0.trimmingCharacters(in: .whitespaces).hasSuffix("?") }
        }
        try session.send("j", "Enter")
        try session.waitForScreen(containing: "row 1 of 50 · live")
        try session.send("q")
        try waitForExit(session, status: 0)
    }

    func testAddedColumnShows() throws {
        let database = try makeFile()
        let session = try launch(["view", database.path, "item"])
        try session.waitForScreen(containing: "row 1 of 50 · live")
        _ = try sqlite(database, "ALTER TABLE item ADD COLUMN color TEXT DEFAULT 'teal'")
        try session.waitForScreen(containing: "item changed: columns read again")
        try session.waitForScreen(containing: "teal")
    }

    func testAnotherProcessUpdateIsHighlightedThenPlain() throws {
        let database = try makeFile()
        let session = try launch(["view", database.path, "item"])
        try session.waitForScreen(containing: "row 1 of 50 · live")
        _ = try sqlite(database, "UPDATE item SET price = 77777 WHERE id = 3")
        var codes: (price: Set<String>, name: Set<String>?)?
        try waitUntil("the new price on screen") {
            let lines = try session.styledLines()
            guard let price = lines.codes(of: "77777") else { return false }
            codes = (price, lines.codes(of: "item 003"))
            return true
        }
        let first = try XCTUnwrap(codes)
        // Bold, reversed (or underlined, if the capture came late): the
        // changed cell only, not the name of its row.
        XCTAssertTrue(first.price.contains("1"), "\(first.price)")
        XCTAssertTrue(first.price.contains("7") || first.price.contains("4"), "\(first.price)")
        XCTAssertEqual(first.name, [], "\(String(describing: first.name))")
        try waitUntil("the highlight faded", timeout: 10) {
            try session.styledLines().codes(of: "77777") == []
        }
    }

    func testQueryIsLive() throws {
        let database = try makeFile()
        let session = try launch(["view", database.path, "--query", "SELECT name, price * 2 AS double FROM item WHERE price > 480"])
        try session.waitForScreen(containing: "row 1 of 2 · live")
        _ = try sqlite(database, "INSERT INTO item(name, price) VALUES ('pricey', 999)")
        try session.waitForScreen(containing: "1998")
        try session.waitForScreen(containing: "row 1 of 3 · live")
    }

    /// A query opens in the order of its own ORDER BY, which the title
    /// states as a sort; `[` sorts, the same key again goes back to the
    /// query's order. An ORDER BY that the view can not keep is said once
    /// in the status line, with the order shown instead.
    func testQueryOpensInItsOwnOrderOrSaysWhyNot() throws {
        let database = try makeFile()
        let sql = "SELECT name, price FROM item WHERE price > 450 ORDER BY price DESC"
        let session = try launch(["view", database.path, "--query", sql], width: 160)
        try session.waitForScreen(containing: "ORDER BY price DESC · by price ↓")
        try session.waitForScreen(containing: "row 1 of 5 · live")
        XCTAssertEqual(try selectedName(session), "item 050")
        // The column cursor is on price, the query's sort column.
        try session.send("[")
        try session.waitForScreen(containing: "· by price ↑")
        XCTAssertEqual(try selectedName(session), "item 046")
        try session.send("[")
        try session.waitForScreen(containing: "· by price ↓")
        XCTAssertEqual(try selectedName(session), "item 050")
        session.kill()

        let unkept = try launch(
            ["view", database.path, "--query", "SELECT name, price FROM item WHERE price > 450 ORDER BY -price"], width: 160)
        try unkept.waitForScreen(containing: "the query's ORDER BY -price is not kept (an expression): shown by all columns ↑")
        XCTAssertEqual(try selectedName(unkept), "item 046")
        XCTAssertFalse(try unkept.screen().contains(" · by "))
    }

    func testTinyTerminalSaysSoThenShowsTheTable() throws {
        let database = try makeFile()
        let session = try launch(["view", database.path, "item"], width: 12, height: 3)
        try session.waitForScreen(containing: "need 20x5")
        try session.resize(width: 60, height: 10)
        try session.waitForScreen(containing: "item 001")
        try session.resize(width: 1, height: 1)
        try session.resize(width: 60, height: 10)
        try session.waitForScreen(containing: "item 001")
        try session.send("q")
        // Not waitForExit: the shell's lines overwrite what the app left.
        let screen = try session.waitForScreen(containing: "TTY SANE")
        XCTAssertTrue(screen.contains("EXITED 0"), screen)
    }

    // MARK: - Bad input

    func testBadInputIsOneLineBeforeTheScreen() throws {
        let database = try makeFile()
        let text = directory.appendingPathComponent("notes.txt")
        try Data(String(repeating: "not a database\n", count: 20).utf8).write(to: text)
        let sha256 = try Shell.sha256(database)
        let cases: [([String], String)] = [
            ([database.path, "itme"], #"no table or view "itme": the file has "item", "other""#),
            ([database.path, "item", "--sort", "colour"],
             #"no column "colour" in "item": its columns are "id", "name", "price", "note""#),
            ([text.path, "item"], "cannot open \"\(text.path)\": not a SQLite database (or encrypted)"),
            ([database.path, "--query", "DELETE FROM item"], "the query is not read-only: livetable view only reads"),
            // Refused before SQLite compiles them, as on PostgreSQL.
            ([database.path, "--query", "SELECT name FROM item WHERE (price > 1"], "invalid query: unbalanced parentheses"),
            ([database.path, "--query", "SELECT name FROM item /* open"], "invalid query: unterminated comment"),
        ]
        for (arguments, message) in cases {
            let session = try launch(["view"] + arguments, width: 250)
            let screen = try waitForExit(session, status: 1)
            XCTAssertTrue(screen.hasPrefix("livetable: error: \(message)\nEXITED 1"), screen)
            session.kill()
        }
        XCTAssertEqual(try Shell.sha256(database), sha256)
    }

    func testLockedBeyondTheBusyTimeoutIsOneLine() throws {
        let database = try makeFile()
        // Python holds an exclusive lock for 8 seconds (killed at the end).
        guard let python = Shell.which("python3") else { throw HarnessError("python3 is not installed") }
        let ready = directory.appendingPathComponent("locked")
        let locker = Process()
        locker.executableURL = URL(fileURLWithPath: python)
        locker.arguments = ["-c", #"""
            import sqlite3, sys, time
            c = sqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute("BEGIN EXCLUSIVE")
            c.execute("UPDATE item SET price = price + 1")
            open(sys.argv[2], "w").close()
            time.sleep(8)
            c.execute("ROLLBACK")
            """#, database.path, ready.path]
        try locker.run()
        defer { locker.terminate(); locker.waitUntilExit() }
        try waitUntil("the lock") { exists(ready.path) }
        let session = try launch(["view", database.path, "item"], width: 250)
        let screen = try waitForExit(session, status: 1)
        XCTAssertTrue(screen.hasPrefix(
            "livetable: error: cannot read \"\(database.path)\": the database is locked by another process\nEXITED 1"),
            screen)
    }
    // MARK: - Suspend

    func testControlZSuspendsAndFgShowsWhatChangedMeanwhile() throws {
        let database = try makeFile()
        let session = try TmuxSession(
            command: "exec bash --norc --noprofile -i",
            environment: ["PS1": "$ ", "HOME": directory.path])
        defer { session.kill() }
        try session.waitForScreen(containing: "$")
        try session.type(([Self.binaryPath, "view", database.path, "item"]).map(Shell.quote).joined(separator: " "))
        try session.send("Enter")
        try session.waitForScreen(containing: "row 1 of 50 · live")
        try session.send("C-z")
        try session.waitForScreen(containing: "Stopped")
        _ = try sqlite(database, "UPDATE item SET name = 'renamed while stopped' WHERE id = 1")
        try session.type("fg")
        try session.send("Enter")
        try session.waitForScreen(containing: "renamed while stopped")
        try session.send("j")
        try session.waitForScreen(containing: "row 2 of 50 · live")
        try session.send("q")
        try session.waitForScreen("the shell prompt") { !$0.contains("row 2 of 50") }
    }
}
