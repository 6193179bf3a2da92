import Foundation
import XCTest

/// Keys that change the database: insert, edit, delete, delete all. Each
/// change comes back through the observation, so the screen must end up
/// showing what the database holds.
final class EditingTests: LiveTableTestCase {
    func testInsertKeyAddsARandomPlayer() throws {
        let (session, database) = try startApp()
        try session.send("n")
        try waitForPlayerCount(database, 9)
        XCTAssertEqual(try waitForScreenMatchingDatabase(session, database).playerCount, "9")
        try session.send("+")
        try waitForPlayerCount(database, 10)
        XCTAssertEqual(try waitForScreenMatchingDatabase(session, database).playerCount, "10")
    }

    func testEditFormShowsInvalidScoreThenSaves() throws {
        let (session, database) = try startApp()
        let id = try sqlite(database, "SELECT id FROM player ORDER BY score DESC, name, id LIMIT 1")
        let before = try sqlite(database, "SELECT name || '|' || score FROM player WHERE id = \(id)")

        try session.send("e")
        try session.waitForScreen(containing: "Edit player")
        try session.send("C-u")
        try session.type("Zoë Zed")
        try session.send("Tab", "C-u")
        try session.type("12x")
        try session.send("Enter")
        try session.waitForScreen(containing: "Score must be an integer")
        XCTAssertEqual(try sqlite(database, "SELECT name || '|' || score FROM player WHERE id = \(id)"), before, "nothing saved")

        try session.send("BSpace", "Enter")
        try session.waitForScreen("the form to close") { !$0.contains("Edit player") }
        try waitUntil("the player to be saved") {
            try sqlite(database, "SELECT name || '|' || score FROM player WHERE id = \(id)") == "Zoë Zed|12"
        }
        let screen = try waitForScreenMatchingDatabase(session, database)
        XCTAssertTrue(screen.rows.contains(AppScreen.Row(name: "Zoë Zed", score: 12)), screen.text)
    }

    /// The form scrolls a long name in linear time: a name of 20,000
    /// characters once took 37 s to open, during which not even SIGTERM
    /// was handled. Such a name, written by another process, opens as it
    /// is; typing stops at the form's limit, and the form refuses to save
    /// a name over it.
    func testVeryLongNameOpensAtOnceAndIsCappedInTheForm() throws {
        let (session, database) = try startApp()
        _ = try sqlite(database, "INSERT INTO player(name, score) VALUES (printf('%.*c', 20000, 'x'), 5000)")
        try session.waitForScreen(containing: "5000")
        try session.send("Home")
        try session.waitForScreen(containing: "row 1 of 9")
        try session.send("e")
        try session.waitForScreen(containing: "Edit player")
        try session.send("Home")
        try session.type("A")
        try session.waitForScreen(containing: "Name is limited to 1,000 characters")
        try session.send("Enter")
        try session.waitForScreen(containing: "Name is longer than 1,000 characters")
        try session.send("C-u")
        try session.type("Short")
        try session.send("Enter")
        try waitUntil("the shortened name to be saved") {
            try sqlite(database, "SELECT name FROM player WHERE score = 5000") == "Short"
        }

        // Typed or pasted, a name stops at the limit.
        try session.send("e", "C-u")
        try session.type(String(repeating: "y", count: 1_200))
        // 1,200 keys through tmux: seconds on a loaded machine.
        try session.waitForScreen(containing: "Name is limited to 1,000 characters", timeout: 20)
        try session.send("Enter")
        try waitUntil("the name of 1,000 characters to be saved") {
            try sqlite(database, "SELECT length(name) FROM player WHERE score = 5000") == "1000"
        }
        XCTAssertEqual(kill(try session.childProcessID(named: "livetable"), SIGTERM), 0)
        try waitForExit(session, status: 128 + SIGTERM)
    }

