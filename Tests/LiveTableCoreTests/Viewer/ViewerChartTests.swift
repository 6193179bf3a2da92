import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// `.` (issue 28 §3): a chart of a column as a live sheet, on a SQLite file
/// that the sqlite3 CLI writes and on PostgreSQL: a histogram whose bins
/// equal the database's own `GROUP BY` of the same bins, rows per time
/// bucket, and Enter on a bar for the rows of its bin.
final class ViewerChartTests: XCTestCase {
    /// 40 orders: amounts 5, 10, … 200; one an hour from 2026-12-01 08:00.
    static let orders = """
        CREATE TABLE orders(id integer PRIMARY KEY, status text, amount integer, created_at text);
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40)
        INSERT INTO orders SELECT i, CASE WHEN i % 3 = 0 THEN 'paid' ELSE 'new' END, i * 5,
          datetime('2026-12-01 07:30:00', '+' || i || ' hours') FROM n;
        """

    /// The same orders for PostgreSQL, whose `created_at` is a timestamp.
    static let postgresOrders = """
        CREATE TABLE orders(id integer PRIMARY KEY, status text, amount integer, created_at timestamp);
        INSERT INTO orders SELECT i, CASE WHEN i % 3 = 0 THEN 'paid' ELSE 'new' END, i * 5,
          timestamp '2026-12-01 07:30:00' + i * interval '1 hour' FROM generate_series(1, 40) AS i;
        """

    /// The bins of `amount` as `GROUP BY` writes them: integers, in bins
    /// of `width` from `low`.
    static func amountBins(_ low: Int, _ width: Int, where condition: String = "1 = 1") -> String {
        "SELECT (amount - \(low)) / \(width) AS bin, count(*) FROM orders WHERE \(condition) GROUP BY 1 ORDER BY 1;"
    }

    private var groupBy: (String) throws -> String = { _ in "" }

