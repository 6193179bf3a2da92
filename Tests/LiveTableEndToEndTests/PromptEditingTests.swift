import Foundation
import XCTest

/// The prompts' line editing in tmux: a paste whose line ends do not run
/// the prompt, the shell's word keys, and `--query` kept in the history
/// file that the query prompt reads.
final class PromptEditingTests: LiveTableTestCase {
    func testAPasteStaysOnThePromptAndShellKeysEditIt() throws {
        let database = try makeItemFile("paste.sqlite", rows: 100, price: "i")
        let session = try launch(["view", database.path, "item"])
        try session.waitForScreen(containing: "row 1 of 100 · live")
        try session.send("f")
        // Without bracketed paste, the line end would run "price" as the
        // filter. The filter's SQL keeps it, shown as ⏎.
        try session.paste("price\n< 55")
        try session.waitForScreen(containing: "filter: price⏎< 55")
        // Alt-B to "55", Ctrl-K cuts it, then the rest is typed.
        try session.send("M-b")
        try session.send("C-k")
        try session.type("52")
        try session.waitForScreen(containing: "filter: price⏎< 52")
        try session.send("Enter")
        try session.waitForScreen(containing: "where price < 52")
        try session.waitForScreen(containing: "row 1 of 51 · live")
    }

    func testAQueryGivenAtLaunchIsKeptInTheHistoryForTheOwnerAlone() throws {
        let database = try makeItemFile("history.sqlite", rows: 10, price: "i")
        let query = "SELECT name, price\nFROM item WHERE price > 5"
        let session = try launch(["view", database.path, "--query", query])
        try session.waitForScreen(containing: "item 006")
        let history = stateHome.appendingPathComponent("livetable/history")
        try waitUntil("the history is written") { FileManager.default.fileExists(atPath: history.path) }
        XCTAssertEqual(try String(contentsOf: history, encoding: .utf8), "SELECT name, price\\nFROM item WHERE price > 5\n")
        let mode = try FileManager.default.attributesOfItem(atPath: history.path)[.posixPermissions] as? NSNumber
        XCTAssertEqual(mode?.intValue, 0o600)
        // A query printed with --format is a script's, not the user's: not kept.
        _ = try Shell.run(Self.binaryPath, ["view", database.path, "--query", "SELECT 1", "--format", "csv"],
                          environment: ProcessInfo.processInfo.environment.merging(["XDG_STATE_HOME": stateHome.path]) { $1 })
        XCTAssertFalse(try String(contentsOf: history, encoding: .utf8).contains("SELECT 1"))
    }

    func testAQueryTypedAtColonOpensOnTopAndQGoesBack() throws {
        let database = try makeItemFile("sheets.sqlite", rows: 100, price: "i")
        let session = try launch(["view", database.path, "item"])
        try session.waitForScreen(containing: "row 1 of 100 · live")
        try session.send("j", "j", ":")
        try session.waitForScreen(containing: "SQL: SELECT")
        try session.send("C-u")
        try session.type("SELECT name, price * 2 AS double FROM item WHERE price > 95")
        try session.send("Enter")
        try session.waitForScreen(containing: "— item › SELECT name, price * 2")
        try session.waitForScreen(containing: "5 rows · live")
        // Live, as every sheet: another process's row shows up.
        try Shell.python("""
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1]); c.execute("INSERT INTO item(name, price) VALUES ('new', 500)"); c.commit()
            """, [database.path])
        try session.waitForScreen(containing: "6 · live")
        try session.waitForScreen(containing: "1000")
        let history = stateHome.appendingPathComponent("livetable/history")
        try waitUntil("the query is kept") {
            (try? String(contentsOf: history, encoding: .utf8))?.contains("price * 2 AS double") == true
        }
        // q: the table again, its selection kept; q again quits.
        try session.send("q")
        try session.waitForScreen(containing: "row 3 of 101 · live")
        try session.send("q")
        _ = try session.waitForScreen("the app quit") { !$0.contains("· live") }

        // The history survives the restart: ↑ at ':' finds the query.
        let again = try launch(["view", database.path, "item"])
        try again.waitForScreen(containing: "row 1 of 101 · live")
        try again.send(":")
        try again.send("C-u")
        try again.send("Up")
        try again.waitForScreen(containing: "SQL: SELECT name, price * 2 AS double FROM item WHERE price > 95")
    }
}
