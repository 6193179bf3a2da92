import Foundation
import PostgresClient
import XCTest

/// copyOut: `COPY … TO STDOUT` read row by row with PQgetCopyData,
/// stopped by cancel() or by its caller, the connection usable after.
final class PostgresCopyTests: XCTestCase {
    private var connection: PostgresConnection!

    override func setUpWithError() throws {
        connection = try PostgresConnection(try SharedCluster.get().url)
    }

    private func copy(_ sql: String) throws -> [String] {
        var rows: [String] = []
        try connection.copyOut(sql) { rows.append(String(decoding: $0, as: UTF8.self)) }
        return rows
    }

    func testEachCallIsOneWholeRowWithItsLineEnd() throws {
        let rows = try copy("""
            COPY (SELECT g, CASE WHEN g = 2 THEN E'two\\nlines, "quoted"' WHEN g = 3 THEN '' END
                  FROM generate_series(1, 3) g) TO STDOUT WITH (FORMAT csv, HEADER)
            """)
        XCTAssertEqual(rows, ["g,case\n", "1,\n", "2,\"two\nlines, \"\"quoted\"\"\"\n", "3,\"\"\n"])
        XCTAssertEqual(try connection.execute("SELECT 'usable'").rows, [["usable"]])
    }

    func testABigCopyStreams() throws {
        var count = 0
        var bytes = 0
        try connection.copyOut("COPY (SELECT g, repeat('x', 100) FROM generate_series(1, 300000) g) TO STDOUT") {
            count += 1
            bytes += $0.count
        }
        XCTAssertEqual(count, 300_000)
        XCTAssertGreaterThan(bytes, 300_000 * 101)
    }

    func testARefusedStatementIsThrownAndTheConnectionStaysUsable() throws {
        XCTAssertThrowsError(try copy("COPY (SELECT * FROM no_such_table) TO STDOUT")) { error in
            XCTAssertEqual((error as? PostgresError)?.sqlState, "42P01")
        }
        XCTAssertThrowsError(try copy("SELECT 1")) { error in
            XCTAssertEqual((error as? PostgresError)?.kind, .usage)
        }
        XCTAssertEqual(try connection.execute("SELECT 1").rows, [["1"]])
    }

    func testAnErrorInTheMiddleIsThrown() throws {
        var seen = 0
        XCTAssertThrowsError(try connection.copyOut("COPY (SELECT 1 / (5 - g) FROM generate_series(1, 10) g) TO STDOUT") { _ in
            seen += 1
        }) { error in
            XCTAssertEqual((error as? PostgresError)?.sqlState, "22012")
        }
        XCTAssertEqual(seen, 4)
        XCTAssertEqual(try connection.execute("SELECT 1").rows, [["1"]])
    }

    /// Esc during a save: cancel() from another thread stops a COPY of a
    /// billion rows on the server.
    func testCancelStopsAHugeCopy() throws {
        let start = Date()
        var seen = 0
        XCTAssertThrowsError(try connection.copyOut("COPY (SELECT generate_series(1, 1000000000)) TO STDOUT") { _ in
            seen += 1
            if seen == 1000 {
                DispatchQueue.global().async { [connection] in connection?.cancel() }
            }
        }) { error in
            XCTAssertEqual((error as? PostgresError)?.kind, .canceled)
        }
        XCTAssertGreaterThanOrEqual(seen, 1000)
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
        XCTAssertEqual(try connection.execute("SELECT 'usable'").rows, [["usable"]])
    }

    /// The caller's error stops the COPY on the server, and is the one thrown.
    func testTheCallersErrorStopsTheCopy() throws {
        struct Stop: Error {}
        let start = Date()
        var seen = 0
        XCTAssertThrowsError(try connection.copyOut("COPY (SELECT generate_series(1, 1000000000)) TO STDOUT") { _ in
            seen += 1
            if seen == 3 { throw Stop() }
        }) { error in
            XCTAssertTrue(error is Stop, "\(error)")
        }
        XCTAssertEqual(seen, 3)
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
        XCTAssertEqual(try connection.execute("SELECT 'usable'").rows, [["usable"]])
    }
}
