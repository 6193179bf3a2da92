import Foundation
import PostgresClient
import XCTest

/// A process that exits while its threads still use the server exits
/// cleanly: libpq's use of OpenSSL (SCRAM authentication, SSL) must not
/// outlive OpenSSL's own cleanup at exit.
///
/// The exit is the subject, so the test runs in a child: this same test
/// bundle, running this one test with `childVariable` set, which starts
/// the threads and returns. The child's exit then stops its own server
/// (`PostgresServer`'s atexit handler, a pg_ctl run of about a second,
/// registered before any connection) while one thread connects again and
/// again and another waits for a long statement: before the fix, OpenSSL
/// was freed by then, and the next SCRAM exchange crashed the child.
final class PostgresExitTests: XCTestCase {
    private static let childVariable = "LIVETABLE_POSTGRES_EXIT_CHILD"

    func testAProcessExitsCleanlyWhileItsThreadsUseTheServer() throws {
        if ProcessInfo.processInfo.environment[Self.childVariable] != nil {
            try startThreadsThatOutliveTheTest()
        } else {
            try runChild()
        }
    }

    // MARK: - The parent

    private func runChild() throws {
        try ChildTest.run(
            "PostgresClientTests.PostgresExitTests/testAProcessExitsCleanlyWhileItsThreadsUseTheServer",
            environment: [Self.childVariable: "1"])
    }

    // MARK: - The child

    /// Starts a thread that connects (a SCRAM exchange each time, through
    /// OpenSSL) and runs a statement in a loop, and one that waits in a
    /// long statement; returns once both are under way. The exit then
    /// waits (`ExitProbe`) for the loop to try twice more, as a slow
    /// atexit handler of the application would let it.
    private func startThreadsThatOutliveTheTest() throws {
        let cluster = try SharedCluster.get()
        let url = cluster.url
        // Before the first connection, hence before libpq is loaded and
        // OpenSSL's handler registered: it runs after OpenSSL's cleanup,
        // as the server's stop does.
        ExitProbe.install()
        let connected = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            // Bounded, should the test bundle's exit be slow to come.
            let end = Date(timeIntervalSinceNow: 60)
            var first = true
            while Date() < end {
                let connection = try? PostgresConnection(url)
                let ran = (try? connection?.execute("SELECT 1")) != nil
                ExitProbe.attempted()
                if ran, first { connected.signal(); first = false }
            }
        }
        XCTAssertEqual(connected.wait(timeout: .now() + 10), .success, "the loop connects")

        let sleeper = try PostgresConnection(url, settings: ["application_name": "exit_test_sleeper"])
        Thread.detachNewThread {
            _ = try? sleeper.execute("SELECT pg_sleep(60)")
        }
        let observer = try PostgresConnection(url)
        let deadline = Date(timeIntervalSinceNow: 10)
        var sleeping = false
        while !sleeping, Date() < deadline {
            sleeping = try observer.execute("""
                SELECT 1 FROM pg_stat_activity
                WHERE application_name = 'exit_test_sleeper' AND state = 'active'
                """).rows.count == 1
        }
        XCTAssertTrue(sleeping, "the long statement runs")
    }
}

/// In the child: an atexit handler that holds the exit until the loop
/// tried to connect twice more (or 5 s passed).
private enum ExitProbe {
    private static let condition = NSCondition()
    // nonisolated(unsafe): only touched with `condition` locked.
    nonisolated(unsafe) private static var attempts = 0

    static func install() {
        atexit {
            ExitProbe.condition.lock()
            defer { ExitProbe.condition.unlock() }
            let goal = ExitProbe.attempts + 2
            let deadline = Date(timeIntervalSinceNow: 5)
            while ExitProbe.attempts < goal, ExitProbe.condition.wait(until: deadline) {}
        }
    }

    static func attempted() {
        condition.lock()
        defer { condition.unlock() }
        attempts += 1
        condition.broadcast()
    }
}
