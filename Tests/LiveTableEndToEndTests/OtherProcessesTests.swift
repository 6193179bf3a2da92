import Foundation
import XCTest

/// What other processes write shows at once, without a key press: writes
/// of the `sqlite3` command, and of a second livetable on the same file.
final class OtherProcessesTests: LiveTableTestCase {
    func testWritesOfSqlite3Show() throws {
        let (session, database) = try startApp()

        _ = try sqlite(database, "INSERT INTO player(name, score) VALUES ('Zed Outsider', 99999)")
        var screen = try waitForScreenMatchingDatabase(session, database)
        XCTAssertEqual(screen.rows.first, AppScreen.Row(name: "Zed Outsider", score: 99999), screen.text)
        XCTAssertEqual(screen.playerCount, "9")
        XCTAssertEqual(screen.maxScore, "99999")

        _ = try sqlite(database, "UPDATE player SET score = 0, name = 'Aaron Outsider' WHERE name = 'Zed Outsider'")
        screen = try waitForScreenMatchingDatabase(session, database)
        XCTAssertTrue(screen.rows.contains(AppScreen.Row(name: "Aaron Outsider", score: 0)), screen.text)
        XCTAssertFalse(screen.text.contains("Zed Outsider"), screen.text)

        _ = try sqlite(database, "DELETE FROM player")
        screen = try waitForScreenMatchingDatabase(session, database)
        XCTAssertEqual(screen.playerCount, "0")
        XCTAssertEqual(screen.rows, [])
    }

    func testTwoAppsOnOneDatabaseShowEachOthersWrites() throws {
        let (first, database) = try startApp()
        let second = try launch(["--database", database.path])
        XCTAssertEqual(try waitForScreenMatchingDatabase(second, database).playerCount, "8")

        try first.send("n")
        try waitForPlayerCount(database, 9)
        XCTAssertEqual(try waitForScreenMatchingDatabase(second, database).playerCount, "9")

        try second.send("d")
        try waitForPlayerCount(database, 8)
        XCTAssertEqual(try waitForScreenMatchingDatabase(first, database).playerCount, "8")
        XCTAssertEqual(try waitForScreenMatchingDatabase(second, database).playerCount, "8")

        // Either app quits without removing what the other still uses.
        try first.send("q")
        try waitForExit(first, status: 0)
        try second.send("n")
        try waitForPlayerCount(database, 9)
        XCTAssertEqual(try waitForScreenMatchingDatabase(second, database).playerCount, "9")
        try second.send("q")
        try waitForExit(second, status: 0)
        XCTAssertEqual(try sqlite(database, "PRAGMA integrity_check"), "ok")
    }

    func testFileReplacedByRenameIsSaidInTheStatusLine() throws {
        let (session, database) = try startApp()
        // An "atomic save": a new database written aside, then renamed over
        // the file the app reads.
        let replacement = directory.appendingPathComponent("replacement.sqlite")
        _ = try sqlite(replacement, "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT, score INTEGER)")
        XCTAssertEqual(rename(replacement.path, database.path), 0)
        try session.waitForScreen(containing: "Observation failed: the database file")
        try session.send("q")
        try waitForExit(session, status: 0)
    }
}