    func testSQLite() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("shop.sqlite").path
        try ForeignFile.sqlite3(path, Self.orders)
        groupBy = { try ForeignFile.sqlite3(path, $0) }
        try checkHistogram(try ViewerDriver(path: path, table: "orders", width: 80, height: 24))
    }

    func testPostgres() throws {
        let dataSource = try PostgresTestDatabase.open("viewerChart", sql: Self.postgresOrders)
        let cli = { (sql: String) in try PostgresTestDatabase.write("viewerChart", sql) }
        groupBy = cli
        let driver = try ViewerDriver(dataSource: dataSource, target: .table("orders"), width: 80, height: 24) {
            _ = try cli($0)
        }
        try checkHistogram(driver)
    }

    /// On a query's result, whose columns have no declared type: a
    /// histogram of its numbers, and Enter filters the query.
    func testQueryOnSQLite() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("shop.sqlite").path
        try ForeignFile.sqlite3(path, Self.orders)
        let driver = try ViewerDriver(
            path: path, target: .query("SELECT id, amount / 5.0 AS fifth FROM orders"), width: 80, height: 24)
        try checkQuery(driver) { try ForeignFile.sqlite3(path, $0) }
    }

    func testQueryOnPostgres() throws {
        let dataSource = try PostgresTestDatabase.open("viewerChart", sql: Self.postgresOrders)
        let cli = { (sql: String) in try PostgresTestDatabase.write("viewerChart", sql) }
        let driver = try ViewerDriver(
            dataSource: dataSource, target: .query("SELECT id, amount / 5.0 AS fifth FROM orders WHERE id <= 40"),
            width: 80, height: 24) { _ = try cli($0) }
        try checkQuery(driver) { try cli($0) + "\n" }
    }

    /// A query's result column of type `timestamp`, whatever its name, is
    /// a time (PostgreSQL tells the types of a query's result).
    func testQueryTimestampOnPostgres() throws {
        let dataSource = try PostgresTestDatabase.open("viewerChart", sql: Self.postgresOrders)
        let driver = try ViewerDriver(
            dataSource: dataSource, target: .query("SELECT id, created_at AS c FROM orders WHERE id <= 40"),
            width: 80, height: 24) { _ = try PostgresTestDatabase.write("viewerChart", $0) }
        try driver.type("l.")
        guard case let .sheet(sheet)? = driver.state.table?.viewed.target else { return XCTFail("no chart") }
        XCTAssertEqual(sheet.kind, .chart(column: "c", time: true))
        XCTAssertEqual(driver.state.table?.chartBin?.bins.first?.unit, "hour")
        XCTAssertEqual(driver.state.table?.chartBin?.bins.map(\.count), Array(repeating: 1, count: 40))
    }

    /// `fifth` is 1 to 40: twenty bins of 1.95, each of two rows.
    private func checkQuery(_ driver: ViewerDriver, groupBy: (String) throws -> String) throws {
        try driver.type("l.")
        XCTAssertEqual(driver.state.table?.chartBin?.bins.count, 20)
        let expected = try groupBy("""
            SELECT CASE WHEN amount / 5.0 >= 40 THEN 19 ELSE CAST(floor((amount / 5.0 - 1) / (39 / 20.0)) AS integer) END, count(*)
            FROM orders WHERE id <= 40 GROUP BY 1 ORDER BY 1;
            """.replacingOccurrences(of: "floor", with: driver.database == nil ? "floor" : ""))
        XCTAssertEqual(ViewerChartBinsTests.counted(driver), expected)
        try driver.send(.key(.enter))
        XCTAssertEqual(driver.state.table?.viewed.source.filter, "\"fifth\" >= 1 AND \"fifth\" < 2.95")
        XCTAssertEqual(driver.state.table?.window?.rows.count, 2)
    }

    /// Opened again, a chart reads from its first bin in one statement: a
    /// window around the bin selected before would run its query four times.
    func testAChartOpensAgainAtItsFirstBin() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("shop.sqlite").path
        try ForeignFile.sqlite3(path, Self.orders)
        let driver = try ViewerDriver(path: path, table: "orders", width: 80, height: 24)
        try driver.type("ll.jjq.")
        XCTAssertEqual(driver.state.table?.observedRequest?.anchor, .first)
        XCTAssertEqual(driver.state.table?.selectedIndex, 0)
    }

    /// The changes log is held in memory: no SQL draws its chart.
    func testChartIsRefusedOnTheChangesLog() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("shop.sqlite").path
        try ForeignFile.sqlite3(path, Self.orders)
        let driver = try ViewerDriver(path: path, table: "orders", width: 80, height: 24)
        try driver.type("L")
        XCTAssertEqual(driver.state.table?.viewed.target, .changesLog)
        XCTAssertEqual(try driver.type("."), [])
        XCTAssertEqual(driver.state.table?.viewed.target, .changesLog)
        XCTAssertEqual(driver.state.sheets, [.table("orders")])
    }

    // MARK: - The scenario

    private func checkHistogram(_ driver: ViewerDriver) throws {
        try driver.type("ll.")
        guard case let .sheet(sheet)? = driver.state.table?.viewed.target else {
            return XCTFail("no chart sheet: \(String(describing: driver.state.table?.viewed.target))")
        }
        XCTAssertEqual(sheet.kind, .chart(column: "amount", time: false))
        XCTAssertEqual(driver.state.sheets, [.table("orders")])
        XCTAssertEqual(sheet.name, "amount: histogram")
        // A chart has no column cursor to move.
        let column = driver.state.table?.currentColumn
        XCTAssertEqual(try driver.type("hl<>-c"), [])
        XCTAssertEqual(driver.state.table?.currentColumn, column)
        XCTAssertEqual(driver.state.table?.hiddenColumns, [])
        XCTAssertNil(driver.state.prompt)
        XCTAssertEqual(driver.state.table?.window?.rows.count, 20, "every bin, the empty ones too")
        try assertBins(driver, Self.amountBins(5, 10))
        XCTAssertTrue(driver.lines[1].hasPrefix("    amount  0 "), driver.lines[1])
        XCTAssertTrue(driver.lines[2].hasPrefix("    5 – 15 │█"), driver.lines[2])
        XCTAssertTrue(driver.lines[21].hasPrefix(" 195 – 205 │█"), driver.lines[21])

        // Another process's orders: the extremes move, the bars grow.
        _ = try driver.commit("INSERT INTO orders(id, status, amount) VALUES (41, 'new', 0), (42, 'new', 1), (43, 'new', 2);")
        try assertBins(driver, Self.amountBins(0, 11))
        XCTAssertEqual(bins(driver).first?.count, 5)

        // Enter on the second bar: its rows, filtered on the orders; q back.
        try driver.type("j")
        try driver.send(.key(.enter))
        XCTAssertEqual(driver.state.table?.viewed.target, .table("orders"))
        XCTAssertEqual(driver.state.table?.viewed.source.filter?.contains("\"amount\""), true)
        XCTAssertEqual(driver.state.table?.window?.rows.count, 2, "15 and 20")
        try driver.type("q")
        XCTAssertEqual(driver.state.table?.selectedIndex, 1)
        try driver.type("q")
        try checkFilteredAndTime(driver)
    }

    /// A filtered sheet's chart counts its rows only, and its bins keep
    /// the filter; `created_at` is drawn as rows per hour.
    private func checkFilteredAndTime(_ driver: ViewerDriver) throws {
        try driver.type("f")
        try driver.send(.key(.paste("status = 'paid'")))
        try driver.send(.key(.enter))
        try driver.type(".")
        try assertBins(driver, Self.amountBins(15, 10, where: "status = 'paid'"))
        try driver.send(.key(.enter))
        XCTAssertTrue(driver.state.table?.viewed.source.filter?.hasPrefix("(\nstatus = 'paid'\n)\nAND ") == true)
        XCTAssertEqual(driver.state.table?.window?.rows.count, 1)
        try driver.type("qq")
        XCTAssertEqual(driver.state.table?.viewed.source.filter, "status = 'paid'")
        try driver.type("l.")
        guard case let .sheet(sheet)? = driver.state.table?.viewed.target else { return XCTFail("no time chart") }
        XCTAssertEqual(sheet.kind, .chart(column: "created_at", time: true))
        let hours = bins(driver)
        XCTAssertEqual(hours.first?.unit, "hour")
        XCTAssertEqual(hours.map(\.count).reduce(0, +), 13)
        XCTAssertEqual(hours.count, 37, "every hour from the first to the last, the empty ones too")
        XCTAssertTrue(driver.lines[2].hasPrefix(" 2026-12-01 10:00 │"), driver.lines[2])
        // The title names the unit: wide enough for PostgreSQL's long server name.
        try driver.send(.resize(width: 240, height: 24))
        let title = driver.lines[0].components(separatedBy: "  ").first
        XCTAssertEqual(title, " \(driver.state.databaseName) — orders › created_at: rows per hour · by bin ↑")
        try driver.send(.resize(width: 80, height: 24))
        try driver.send(.key(.enter))
        XCTAssertEqual(driver.state.table?.window?.rows.count, 1)
    }

    // MARK: - Helpers

    private func bins(_ driver: ViewerDriver) -> [ChartBin] {
        driver.state.table?.chartBin?.bins ?? []
    }

    /// The chart's bins that hold rows, and their counts, equal the
    /// database's `GROUP BY`.
    private func assertBins(_ driver: ViewerDriver, _ sql: String, line: UInt = #line) throws {
        let expected = try groupBy(sql).split(separator: "\n").map { $0.split(separator: "|").map(String.init) }
        let rows = driver.state.table?.window?.rows ?? []
        let shown = rows.filter { ViewerFrequencyTests.text($0[3]) != "0" }.map { [ViewerFrequencyTests.text($0[0]), ViewerFrequencyTests.text($0[3])] }
        XCTAssertEqual(shown, expected, line: line)
    }
}
