import Foundation
import LiveTableTestSupport
import PostgresClient
import XCTest

/// Stopping a statement: cancel() from another thread, statement_timeout,
/// a timeout on our side.
final class PostgresCancelTests: XCTestCase {
    func testCancelFromAnotherThreadStopsASleepQuickly() throws {
        let connection = try PostgresConnection(try SharedCluster.get().url)
        // This connection's own server process: another test's sleep may
        // still run in a process whose client left (the server sees it when
        // the sleep ends).
        let processID = connection.processID
        let started = Date()
        let canceler = Thread {
            // Cancel once the sleep runs, seen from another session.
            let observer = try? PostgresConnection(try SharedCluster.get().url)
            let deadline = Date(timeIntervalSinceNow: 5)
            while Date() < deadline {
                let active = try? observer?.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE pid = $1 AND query LIKE 'SELECT pg_sleep%' AND state = 'active'",
                    [String(processID)])
                if active?.rows == [["1"]] { break }
            }
            connection.cancel()
        }
        canceler.start()
        XCTAssertThrowsError(try connection.execute("SELECT pg_sleep(10)")) { error in
            guard let error = error as? PostgresError else { return XCTFail("not a PostgresError") }
            XCTAssertEqual(error.kind, .canceled)
            XCTAssertEqual(error.sqlState, "57014")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        XCTAssertEqual(try connection.execute("SELECT 1").rows, [["1"]])
    }

    func testCancelWithoutAStatementDoesNothing() throws {
        let connection = try PostgresConnection(try SharedCluster.get().url)
        connection.cancel()
        XCTAssertEqual(try connection.execute("SELECT 1").rows, [["1"]])
    }

    func testStatementTimeoutIsATimeout() throws {
        let connection = try PostgresConnection(
            try SharedCluster.get().url, settings: ["options": "-c statement_timeout=100"])
        let started = Date()
        XCTAssertThrowsError(try connection.execute("SELECT pg_sleep(10)")) { error in
            guard let error = error as? PostgresError else { return XCTFail("not a PostgresError") }
            XCTAssertEqual(error.kind, .timeout)
            XCTAssertEqual(error.message, "canceling statement due to statement timeout")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }

    func testAnAnswerLaterThanTheTimeoutAbandonsTheConnectionUntilReset() throws {
        let connection = try PostgresConnection(try SharedCluster.get().url)
        XCTAssertEqual(try connection.execute("SELECT 1", timeout: 5).rows, [["1"]])
        let started = Date()
        XCTAssertThrowsError(try connection.execute("SELECT pg_sleep(5)", timeout: 0.2)) { error in
            guard let error = error as? PostgresError else { return XCTFail("not a PostgresError") }
            XCTAssertEqual(error.kind, .connection)
            XCTAssertEqual(error.message, "no answer from the server for 0.2 s")
        }
        let waited = Date().timeIntervalSince(started)
        XCTAssertGreaterThanOrEqual(waited, 0.2)
        XCTAssertLessThan(waited, 2)
        // Left mid-statement: refused, not mixed with the late answer.
        XCTAssertEqual(connection.status, .bad)
        XCTAssertThrowsError(try connection.execute("SELECT 2")) { error in
            XCTAssertEqual((error as? PostgresError)?.kind, .connection)
        }
        try connection.reset()
        XCTAssertEqual(connection.status, .ok)
        XCTAssertEqual(try connection.execute("SELECT 3", timeout: 5).rows, [["3"]])
    }

    func testResultsWithinTheTimeoutAreTheSameAsWithout() throws {
        let connection = try PostgresConnection(try SharedCluster.get().url)
        let sql = "SELECT g, CASE WHEN g % 2 = 0 THEN NULL ELSE repeat('x', g) END FROM generate_series(1, 3000) g"
        XCTAssertEqual(try connection.execute(sql, timeout: 10), try connection.execute(sql))
        XCTAssertThrowsError(try connection.execute("SELECT * FROM no_such_table", timeout: 10)) { error in
            XCTAssertEqual((error as? PostgresError)?.sqlState, "42P01")
        }
        XCTAssertEqual(try connection.execute("SELECT 1", timeout: 10).rows, [["1"]])
    }

    func testACancelWithoutAStatementNeverStopsTheNextOne() throws {
        let connection = try PostgresConnection(try SharedCluster.get().url)
        // The cancel is sent from another queue: the statement right after
        // it waits for it, rather than being stopped by it late.
        for _ in 0..<10 {
            connection.cancel()
            XCTAssertEqual(try connection.execute("SELECT pg_sleep(0.05), 1").rows, [["", "1"]])
        }
    }

    /// A cancel goes on a connection of its own, and the server may carry
    /// it out whenever it arrives. One that has not ended within 2 s (here
    /// behind a frozen path, which holds its request) could still stop
    /// whatever the connection runs next, and be reported as a timeout:
    /// the next statement finds the connection abandoned rather than run,
    /// and `reset()` brings it back once the path moves.
    func testACancelThatDoesNotEndAbandonsTheConnectionUntilReset() throws {
        let cluster = try SharedCluster.get()
        let table = "abandoned_\(UUID().uuidString.prefix(8).lowercased())"
        try cluster.server.psql("CREATE TABLE \(table)(n int);")
        addTeardownBlock { _ = try? cluster.server.psql("DROP TABLE IF EXISTS \(table);") }
        let proxy = try FreezableProxy(to: cluster.port)
        defer { proxy.stop() }
        let url = cluster.url.replacingOccurrences(of: "127.0.0.1:\(cluster.port)/", with: "127.0.0.1:\(proxy.port)/")
        let connection = try PostgresConnection(url)
        XCTAssertEqual(try connection.execute("SELECT 1", timeout: 10).rows, [["1"]])

        proxy.freeze()
        connection.cancel()
        XCTAssertThrowsError(try connection.execute("INSERT INTO \(table) VALUES (1)", timeout: 10)) { error in
            XCTAssertEqual((error as? PostgresError)?.kind, .connection, "\(error)")
            XCTAssertEqual(
                (error as? PostgresError)?.message,
                "a cancel sent to the server did not end: the connection was abandoned")
        }
        XCTAssertTrue(connection.isAbandoned)
        XCTAssertEqual(connection.status, .bad)
        // Refused again, at once: no statement runs on it until reset.
        XCTAssertThrowsError(try connection.execute("INSERT INTO \(table) VALUES (2)", timeout: 10)) { error in
            XCTAssertEqual((error as? PostgresError)?.kind, .connection, "\(error)")
        }

        proxy.thaw()
        try connection.reset()
        XCTAssertFalse(connection.isAbandoned)
        XCTAssertEqual(connection.status, .ok)
        // Neither statement ran.
        XCTAssertEqual(try connection.execute("SELECT count(*) FROM \(table)", timeout: 10).rows, [["0"]])
    }
}
