import Foundation
import PostgresServer
import XCTest

/// The server behind `livetable view postgres://…` goes away and comes
/// back, refuses the table for a while, or is a hot standby: the real
/// binary in tmux, the test server stopped and started again, SELECT
/// revoked and granted again, and a standby made with `pg_basebackup -R`
/// that replays the primary's commits.
final class PostgresServerFaultTests: LiveTableTestCase {
    func testServerStopShowsNotLiveThenLiveAgainWithTheSelectionKept() throws {
        let database = try makeTracks()
        let server = try postgres
        let session = try launch(["view", try viewerURL(database), "tracks"])
        try session.waitForScreen(containing: "row 1 of 50 · live", timeout: 10)
        try session.send("j", "j", "j", "j")
        try session.waitForScreen(containing: "row 5 of 50 · live")

        try server.stop()
        // Started again whatever the test finds: the other tests share it.
        var stopped = true
        defer { if stopped { try? server.start() } }
        let screen = try session.waitForScreen(containing: "not live", timeout: 10)
        try assertNoPassword(in: screen, "the screen")
        try server.start()
        stopped = false

        // Reconnected (with backoff), on the same row; then live as before.
        try session.waitForScreen(containing: "row 5 of 50 · live", timeout: 15)
        XCTAssertEqual(try selectedName(session, column: "title"), "track 005")
        try writerSession(database).run("UPDATE tracks SET plays = 77777 WHERE id = 6;")
        try session.waitForScreen(containing: "77777")
        try session.send("q")
        try waitForExit(session, status: 0)
    }

    /// SELECT revoked while the table shows: the status line says so, `not
    /// live`; granted again (a GRANT is a commit), the view is live again
    /// by itself, on the same row, without a key.
    func testRevokeShowsPermissionDeniedThenGrantMakesTheViewLiveWithTheSelectionKept() throws {
        let database = try makeTracks()
        let session = try launch(["view", try viewerURL(database), "tracks"])
        try session.waitForScreen(containing: "row 1 of 50 · live", timeout: 10)
        try session.send("j", "j", "j", "j")
        try session.waitForScreen(containing: "row 5 of 50 · live")

        // The server's log counts the refusals of the viewer's reads.
        let log = try postgres.directory.appendingPathComponent("server.log")
        let logStart = try Data(contentsOf: log).count
        func refusals() throws -> Int {
            String(decoding: try Data(contentsOf: log).dropFirst(logStart), as: UTF8.self)
                .components(separatedBy: "permission denied for table tracks").count - 1
        }
        let writer = try writerSession(database)
        try writer.run("REVOKE SELECT ON tracks FROM viewer;")
        // The count (on its own connection) may be refused a moment before
        // the window, while the title still says live: both are awaited.
        try session.waitForScreen("permission denied, not live") { screen in
            screen.contains("permission denied for table tracks") && screen.contains("not live")
        }
        // Refused twice: the window, then the window once the schema was
        // read again, where the view gave up before.
        try waitUntil("a second refusal") { try refusals() >= 2 }
        try writer.run("GRANT SELECT ON tracks TO viewer;")
        try session.waitForScreen(containing: "row 5 of 50 · live")
        XCTAssertEqual(try selectedName(session, column: "title"), "track 005")
        XCTAssertFalse(try session.screen().contains("permission denied"))
        try writer.run("UPDATE tracks SET plays = 77777 WHERE id = 6;")
        try session.waitForScreen(containing: "77777")
        try session.send("q")
        try waitForExit(session, status: 0)
    }

    func testStandbyShowsWhatThePrimaryCommits() throws {
        let database = try makeTracks()
        let standby = try postgres.makeStandby()
        addTeardownBlock { standby.remove() }
        try standby.waitUntilReplayed()
        let url = standby.url(role: standby.viewer, database: database, host: .tcp)
        let session = try launch(["view", url, "tracks"])
        try session.waitForScreen(containing: "row 1 of 50 · live", timeout: 10)
        // The note comes once the watch's own session has connected (a
        // SCRAM exchange over TCP), which may be after the first rows.
        let screen = try session.waitForScreen(containing: "on standby, polled every 0.05 s")
        XCTAssertTrue(screen.contains("\(database) on 127.0.0.1:\(standby.port)"), screen)

        // The primary's commit reaches the standby's screen.
        let writer = try writerSession(database)
        try writer.run("UPDATE tracks SET plays = 77777 WHERE id = 2;")
        try session.waitForScreen(containing: "77777", timeout: 5)
        try writer.run("INSERT INTO tracks VALUES (51, 'from the primary', NULL, 1);")
        try session.waitForScreen("51 rows, live", timeout: 5) { ViewerScreen.titleCount($0) == 51 }
        try assertNoPassword(in: try session.screen(), "the screen")
        try session.send("q")
        try waitForExit(session, status: 0)
    }
}
