import Foundation
import LiveTableTestSupport
// @testable: the wake-up descriptor's writing end is internal.
@testable import PostgresClient
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A connection attempt behind a frozen network path (a proxy that
/// accepts the connection and forwards nothing, as a NAT box that stopped
/// forwarding): it ends by its deadline, at once when interrupted, and a
/// host that does not answer in `connect_timeout` is given up for the next
/// one, as libpq's blocking connect does. libpq's own `connect_timeout`
/// is set to 30 s here, so that only the attempt's bounds can end it in
/// the time the tests allow.
final class PostgresConnectAttemptTests: XCTestCase {
    /// The cluster's superuser URL, through `proxy`.
    private func url(through proxy: FreezableProxy, _ cluster: SharedCluster) -> String {
        cluster.url.replacing("127.0.0.1:\(cluster.port)/", with: "127.0.0.1:\(proxy.port)/")
    }

    /// A proxy to the cluster, frozen, and stopped when the test ends.
    private func frozenProxy(_ cluster: SharedCluster) throws -> FreezableProxy {
        let proxy = try FreezableProxy(to: cluster.port)
        addTeardownBlock { proxy.stop() }
        proxy.freeze()
        return proxy
    }

    func testAnAttemptThroughAFrozenPathFailsByItsDeadline() throws {
        let cluster = try SharedCluster.get()
        let proxy = try frozenProxy(cluster)
        let started = Date()
        XCTAssertThrowsError(try PostgresConnection(
            url(through: proxy, cluster), settings: ["connect_timeout": "30"], timeout: 1)) { error in
            XCTAssertEqual((error as? PostgresError)?.kind, .connection, "\(error)")
            XCTAssertEqual((error as? PostgresError)?.message, "no connection to the server in 1 s")
        }
        let waited = Date().timeIntervalSince(started)
        print("frozen path → connection attempt failed, s: \(String(format: "%.2f", waited))")
        XCTAssertGreaterThanOrEqual(waited, 1)
        // Generous for a machine shared with builds; libpq would wait 30 s.
        XCTAssertLessThan(waited, 10)
    }

    func testAnInterruptedAttemptReturnsAtOnce() throws {
        let cluster = try SharedCluster.get()
        let proxy = try frozenProxy(cluster)
        let wake = WakeUpDescriptor()
        // Interrupted once the attempt has reached the proxy, and waits.
        let interruptedAt = LockedDate()
        DispatchQueue.global().async {
            proxy.waitForConnections(atLeast: 1, timeout: 20)
            interruptedAt.set(Date())
            wake.signal()
        }
        XCTAssertThrowsError(try PostgresConnection(
            url(through: proxy, cluster), settings: ["connect_timeout": "30"], interruptedBy: wake)) { error in
            XCTAssertEqual((error as? PostgresError)?.kind, .canceled, "\(error)")
            XCTAssertEqual((error as? PostgresError)?.message, "the connection attempt was interrupted")
        }
        XCTAssertEqual(proxy.acceptedConnections, 1, "interrupted before it reached the server")
        let waited = Date().timeIntervalSince(interruptedAt.get() ?? .distantPast)
        print("interrupt → connection attempt ended, s: \(String(format: "%.3f", waited))")
        // At once; generous for a machine shared with builds.
        XCTAssertLessThan(waited, 5)
    }

    /// libpq's `connect_timeout` bounds each host, and the next is tried:
    /// the first host (the frozen proxy) is given up after 5 s (it bounds
    /// the server's handshake too, which a loaded machine slows), the second
    /// (the server) connects, as read-write as `target_session_attrs` asks.
    func testAHostThatDoesNotAnswerInConnectTimeoutIsGivenUpForTheNext() throws {
        let cluster = try SharedCluster.get()
        let proxy = try frozenProxy(cluster)
        let started = Date()
        let connection = try PostgresConnection(
            "postgresql://postgres:\(cluster.password)@127.0.0.1:\(proxy.port),127.0.0.1:\(cluster.port)"
            + "/postgres?target_session_attrs=read-write&connect_timeout=5")
        let waited = Date().timeIntervalSince(started)
        print("frozen first host → second host connected, s: \(String(format: "%.2f", waited))")
        XCTAssertEqual(connection.port, "\(cluster.port)")
        XCTAssertEqual(try connection.execute("SELECT 1").rows, [["1"]])
        XCTAssertGreaterThanOrEqual(waited, 5, "the first host was not given its connect_timeout")
        XCTAssertEqual(proxy.acceptedConnections, 1)
    }

    /// Every host timed out: libpq's message for each, on one line, and
    /// no password. The same host twice is tried twice, as libpq does.
    func testHostsThatAllTimeOutSayEachWithoutThePassword() throws {
        let cluster = try SharedCluster.get()
        let proxy = try frozenProxy(cluster)
        XCTAssertThrowsError(try PostgresConnection(
            "host=127.0.0.1,127.0.0.1 port=\(proxy.port) user=postgres dbname=postgres connect_timeout=2",
            settings: ["password": cluster.password])) { error in
            guard let error = error as? PostgresError else { return XCTFail("not a PostgresError") }
            XCTAssertEqual(error.kind, .connection)
            XCTAssertEqual(error.message.components(separatedBy: "timeout expired").count - 1, 2, error.message)
            XCTAssertTrue(error.message.hasPrefix("connection to server at \"127.0.0.1\""), error.message)
            XCTAssertFalse(error.message.contains("\n"))
            XCTAssertFalse(error.message.contains(cluster.password), "the password reached the error")
        }
        XCTAssertEqual(proxy.acceptedConnections, 2)
    }

    /// A reset is the same attempt: through a path that moves again, it
    /// connects anew, and the connection works.
    func testResetAfterAFrozenPathConnectsAgain() throws {
        let cluster = try SharedCluster.get()
        let proxy = try FreezableProxy(to: cluster.port)
        defer { proxy.stop() }
        let connection = try PostgresConnection(url(through: proxy, cluster))
        let first = connection.processID
        proxy.freeze()
        XCTAssertThrowsError(try connection.execute("SELECT 1", timeout: 0.5))
        XCTAssertEqual(connection.status, .bad)
        proxy.thaw()
        try connection.reset()
        XCTAssertEqual(connection.status, .ok)
        XCTAssertNotEqual(connection.processID, first)
        XCTAssertEqual(try connection.execute("SELECT 2").rows, [["2"]])
    }

    /// A reset through a frozen path is bounded as a connection is, by
    /// its timeout and its interrupt, and holds no lock meanwhile: the
    /// connection's status and facts answer. Then the old connection
    /// stays, still bad.
    func testAResetIsBoundedAndLeavesTheConnectionReadable() throws {
        let cluster = try SharedCluster.get()
        let proxy = try FreezableProxy(to: cluster.port)
        defer { proxy.stop() }
        let connection = try PostgresConnection(url(through: proxy, cluster), settings: ["connect_timeout": "30"])
        proxy.freeze()
        XCTAssertThrowsError(try connection.execute("SELECT 1", timeout: 0.5))
        XCTAssertThrowsError(try connection.reset(timeout: 1)) { error in
            XCTAssertEqual((error as? PostgresError)?.message, "no connection to the server in 1 s")
        }
        let wake = WakeUpDescriptor()
        let resetEnded = XCTestExpectation(description: "the reset ended")
        DispatchQueue.global().async {
            do {
                try connection.reset(interruptedBy: wake)
                XCTFail("the reset connected through a frozen path")
            } catch {
                XCTAssertEqual((error as? PostgresError)?.kind, .canceled, "\(error)")
            }
            resetEnded.fulfill()
        }
        XCTAssertTrue(proxy.waitForConnections(atLeast: 3, timeout: 20), "the reset did not reach the proxy")
        XCTAssertEqual(proxy.acceptedConnections, 3, "the reset did not reach the proxy")
        // Read on another thread: held by the reset, it would take 30 s.
        let answered = XCTestExpectation(description: "status, isAbandoned and host answered")
        DispatchQueue.global().async {
            XCTAssertEqual(connection.status, .bad)
            XCTAssertTrue(connection.isAbandoned)
            XCTAssertEqual(connection.host, "127.0.0.1")
            answered.fulfill()
        }
        XCTAssertEqual(XCTWaiter.wait(for: [answered], timeout: 10), .completed, "held by the reset")
        wake.signal()
        XCTAssertEqual(XCTWaiter.wait(for: [resetEnded], timeout: 10), .completed, "the interrupt did not end the reset")
        XCTAssertEqual(connection.status, .bad)
        proxy.thaw()
        try connection.reset()
        XCTAssertEqual(try connection.execute("SELECT 2").rows, [["2"]])
    }
}

extension PostgresConnectAttemptTests {
    /// The interrupt is made close-on-exec in the call that makes it: a
    /// process spawned by another thread (a test's psql) never inherits
    /// it. It wakes a poll, and is quiet again once cleared.
    func testTheWakeUpDescriptorIsCloseOnExecAndNonBlocking() {
        let wake = WakeUpDescriptor()
        for end in [wake.descriptor, wake.writer] {
            XCTAssertGreaterThanOrEqual(end, 0)
            XCTAssertNotEqual(fcntl(end, F_GETFD) & FD_CLOEXEC, 0, "a spawned process would inherit descriptor \(end)")
            XCTAssertNotEqual(fcntl(end, F_GETFL) & O_NONBLOCK, 0, "descriptor \(end) blocks")
        }
        var descriptor = pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&descriptor, 1, 0), 0)
        wake.signal()
        wake.signal()
        XCTAssertEqual(poll(&descriptor, 1, 0), 1)
        wake.clear()
        XCTAssertEqual(poll(&descriptor, 1, 0), 0)
    }
}

