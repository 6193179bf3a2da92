import Foundation
import XCTest

/// `--until` waits from a script for a row that another process's commit
/// makes match, and `--alert` rings the bell, marks the row and counts
/// the matches: the real binary in tmux, on a SQLite file that the sqlite3
/// CLI writes and on PostgreSQL, written by the writer role.
final class AlertsAndWaitingTests: LiveTableTestCase {
    /// Waits until livetable watches the file for commits: its inotify
    /// descriptor is open once the live windows are subscribed.
    private func waitForCommitWatch(_ session: TmuxSession) throws {
        try waitUntil("the commit watch", timeout: 10) {
            guard let pid = try? session.childProcessID(named: "livetable"),
                let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
            else { return false }
            return fds.contains { fd in
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)"))?
                    .contains("inotify") == true
            }
        }
    }

    private func output(_ name: String) throws -> String {
        String(decoding: try contents(directory.appendingPathComponent(name)), as: UTF8.self)
    }

    // MARK: - --until

    func testUntilExitsWithinASecondOfAnotherProcessesCommitAndPrintsTheRow() throws {
        let file = try makeItemFile("jobs.sqlite", rows: 20)
        let session = try launch(
            ["view", file.path, "item", "--until", "id = 7 AND price = 4242", "--timeout", "60"],
            redirections: "> \(Shell.quote(directory.appendingPathComponent("row.csv").path))")
        try waitForCommitWatch(session)
        XCTAssertFalse(try session.screen().contains("EXITED"), "no row matches yet")
        let committed = Date()
        _ = try sqlite(file, "UPDATE item SET price = 4242 WHERE id = 7")
        try waitForExit(session, status: 0)
        XCTAssertLessThan(Date().timeIntervalSince(committed), 1, "exits within a second of the commit")
        XCTAssertEqual(try output("row.csv"), "id,name,price\r\n7,item 007,4242\r\n")
    }

    func testUntilPrintsTheFirstMatchInTheFormatAsked() throws {
        let file = try makeItemFile("jobs.sqlite", rows: 20)
        let session = try launch(
            ["view", file.path, "item", "--until", "price > 150", "--sort", "price", "--desc", "--format", "json"],
            redirections: "> \(Shell.quote(directory.appendingPathComponent("row.json").path))")
        try waitForExit(session, status: 0)
        XCTAssertEqual(try output("row.json"), "[\n{\"id\": 20, \"name\": \"item 020\", \"price\": 200}\n]\n")
    }

    func testUntilExitsOneAfterItsTimeout() throws {
        let file = try makeItemFile("jobs.sqlite", rows: 20)
        let started = Date()
        let session = try launch(["view", file.path, "item", "--until", "id = 42", "--timeout", "0.5"])
        let screen = try waitForExit(session, status: 1)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.5)
        XCTAssertTrue(screen.contains("livetable: no row matched --until within 0.5 s"), screen)
    }

    func testABadConditionIsOneLineAndStatus64() throws {
        let file = try makeItemFile("jobs.sqlite", rows: 3)
        for option in ["--until", "--alert"] {
            let (status, message) = try runOneLineError(["view", file.path, "item", option, "no_such_column = 1"])
            XCTAssertEqual(status, 64, message)
            XCTAssertTrue(message.contains("\(option): ") && message.contains("no_such_column"), message)
        }
        // A condition that would write is refused as a filter is.
        let (status, message) = try runOneLineError(
            ["view", file.path, "item", "--until", "id IN (SELECT writefile('x', 'y'))"])
        XCTAssertEqual(status, 64, message)
    }

    func testUntilOnPostgreSQLExitsWithinASecondOfAnotherSessionsCommit() throws {
        let database = try makeTracks()
        let session = try launch(
            ["view", try viewerURL(database), "tracks", "--until", "id = 7 AND plays = 4242", "--timeout", "60"],
            redirections: "> \(Shell.quote(directory.appendingPathComponent("row.csv").path))")
        // Both of the viewer's sessions are connected: the reads' and the commit watch's.
        try waitUntil("the viewer's sessions", timeout: 10) {
            let count = try psqlAsWriter(
                "SELECT count(*) FROM pg_stat_activity WHERE usename = 'viewer' AND datname = '\(database)'", database)
            return (Int(count.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) >= 2
        }
        XCTAssertFalse(try session.screen().contains("EXITED"), "no row matches yet")
        let committed = Date()
        try psqlAsWriter("UPDATE tracks SET plays = 4242 WHERE id = 7", database)
        try waitForExit(session, status: 0)
        XCTAssertLessThan(Date().timeIntervalSince(committed), 1, "exits within a second of the commit")
        XCTAssertEqual(try output("row.csv"), "id,title,artist,plays\r\n7,track 007,,4242\r\n")

        let timeout = try launch(["view", try viewerURL(database), "tracks", "--until", "id = 999", "--timeout", "0.5"])
        try waitForExit(timeout, status: 1)
    }

    // MARK: - --alert

    func testAlertRingsMarksAndCountsAfterAnotherProcessesCommit() throws {
        let file = try makeItemFile("jobs.sqlite", rows: 20)
        let session = try launch(["view", file.path, "item", "--alert", "price > 180"])
        try session.waitForScreen(containing: "! 2 matching")
        XCTAssertFalse(try session.hasRungBell(), "the rows matching at first ring nothing")
        _ = try sqlite(file, "UPDATE item SET price = 5000 WHERE id = 3")
        let screen = try session.waitForScreen(containing: "! 3 matching")
        try waitUntil("the bell") { try session.hasRungBell() }
        let row = ViewerScreen.line(4, of: screen)
        XCTAssertTrue(row.hasPrefix("!") && row.contains("item 003"), screen)
        XCTAssertTrue(ViewerScreen.statusLine(screen).contains("alert: a row now matches price > 180"), screen)
        try session.send("q")
        try waitForExit(session, status: 0)
    }

    func testAlertOnPostgreSQLRingsAfterAnotherSessionsCommit() throws {
        let database = try makeTracks()
        let session = try launch(["view", try viewerURL(database), "tracks", "--alert", "plays > 480"])
        try session.waitForScreen(containing: "! 2 matching", timeout: 15)
        XCTAssertFalse(try session.hasRungBell())
        try psqlAsWriter("UPDATE tracks SET plays = 9999 WHERE id = 2", database)
        let screen = try session.waitForScreen(containing: "! 3 matching")
        try waitUntil("the bell") { try session.hasRungBell() }
        let row = ViewerScreen.line(3, of: screen)
        XCTAssertTrue(row.hasPrefix("!") && row.contains("track 002"), screen)
        try session.send("q")
        try waitForExit(session, status: 0)
    }

    func testBangAsksForTheConditionOnTheScreen() throws {
        let file = try makeItemFile("jobs.sqlite", rows: 20)
        let session = try launch(["view", file.path, "item"])
        try session.waitForScreen(containing: "row 1 of 20 · live")
        try session.send("!")
        try session.waitForScreen(containing: "alert when:")
        try session.type("name = 'done'")
        try session.send("Enter")
        try session.waitForScreen(containing: "! 0 matching")
        _ = try sqlite(file, "UPDATE item SET name = 'done' WHERE id = 2")
        try session.waitForScreen(containing: "! 1 matching")
        try waitUntil("the bell") { try session.hasRungBell() }
        try session.send("q")
        try waitForExit(session, status: 0)
    }
}
