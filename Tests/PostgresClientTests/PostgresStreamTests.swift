import Foundation
import PostgresClient
import Synchronization
import XCTest

/// forEachRow: rows one at a time, in constant memory, stopped early.
final class PostgresStreamTests: XCTestCase {
    private var connection: PostgresConnection!

    override func setUpWithError() throws {
        connection = try PostgresConnection(try SharedCluster.get().url)
    }

    func testBigResultIsStreamedRowByRow() throws {
        var columns: [[PostgresColumn]] = []
        var count = 0
        var sum = 0
        var last: String?
        try connection.forEachRow(
            "SELECT g, repeat('x', 100) FROM generate_series(1, $1::int) g", ["300000"],
            columns: { columns.append($0) }
        ) { row in
            count += 1
            sum += row.withBytes(column: 0) { Int(String(decoding: $0, as: UTF8.self)) ?? 0 }
            last = row.string(column: 0)
            return true
        }
        XCTAssertEqual(columns, [[PostgresColumn(name: "g", typeOID: 23), PostgresColumn(name: "repeat", typeOID: 25)]])
        XCTAssertEqual(count, 300_000)
        XCTAssertEqual(sum, 300_000 * 300_001 / 2)
        XCTAssertEqual(last, "300000")
    }

    func testStoppingEarlyEndsAHugeStatementQuickly() throws {
        // A billion rows: only a stream stopped early returns in time. (In
        // the select list, generate_series yields rows one by one; in FROM
        // it would build all of them before the first.)
        let start = Date()
        var seen: [String?] = []
        try connection.forEachRow("SELECT generate_series(1, 1000000000)") { row in
            seen.append(row.string(column: 0))
            return seen.count < 3
        }
        XCTAssertEqual(seen, ["1", "2", "3"])
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
        XCTAssertEqual(try connection.execute("SELECT 'usable'").rows, [["usable"]])
    }

    func testNullsAndEmptyStringsInPlace() throws {
        try connection.forEachRow("SELECT NULL::text, ''") { row in
            XCTAssertTrue(row.isNull(column: 0))
            XCTAssertFalse(row.isNull(column: 1))
            XCTAssertEqual(row.withBytes(column: 1) { $0.count }, 0)
            XCTAssertEqual(row.values, [nil, ""])
            XCTAssertTrue(row.isNull(column: 7), "a column out of range reads as NULL")
            return true
        }
    }

    func testNoRowsStillGivesTheColumns() throws {
        var columns: [PostgresColumn] = []
        try connection.forEachRow("SELECT 1 AS one WHERE false", columns: { columns = $0 }) { _ in
            XCTFail("no row expected")
            return true
        }
        XCTAssertEqual(columns.map(\.name), ["one"])
    }

    func testErrorInTheMiddleOfAStreamIsThrown() throws {
        var seen = 0
        XCTAssertThrowsError(try connection.forEachRow(
            "SELECT 1 / (5 - g) FROM generate_series(1, 10) g") { _ in
            seen += 1
            return true
        }) { error in
            XCTAssertEqual((error as? PostgresError)?.sqlState, "22012")
        }
        XCTAssertEqual(seen, 4)
        XCTAssertEqual(try connection.execute("SELECT 1").rows, [["1"]])
    }

    func testErrorThrownByTheBodyStopsAndIsRethrown() throws {
        struct Stop: Error {}
        XCTAssertThrowsError(try connection.forEachRow("SELECT generate_series(1, 1000000000)") { _ in
            throw Stop()
        }) { error in
            XCTAssertTrue(error is Stop)
        }
        XCTAssertEqual(try connection.execute("SELECT 1").rows, [["1"]])
    }
}

extension PostgresStreamTests {
    func testStatementFromTheBodyIsRefusedAndTheFactsAreReadable() throws {
        var nested: Error?
        var host: String?
        try connection.forEachRow("SELECT generate_series(1, 3)") { _ in
            host = connection.host
            XCTAssertThrowsError(try connection.execute("SELECT 1")) { nested = $0 }
            return true
        }
        XCTAssertEqual((nested as? PostgresError)?.kind, .usage)
        XCTAssertEqual(host, "127.0.0.1")
        XCTAssertEqual(try connection.execute("SELECT 1").rows, [["1"]])
    }