/// A date set on one thread and read on another.
private final class LockedDate: @unchecked Sendable {
    private let lock = NSLock()
    private var date: Date?

    func set(_ value: Date) { lock.withLock { date = value } }
    func get() -> Date? { lock.withLock { date } }
}

extension PostgresConnectAttemptTests {
    /// Two resets at once, the first held on a frozen path while the
    /// second connects: the first, refused after, leaves the connection
    /// the second put in (it would replace a working connection with a
    /// failed one). Each attempt is one connection through the proxy
    /// (no SSL, no GSS request to retry without), told apart by its place.
    func testAResetOvertakenByAnotherLeavesTheNewerConnection() throws {
        let cluster = try SharedCluster.get()
        let proxy = try FreezableProxy(to: cluster.port)
        addTeardownBlock { proxy.stop() }
        let connection = try PostgresConnection(
            url(through: proxy, cluster), settings: ["sslmode": "disable", "gssencmode": "disable"])
        proxy.freeze()
        let held = proxy.acceptedConnections
        let heldEnded = XCTestExpectation(description: "the held reset ended")
        let heldError = LockedError()
        Thread {
            do { try connection.reset(timeout: 60) } catch { heldError.set(error) }
            heldEnded.fulfill()
        }.start()
        waitUntil("the first reset reached the proxy", timeout: 20) { proxy.acceptedConnections > held }
        proxy.release(held + 1)
        try connection.reset(timeout: 60)
        let newer = connection.processID
        XCTAssertEqual(connection.status, .ok)
        proxy.drop(held)
        XCTAssertEqual(XCTWaiter.wait(for: [heldEnded], timeout: 60), .completed, "the dropped reset did not end")
        XCTAssertEqual((heldError.get() as? PostgresError)?.kind, .connection, "the dropped reset was not refused")
        XCTAssertEqual(connection.status, .ok, "a refused reset replaced a newer connection")
        XCTAssertEqual(connection.processID, newer)
        XCTAssertEqual(try connection.execute("SELECT 3").rows, [["3"]])
    }
}

/// An error thrown on one thread and read on another.
private final class LockedError: @unchecked Sendable {
    private let lock = NSLock()
    private var error: Error?

    func set(_ value: Error) { lock.withLock { error = value } }
    func get() -> Error? { lock.withLock { error } }
}
