import Foundation
import LiveTableTestSupport
import PostgresServer
import XCTest

/// A server's life: start, restart with its data, a hot standby that
/// replays the primary, stop and removal that leave no process behind.
final class PostgresServerLifecycleTests: XCTestCase {
    func testRestartKeepsDataAndRemoveEndsProcesses() throws {
        let start = Date()
        let server = try PostgresServer()
        print("PostgresServer started in \(Int(Date().timeIntervalSince(start) * 1000)) ms")
        try server.createDatabase("lifecycle")
        try server.psql("CREATE TABLE item(id int); INSERT INTO item VALUES (1);", database: "lifecycle", as: server.writer)

        let firstProcess = try XCTUnwrap(server.processID)
        try server.restart(mode: .fast)
        try server.psql("INSERT INTO item VALUES (2);", database: "lifecycle", as: server.writer)
        try server.restart(mode: .immediate)
        XCTAssertEqual(try server.psql("SELECT count(*) FROM item;", database: "lifecycle", as: server.viewer), "2")
        let lastProcess = try XCTUnwrap(server.processID)
        XCTAssertNotEqual(firstProcess, lastProcess)
        XCTAssertFalse(isRunning(firstProcess))

        try server.stop()
        XCTAssertNil(server.processID)
        XCTAssertFalse(isRunning(lastProcess))
        XCTAssertThrowsError(try server.psql("SELECT 1;"))
        try server.start()
        XCTAssertEqual(try server.psql("SELECT count(*) FROM item;", database: "lifecycle"), "2")

        let running = try XCTUnwrap(server.processID)
        server.remove()
        XCTAssertFalse(isRunning(running))
        XCTAssertFalse(FileManager.default.fileExists(atPath: server.directory.path))
    }

    func testStandbyReplaysPrimaryCommits() throws {
        let primary = try PostgresServer.shared
        try primary.createDatabase("standbyReplays")
        try primary.psql("CREATE TABLE item(id int PRIMARY KEY); INSERT INTO item VALUES (1);",
                         database: "standbyReplays", as: primary.writer)
        let standby = try primary.makeStandby()
        defer { standby.remove() }
        XCTAssertNotEqual(standby.port, primary.port)
        XCTAssertEqual(try standby.psql("SELECT pg_is_in_recovery();"), "t")

        let writer = try primary.session(database: "standbyReplays", as: primary.writer)
        defer { writer.close() }
        try writer.execute("INSERT INTO item VALUES (2);")
        try standby.waitUntilReplayed()
        XCTAssertEqual(
            try standby.psql("SELECT string_agg(id::text, ',' ORDER BY id) FROM item;",
                             database: "standbyReplays", as: standby.viewer),
            "1,2")
        // Replayed without being asked, too.
        try writer.execute("INSERT INTO item VALUES (3);")
        waitUntil("the standby replays the third row", timeout: 5) {
            (try? standby.psql("SELECT count(*) FROM item;", database: "standbyReplays", as: standby.viewer)) == "3"
        }
        XCTAssertThrowsError(
            try standby.psql("INSERT INTO item VALUES (4);", database: "standbyReplays", as: standby.writer)
        ) { error in
            XCTAssertTrue("\(error)".contains("read-only transaction"), "\(error)")
        }

        let process = try XCTUnwrap(standby.processID)
        try standby.stop(mode: .immediate)
        XCTAssertFalse(isRunning(process))
        XCTAssertEqual(try primary.psql("SELECT count(*) FROM item;", database: "standbyReplays"), "3")
    }

    /// Whether the process exists and is no zombie: the server's parent,
    /// once pg_ctl exited, may never reap it.
    private func isRunning(_ process: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(process)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")")
        else { return false }
        return !stat[stat.index(after: end)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }
}
