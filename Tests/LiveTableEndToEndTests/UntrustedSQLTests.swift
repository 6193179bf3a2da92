import Foundation
import XCTest

/// SQL that would crash or change the process, typed by a user: the real
/// binary refuses it in one line and leaves the file as it was.
final class UntrustedSQLTests: LiveTableTestCase {
    private var database: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        database = directory.appendingPathComponent("tok.sqlite")
        _ = try sqlite(database, """
            CREATE VIRTUAL TABLE ft USING fts3(body);
            INSERT INTO ft VALUES ('hello world');
            CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT);
            INSERT INTO item(name) VALUES ('a'), ('b');
            """)
    }

    func testTokenizerPointerIsRefusedNotACrash() throws {
        // The first column replaces the "simple" tokenizer with the address
        // 0x4141414141414141: the next statement that opens `ft` (a filter
        // typed after it) jumped there, SIGSEGV (exit 139), while SQLite's
        // "read-only" was the only check. Refused before it runs.
        let sha256 = try Shell.sha256(database)
        let result = try Shell.run(Self.binaryPath, [
            "view", database.path, "--format", "csv", "--query",
            "SELECT (SELECT hex(fts3_tokenizer('simple', x'4141414141414141'))) AS p, "
                + "(SELECT count(*) FROM ft WHERE ft MATCH 'hello') AS n",
        ])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.standardOutput, "")
        XCTAssertEqual(
            result.standardError,
            "livetable: error: invalid query: the function fts3_tokenizer() is not allowed: livetable view only reads\n")
        XCTAssertEqual(try Shell.sha256(database), sha256)
    }

    func testFilterThatReplacesTheTokenizerIsRefusedAndSearchStillWorks() throws {
        // The steps that crashed the live view: a filter that replaces the
        // "simple" tokenizer, then one that searches the full-text table.
        let sha256 = try Shell.sha256(database)
        let session = try launch(["view", database.path, "item"])
        try session.waitForScreen(containing: "row 1 of 2 · live")
        try session.send("f")
        try session.type("hex(fts3_tokenizer('simple', x'4141414141414141')) IS NOT NULL")
        try session.send("Enter")
        try session.waitForScreen(containing: "the function fts3_tokenizer() is not allowed")
        // The rejected filter stays on the prompt: Ctrl-U clears it.
        try session.send("C-u")
        try session.type("(SELECT count(*) FROM ft WHERE ft MATCH 'hello') >= 0")
        try session.send("Enter")
        try session.waitForScreen(containing: "where (SELECT count(*) FROM ft WHERE ft MATCH")
        try session.send("q")
        _ = try waitForExit(session, status: 0)
        XCTAssertEqual(try Shell.sha256(database), sha256)
    }

    func testParameterIsRefusedUpFront() throws {
        let result = try Shell.run(Self.binaryPath, [
            "view", database.path, "--format", "csv", "--query", "SELECT * FROM item WHERE id = :id",
        ])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(
            result.standardError,
            "livetable: error: invalid query: parameters (?, :name, @name, $name) have no value here: "
                + "write the values in the SQL\n")
    }

    func testSearchThatTheCrashNeededStillWorks() throws {
        let result = try Shell.run(Self.binaryPath, [
            "view", database.path, "--format", "csv", "--query", "SELECT body FROM ft WHERE ft MATCH 'hello'",
        ])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertEqual(result.standardOutput, "body\r\nhello world\r\n")
    }
}