    func testResetFromTheBodyIsRefusedAndTheStreamEnds() throws {
        var nested: Error?
        var seen: [String?] = []
        try connection.forEachRow("SELECT generate_series(1, 3)") { row in
            seen.append(row.string(column: 0))
            if seen.count == 1 {
                XCTAssertThrowsError(try connection.reset()) { nested = $0 }
                XCTAssertEqual(connection.status, .ok)
            }
            return true
        }
        XCTAssertEqual((nested as? PostgresError)?.kind, .usage)
        XCTAssertEqual(seen, ["1", "2", "3"])
        XCTAssertEqual(try connection.execute("SELECT 1").rows, [["1"]])
    }

    /// The body runs out of the connection's lock, but in its statement's
    /// turn: another thread's statement waits for the stream's end, rather
    /// than go in between two rows.
    func testAStatementOfAnotherThreadWaitsForTheStreamToEnd() throws {
        let connection = try XCTUnwrap(connection)
        let other = OtherStatement()
        let otherEnded = DispatchSemaphore(value: 0)
        var endedDuringTheStream = false
        var seen = 0
        try connection.forEachRow("SELECT g, pg_sleep(0.01) FROM generate_series(1, 20) g") { _ in
            seen += 1
            if seen == 1 {
                DispatchQueue.global().async {
                    let result = Result { try connection.execute("SELECT 'other'", timeout: 30).rows }
                    other.result.withLock { $0 = result }
                    otherEnded.signal()
                }
            } else if seen == 2 {
                // The other statement has had a moment to slip in.
                endedDuringTheStream = otherEnded.wait(timeout: .now() + 0.5) == .success
            }
            return true
        }
        XCTAssertEqual(seen, 20)
        XCTAssertFalse(endedDuringTheStream)
        if !endedDuringTheStream {
            XCTAssertEqual(otherEnded.wait(timeout: .now() + 30), .success)
        }
        XCTAssertEqual(try other.result.withLock { $0 }?.get(), [["other"]])
        XCTAssertEqual(try connection.execute("SELECT 1").rows, [["1"]])
    }
}

/// forEachRow's `timeout:`: per wait for the next row, not for the whole
/// statement.
extension PostgresStreamTests {
    func testRowsThatKeepComingAreNotCutByTheTimeout() throws {
        // Rows over the server's 8 kB send buffer go out one by one, 0.3 s
        // apart: 6 s in all, three times the timeout. The timeout leaves a
        // row 1.7 s of slack, for a machine shared with builds.
        var count = 0
        let started = Date()
        try connection.forEachRow(
            "SELECT g, repeat('x', 10000), pg_sleep(0.3) FROM generate_series(1, 20) g", timeout: 2
        ) { row in
            count += 1
            XCTAssertEqual(row.string(column: 0), String(count))
            return true
        }
        XCTAssertEqual(count, 20)
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 6)
        XCTAssertEqual(connection.status, .ok)
        XCTAssertEqual(try connection.execute("SELECT 1", timeout: 5).rows, [["1"]])
    }

    func testAnAnswerLaterThanTheTimeoutAbandonsTheConnectionUntilReset() throws {
        let started = Date()
        XCTAssertThrowsError(try connection.forEachRow("SELECT pg_sleep(5)", timeout: 0.2) { _ in true }) { error in
            XCTAssertEqual((error as? PostgresError)?.kind, .connection)
            XCTAssertEqual((error as? PostgresError)?.message, "no answer from the server for 0.2 s")
        }
        let waited = Date().timeIntervalSince(started)
        XCTAssertGreaterThanOrEqual(waited, 0.2)
        XCTAssertLessThan(waited, 2)
        XCTAssertEqual(connection.status, .bad)
        XCTAssertTrue(connection.isAbandoned)
        XCTAssertThrowsError(try connection.forEachRow("SELECT 2") { _ in true }) { error in
            XCTAssertEqual((error as? PostgresError)?.kind, .connection)
        }
        try connection.reset()
        XCTAssertFalse(connection.isAbandoned)
        XCTAssertEqual(try connection.execute("SELECT 3", timeout: 5).rows, [["3"]])
    }
}

/// The outcome of a statement run on another thread.
private final class OtherStatement: Sendable {
    let result = Mutex<Result<[[String?]], Error>?>(nil)
}
