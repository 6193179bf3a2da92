import Foundation
import PostgresClient
import XCTest
#if canImport(Glibc)
import Glibc
#endif

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

extension PostgresExitTests {
    private static let attemptVariable = "LIVETABLE_POSTGRES_EXIT_ATTEMPT_CHILD"

    /// A process that exits while a thread connects to a server that does
    /// not answer (a listening socket that nobody accepts from: the kernel
    /// completes the handshake, and libpq waits for `connect_timeout`, 30 s
    /// here) does not wait for the attempt: the exit gate's close abandons
    /// it at once. It used to wait for the gate's `exitWait` (2 s), and
    /// leave the attempt running in libpq as OpenSSL was freed.
    func testAnExitAbandonsAConnectionAttempt() throws {
        if ProcessInfo.processInfo.environment[Self.attemptVariable] != nil {
            try startAnAttemptThatOutlivesTheTest()
        } else {
            try ChildTest.run(
                "PostgresClientTests.PostgresExitTests/testAnExitAbandonsAConnectionAttempt",
                environment: [Self.attemptVariable: "1"])
        }
    }

    /// In the child: starts the attempt, and returns once it reached the
    /// listener. The probe, registered before libpq is loaded, runs after
    /// the gate's close, and fails the child unless the attempt ended by
    /// then with the exit's error.
    private func startAnAttemptThatOutlivesTheTest() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 16) == 0
                    && getsockname(listener, pointer, &length) == 0
            }
        }
        XCTAssertTrue(listening, "a listening socket")
        let port = UInt16(bigEndian: address.sin_port)
        AttemptProbe.install()
        Thread.detachNewThread {
            do {
                _ = try PostgresConnection(
                    "host=127.0.0.1 port=\(port) user=nobody dbname=nobody connect_timeout=30")
                AttemptProbe.ended(with: "connected")
            } catch {
                AttemptProbe.ended(with: "\(error)")
            }
        }
        // The attempt's connection waits in the listener's queue.
        var descriptor = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&descriptor, 1, 20_000), 1, "the attempt reached the listener")
    }
}

/// In the child: an atexit handler that fails the exit unless the
/// connection attempt ended with the exit's error, waiting up to 10 s for
/// it (the attempt's own timeout is 30 s).
private enum AttemptProbe {
    private static let condition = NSCondition()
    // nonisolated(unsafe): only touched with `condition` locked.
    nonisolated(unsafe) private static var outcome: String?

    static func install() {
        atexit {
            AttemptProbe.condition.lock()
            let deadline = Date(timeIntervalSinceNow: 10)
            while AttemptProbe.outcome == nil, AttemptProbe.condition.wait(until: deadline) {}
            let outcome = AttemptProbe.outcome
            AttemptProbe.condition.unlock()
            guard outcome == "the process is exiting" else {
                print("the exit did not abandon the connection attempt: \(outcome ?? "still running")")
                fflush(stdout)
                _exit(3)
            }
        }
    }

    static func ended(with outcome: String) {
        condition.lock()
        defer { condition.unlock() }
        self.outcome = outcome
        condition.broadcast()
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
