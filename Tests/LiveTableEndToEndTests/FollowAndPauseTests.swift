import Foundation
import XCTest

/// Follow (`F`) and pause (Space) in `livetable view`, on the real binary
/// in tmux: a file made by Python's sqlite3 module, appended to by a
/// Python process and updated by the sqlite3 CLI while the viewer runs,
/// and left unchanged by the viewer (`sha256sum`).
final class FollowAndPauseTests: LiveTableTestCase {
    /// A file of `item`: 50 rows, "item 001"…, prices 10…500.
    private func makeFile() throws -> URL {
        try makeItemFile("log.sqlite", rows: 50)
    }

    /// Starts a Python process that appends `count` rows ("new 001"…), one
    /// commit each, `interval` seconds apart; the caller waits for it.
    private func startAppending(_ database: URL, count: Int, from first: Int = 1, interval: Double = 0.05) throws -> Process {
        guard let python = Shell.which("python3") else { throw HarnessError("python3 is not installed") }
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: python)
        writer.arguments = ["-c", #"""
            import sqlite3, sys, time
            c = sqlite3.connect(sys.argv[1], timeout=10)
            first, count, interval = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
            for i in range(first, first + count):
                c.execute("INSERT INTO item(name, price) VALUES (?, ?)", ("new %03d" % i, i))
                c.commit()
                time.sleep(interval)
            c.close()
            """#, database.path, "\(first)", "\(count)", "\(interval)"]
        try writer.run()
        return writer
    }

    func testFollowShowsTheRowsAnotherProcessAppends() throws {
        let database = try makeFile()
        let session = try launch(["view", database.path, "item"])
        try session.waitForScreen(containing: "row 1 of 50 · live")
        try session.send("F")
        // Waits for the whole screen: a capture may come while a screen is
        // being written, its title new and its rows not yet.
        try waitForFollowed(session, row: 50, name: "item 050")

        // Python appends 30 rows while the view follows: it ends on the
        // last one, at the bottom of a full list.
        let writer = try startAppending(database, count: 30)
        writer.waitUntilExit()
        XCTAssertEqual(writer.terminationStatus, 0)
        try waitForFollowed(session, row: 80, name: "new 030")
        // The whole row: the last one.
        try session.send("Enter")
        // Waited for whole: a capture can catch the overlay half drawn.
        try session.waitForScreen("the whole row 80, new 030") {
            $0.contains("┌ Row 80") && $0.contains("│ name   new 030")
        }
        try session.send("Enter")
        try session.waitForScreen("the row closed") { !$0.contains("┌ Row") }

        // Moving up stops following; the rows that arrive below are counted.
        try session.send("k")
        try session.waitForScreen(containing: "row 79 of 80 · live")
        let more = try startAppending(database, count: 3, from: 31)
        more.waitUntilExit()
        try session.waitForScreen(containing: "row 79 of 83 · live")
        try session.waitForScreen("3 new rows ↓ in the status line") { ViewerScreen.statusLine($0).contains("3 new rows ↓") }
        // F resumes: the new last row.
        try session.send("F")
        let screen = try waitForFollowed(session, row: 83, name: "new 033")
        XCTAssertFalse(ViewerScreen.statusLine(screen).contains("new rows"), screen)

        // Nothing is written by the viewer, whatever the keys.
        let sha256 = try Shell.sha256(database)
        try session.send("k", "End", "Space", "Space", "F", "F", "g")
        try session.waitForScreen(containing: "row 1 of 83 · live")
        try session.send("q")
        try waitForExit(session, status: 0)
        XCTAssertEqual(try Shell.sha256(database), sha256)
        XCTAssertFalse(FileManager.default.fileExists(atPath: database.path + "-wal"))
    }

    func testPauseFreezesTheScreenCountsChangesThenShowsTheLatest() throws {
        let database = try makeFile()
        let session = try launch(["view", database.path, "item"])
        try session.waitForScreen(containing: "row 1 of 50 · live")
        try session.send("Space")
        let frozen = try session.waitForScreen(containing: "row 1 of 50 · paused — 0 changes")

        // The sqlite3 CLI waits for the viewer's reads (a second at most).
        _ = try sqlite(database, "PRAGMA busy_timeout = 5000; UPDATE item SET price = 77777 WHERE id = 3")
        _ = try sqlite(database, "PRAGMA busy_timeout = 5000; DELETE FROM item WHERE id = 5")
        let paused = try session.waitForScreen(containing: "paused — 2 changes")
        // The rows did not change on screen.
        XCTAssertEqual(Array(paused.components(separatedBy: "\n").dropFirst()),
                       Array(frozen.components(separatedBy: "\n").dropFirst()))
        XCTAssertFalse(paused.contains("77777"))
        // Moving while paused moves in the frozen window.
        try session.send("j")
        try session.waitForScreen(containing: "row 2 of 50 · paused — 2 changes")

        // Space shows the latest: the new price highlighted, the deletion noted.
        try session.send("Space")
        var codes: Set<String>?
        try waitUntil("the new price on screen") {
            codes = try session.styledLines().codes(of: "77777")
            return codes != nil
        }
        XCTAssertTrue(codes?.contains("1") == true, "\(String(describing: codes))")
        let screen = try session.waitForScreen(containing: "row 2 of 49 · live")
        XCTAssertFalse(screen.contains("item 005"), screen)
        try session.waitForScreen("1 row deleted in the status line") { ViewerScreen.statusLine($0).contains("1 row deleted") }

        let sha256 = try Shell.sha256(database)
        try session.send("Space", "j", "Space", "q")
        try waitForExit(session, status: 0)
        XCTAssertEqual(try Shell.sha256(database), sha256)
    }
}