    /// While another process holds the database locked, the save waits
    /// (the form says "saving…", the status line "writing…"), then fails
    /// after the busy timeout: the form stays open with the edit and the
    /// error, and Enter tries again.
    func testFailedSaveKeepsTheFormOpenWithTheError() throws {
        let (session, database) = try startApp()
        let id = try sqlite(database, "SELECT id FROM player ORDER BY score DESC, name, id LIMIT 1")
        let before = try sqlite(database, "SELECT name || '|' || score FROM player WHERE id = \(id)")
        try session.send("e", "C-u")
        try session.type("Locked Out")
        let lock = try SQLiteLock(database)
        var isLocked = true
        defer { if isLocked { lock.release() } }
        try session.send("Enter")
        // The form's "saving…" and the status line's "writing…" are drawn
        // by two updates: both show while the lock is held.
        try session.waitForScreen("saving… in the form, writing… in the status line") {
            $0.contains("saving…") && $0.contains("writing…")
        }
        let failed = try session.waitForScreen("the failed save, in the form", timeout: 15) {
            $0.contains("Save failed: ") && $0.contains("is locked") && $0.contains("Edit player")
        }
        XCTAssertTrue(failed.contains("Edit player"), failed)
        XCTAssertTrue(failed.contains("Locked Out"), failed)
        XCTAssertTrue(failed.contains("Save failed: SQLite error 5: database"), failed)
        XCTAssertTrue(failed.contains("is locked"), failed)
        lock.release()
        isLocked = false
        XCTAssertEqual(try sqlite(database, "SELECT name || '|' || score FROM player WHERE id = \(id)"), before)

        try session.send("Enter")
        try session.waitForScreen("the form to close") { !$0.contains("Edit player") && !$0.contains("writing…") }
        XCTAssertEqual(try sqlite(database, "SELECT name FROM player WHERE id = \(id)"), "Locked Out")
    }

    /// A stress test whose refreshes fail says why, not only how many.
    func testStressTestFailuresSayWhy() throws {
        let (session, database) = try startApp()
        _ = try sqlite(database, """
            CREATE TRIGGER rejectScores BEFORE UPDATE OF score ON player BEGIN
                SELECT RAISE(ABORT, 'scores are frozen');
            END
            """)
        try session.send("s")
        let screen = try session.waitForScreen(containing: "0 ok, 50 failed", timeout: 15)
        XCTAssertTrue(screen.contains("Stress test refresh failed: SQLite error 19: scores are"), screen)
    }

    func testEscapeCancelsTheEditForm() throws {
        let (session, database) = try startApp()
        let id = try sqlite(database, "SELECT id FROM player ORDER BY score DESC, name, id LIMIT 1")
        let before = try sqlite(database, "SELECT name || '|' || score FROM player WHERE id = \(id)")
        try session.send("Enter")
        try session.waitForScreen(containing: "Edit player")
        try session.type("xyz")
        try session.send("Escape")
        try session.waitForScreen("the form to close") { !$0.contains("Edit player") }
        // The app's writes run one after the other: once the next one is
        // in, a save would have been too.
        try session.send("n")
        try waitForPlayerCount(database, 9)
        XCTAssertEqual(try sqlite(database, "SELECT name || '|' || score FROM player WHERE id = \(id)"), before)
    }

    func testDeleteKeyRemovesTheSelectedPlayer() throws {
        let (session, database) = try startApp()
        let id = try sqlite(database, "SELECT id FROM player ORDER BY score DESC, name, id LIMIT 1")
        try session.send("d")
        try waitForPlayerCount(database, 7)
        XCTAssertEqual(try waitForScreenMatchingDatabase(session, database).playerCount, "7")
        XCTAssertEqual(try sqlite(database, "SELECT COUNT(*) FROM player WHERE id = \(id)"), "0")
        // The next player is selected once its window is observed.
        try session.waitForScreen(containing: "row 1 of 7")
        try session.send("DC")
        try waitForPlayerCount(database, 6)
        XCTAssertEqual(try waitForScreenMatchingDatabase(session, database).playerCount, "6")
    }

    func testDeleteAllAsksForConfirmation() throws {
        let (session, database) = try startApp()
        try session.send("D")
        try session.waitForScreen(containing: "Delete all 8 players?")
        try session.send("n")
        try session.waitForScreen("the prompt to close") { !$0.contains("Delete all 8 players?") }
        // The app's writes run one after the other: once the next one is
        // in, a deletion would have been too.
        try session.send("n")
        try waitForPlayerCount(database, 9)
        XCTAssertEqual(try sqlite(database, "SELECT COUNT(*) FROM player"), "9")

        try session.send("D")
        try session.waitForScreen(containing: "Delete all 9 players?")
        try session.send("y")
        try waitForPlayerCount(database, 0)
        let screen = try waitForScreenMatchingDatabase(session, database)
        XCTAssertTrue(screen.showsNoPlayer, screen.text)
        XCTAssertEqual(screen.playerCount, "0")
        XCTAssertEqual(screen.maxScore, "-")
        XCTAssertEqual(try sqlite(database, "SELECT COUNT(*) FROM player"), "0")
    }
}
