import Foundation
import PostgresClient
import XCTest

/// Stopping a statement: cancel() from another thread, statement_timeout.
final class PostgresCancelTests: XCTestCase {
    func testCancelFromAnotherThreadStopsASleepQuickly() throws {
        let connection = try PostgresConnection(try SharedCluster.get().url)
        let started = Date()
        let canceler = Thread {
            // Cancel once the sleep runs, seen from another session.
            let observer = try? PostgresConnection(try SharedCluster.get().url)
            let deadline = Date(timeIntervalSinceNow: 5)
            while Date() < deadline {
                let active = try? observer?.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep%' AND state = 'active'")
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
}
