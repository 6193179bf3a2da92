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

    /// The role's password changed and its sessions terminated, then set
    /// back: the view is live again by itself, and the status line no
    /// longer says why it was not, without a key; even once "password
    /// authentication failed" was shown (a key read it again meanwhile).
    func testPasswordChangedThenSetBackMakesTheViewLiveAgainByItself() throws {
        let database = try makeTracks()
        let server = try postgres
        let role = "changing_pw"
        try server.psql("DROP ROLE IF EXISTS \(role); CREATE ROLE \(role) LOGIN PASSWORD 'first' IN ROLE viewer;")
        let url = "postgres://\(role):first@127.0.0.1:\(server.port)/\(database)"
        let session = try launch(["view", url, "tracks"])
        try session.waitForScreen(containing: "row 1 of 50 · live", timeout: 10)
        let terminate = """
            SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE usename = '\(role)';
            """
        func statusIsClear(_ screen: String) -> Bool {
            let status = ViewerScreen.statusLine(screen)
            return screen.contains("row 1 of 50 · live") && !status.contains("terminating")
                && !status.contains("authentication")
        }

        // The server's log counts the refused attempts to connect again.
        let log = server.directory.appendingPathComponent("server.log")
        func refusals() throws -> Int {
            String(decoding: try Data(contentsOf: log), as: UTF8.self)
                .components(separatedBy: "password authentication failed for user \"\(role)\"").count - 1
        }

        var refused = try refusals()
        try server.psql("ALTER ROLE \(role) PASSWORD 'other';" + terminate)
        try session.waitForScreen(containing: "not live", timeout: 10)
        // Set back once the viewer was refused a few times.
        try waitUntil("three refusals", timeout: 15) { try refusals() >= refused + 3 }
        try server.psql("ALTER ROLE \(role) PASSWORD 'first';")
        try session.waitForScreen("live, the reason gone", timeout: 15, until: statusIsClear)

        try server.psql("ALTER ROLE \(role) PASSWORD 'other';" + terminate)
        try session.waitForScreen(containing: "not live", timeout: 10)
        // A key reads the source again, which the server refuses.
        try session.send("j")
        try session.waitForScreen(containing: "password authentication failed", timeout: 10)
        refused = try refusals()
        try waitUntil("three more refusals", timeout: 15) { try refusals() >= refused + 3 }
        try server.psql("ALTER ROLE \(role) PASSWORD 'first';")
        try session.waitForScreen("live again, the reason gone", timeout: 15) { screen in
            screen.contains(" of 50 · live") && !ViewerScreen.statusLine(screen).contains("authentication")
        }
        try writerSession(database).run("UPDATE tracks SET plays = 77777 WHERE id = 3;")
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
