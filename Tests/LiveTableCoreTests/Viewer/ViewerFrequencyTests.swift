import Foundation
import Synchronization
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// `#` (issue 27 §2): a column's frequency table as a live sheet, on a
/// SQLite file that the sqlite3 CLI writes and on PostgreSQL, checked
/// against each database's own `GROUP BY`.
final class ViewerFrequencyTests: XCTestCase {
    /// 11 orders: paid 5, shipped 3, NULL 2, new 1.
    static let orders = """
        CREATE TABLE orders(id integer PRIMARY KEY, status text, amount integer);
        INSERT INTO orders VALUES
          (1, 'paid', 10), (2, 'paid', 20), (3, 'paid', 30), (4, 'paid', 40), (5, 'paid', 50),
          (6, 'shipped', 60), (7, 'shipped', 70), (8, 'shipped', 80),
          (9, NULL, 90), (10, NULL, 100), (11, 'new', 110);
        """

    /// Another process's `GROUP BY`, as its CLI prints it (`value|count`).
    private var groupBy: (String) throws -> String = { _ in "" }

    func testSQLite() throws {
        let (driver, cli) = try Self.ordersOnSQLite(self)
        groupBy = cli
        try checkFrequencySheet(driver)
    }

    func testPostgres() throws {
        let (driver, cli) = try Self.ordersOnPostgres("viewerFrequency")
        groupBy = cli
        try checkFrequencySheet(driver)
    }

    /// A driver on `orders` of a file that the sqlite3 CLI wrote, and that
    /// CLI, to run SQL as another process.
    static func ordersOnSQLite(_ test: XCTestCase) throws -> (ViewerDriver, (String) throws -> String) {
        let path = try test.makeTemporaryDirectory().appendingPathComponent("shop.sqlite").path
        try ForeignFile.sqlite3(path, orders)
        return (try ViewerDriver(path: path, table: "orders", width: 160, height: 12), { try ForeignFile.sqlite3(path, $0) })
    }

    /// The same on the PostgreSQL database `name`, with `psql` as the writer.
    static func ordersOnPostgres(_ name: String) throws -> (ViewerDriver, (String) throws -> String) {
        let dataSource = try PostgresTestDatabase.open(name, sql: orders)
        let cli = { (sql: String) in try PostgresTestDatabase.write(name, sql) }
        let driver = try ViewerDriver(dataSource: dataSource, target: .table("orders"), width: 160, height: 12) {
            _ = try cli($0)
        }
        return (driver, cli)
    }

    /// A commit read again on a sheet whose groups all fit: one statement
    /// groups the rows, and the selection stays on its group, where the
    /// lookup of the group and the ranges around it grouped them twice or
    /// more (three times on 2,000,000 rows: the bench's slow refreshes).
    func testARefreshGroupsTheRowsOnce() throws {
        let (driver, cli) = try Self.ordersOnSQLite(self)
        try driver.type("l#j")
        XCTAssertEqual(selectedGroup(driver), "shipped")
        let table = try XCTUnwrap(driver.state.table)
        // What the screen asks for once the window holds every group.
        let request = table.windowRequest(page: driver.state.pageRows)
        XCTAssertTrue(request.readsWhole)
        _ = try cli("UPDATE orders SET status = 'shipped' WHERE id IN (1, 2, 3);")
        let groupings = Mutex(0)
        try driver.database.read { db in
            db.trace { event in
                if "\(event)".contains("GROUP BY") { groupings.withLock { $0 += 1 } }
            }
        }
        defer { try? driver.database.read { db in db.trace(options: [], nil) } }
        let window = try firstWindow(of: driver.dataSource, table.viewed, request)
        XCTAssertEqual(groupings.withLock { $0 }, 1)
        try driver.send(.window(window, now: driver.now))
        XCTAssertEqual(selectedGroup(driver), "shipped")
        XCTAssertEqual(driver.state.table?.selectedIndex, 0)
    }

    /// `#` again on a column opens its sheet at the first group: a window
    /// around the group selected before grouped the rows three times (6 s a
    /// reopening on 2,000,000 rows with many groups, against 0.7 s).
    func testAFrequencySheetOpensAgainAtItsFirstGroup() throws {
        let (driver, _) = try Self.ordersOnSQLite(self)
        try driver.type("l#jjq#")
        XCTAssertEqual(driver.state.table?.observedRequest?.anchor, .first)
        XCTAssertEqual(selectedGroup(driver), "paid")
    }

    /// Between `q` and the sheet below opening, a key that opens a sheet
    /// waits: it would cover the sheet closed. If the sheet below can not
    /// be opened, it goes back under the one on screen.
    func testKeysThatOpenASheetWaitForTheSheetThatQUncovers() throws {
        let (driver, _) = try Self.ordersOnSQLite(self)
        try driver.type("l#")
        var state = driver.state
        XCTAssertEqual(state.sheets, [.table("orders")])
        XCTAssertFalse(viewerUpdate(&state, .key(.character("q"))).isEmpty)
        XCTAssertEqual(state.sheets, [])
        for key in [Key.enter, .character("#"), .character("I"), .character(":")] {
            XCTAssertEqual(viewerUpdate(&state, .key(key)), [], "\(key)")
        }
        XCTAssertEqual(state.sheets, [])
        _ = viewerUpdate(&state, .openFailed("locked", .other))
        XCTAssertEqual(state.sheets, [.table("orders")], "back under the frequency sheet")
    }

    // MARK: - The scenario

    private func checkFrequencySheet(_ driver: ViewerDriver) throws {
        // Its window holds every group: it counts them, and no count runs
        // the grouping again.
        XCTAssertFalse(try driver.type("l#").contains(where: Self.isCount))
        XCTAssertEqual(driver.state.table?.rowCount, 4)
        guard case let .sheet(sheet)? = driver.state.table?.viewed.target else {
            return XCTFail("no frequency sheet: \(String(describing: driver.state.table?.viewed.target))")
        }
        XCTAssertEqual(sheet.name, "status: frequency")
        XCTAssertEqual(driver.state.sheets, [.table("orders")])
        XCTAssertTrue(driver.lines[0].contains("orders › status: frequency"), driver.lines[0])
        XCTAssertEqual(driver.state.table?.viewed.source.columnNames, ["status", "count", "%", "bar"])
        try assertCounts(driver, "SELECT status, count(*) FROM orders GROUP BY status")
        XCTAssertEqual(rows(driver).map { $0[2] }, ["45.5", "27.3", "18.2", "9.1"])
        XCTAssertEqual(rows(driver)[0][3], String(repeating: "█", count: 20))
        XCTAssertEqual(rows(driver)[3][3], String(repeating: "█", count: 4))

        // On `shipped`; another process moves three orders from paid to
        // shipped: both counts change, and the selection stays on its group.
        try driver.type("j")
        XCTAssertEqual(selectedGroup(driver), "shipped")
        XCTAssertFalse(try driver.commit("UPDATE orders SET status = 'shipped' WHERE id IN (1, 2, 3);").contains(where: Self.isCount))
        try assertCounts(driver, "SELECT status, count(*) FROM orders GROUP BY status")
        XCTAssertEqual(rows(driver).first, ["shipped", "6", "54.5", String(repeating: "█", count: 20)])
        XCTAssertEqual(selectedGroup(driver), "shipped")
        XCTAssertEqual(driver.state.table?.selectedIndex, 0)

        // Enter: the group's rows, as the orders filtered, on top.
        try driver.send(.key(.enter))
        XCTAssertEqual(driver.state.table?.viewed.target, .table("orders"))
        XCTAssertEqual(driver.state.table?.viewed.source.filter, "\"status\" = 'shipped'")
        XCTAssertEqual(driver.state.table?.window?.rows.count, 6)
        XCTAssertEqual(driver.state.sheets, [.table("orders"), .sheet(sheet)])

        // q: the frequency sheet on its group; q: the orders, unfiltered.
        try driver.type("q")
        XCTAssertEqual(selectedGroup(driver), "shipped")
        try driver.type("q")
        XCTAssertEqual(driver.state.table?.viewed.target, .table("orders"))
        XCTAssertNil(driver.state.table?.viewed.source.filter)
        XCTAssertEqual(driver.state.table?.window?.rows.count, 11)
        XCTAssertEqual(driver.state.table?.currentColumnName, "status")
        try checkNullGroupAndFilter(driver)
    }

    /// NULL is a group, whose rows are `IS NULL`; a filtered sheet's
    /// frequency counts its rows only, and its groups keep the filter.
    private func checkNullGroupAndFilter(_ driver: ViewerDriver) throws {
        try driver.type("f")
        try driver.send(.key(.paste("amount > 20")))
        try driver.send(.key(.enter))
        try driver.type("#")
        try assertCounts(driver, "SELECT status, count(*) FROM orders WHERE amount > 20 GROUP BY status")
        while selectedGroup(driver) != "NULL", driver.state.table?.selectedIndex ?? 99 < 4 {
            try driver.type("j")
        }
        XCTAssertEqual(selectedGroup(driver), "NULL")
        try driver.send(.key(.enter))
        XCTAssertEqual(driver.state.table?.viewed.source.filter, "(\namount > 20\n)\nAND \"status\" IS NULL")
        XCTAssertEqual(driver.state.table?.window?.rows.count, 2)
        try driver.type("qq")
        XCTAssertEqual(driver.state.table?.viewed.source.filter, "amount > 20")
        XCTAssertEqual(try driver.type("q"), [.quit])
    }

    // MARK: - Helpers

    private func rows(_ driver: ViewerDriver) -> [[String]] {
        (driver.state.table?.window?.rows ?? []).map { $0.map(Self.text) }
    }

    private func selectedGroup(_ driver: ViewerDriver) -> String? {
        driver.selected(0).map(Self.text)
    }

    /// The sheet's groups and counts, in its order, equal the database's.
    private func assertCounts(_ driver: ViewerDriver, _ sql: String, line: UInt = #line) throws {
        let expected = try groupBy(sql).split(separator: "\n").map { line -> [String] in
            let parts = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            return [parts[0].isEmpty ? "NULL" : parts[0], parts[1]]
        }
        let shown = rows(driver).map { Array($0.prefix(2)) }
        XCTAssertEqual(Set(shown), Set(expected), line: line)
        let counts = shown.map { Int($0[1]) ?? 0 }
        XCTAssertEqual(counts, counts.sorted(by: >), "most frequent first", line: line)
    }

    static func isCount(_ effect: ViewerEffect) -> Bool {
        if case .count = effect { true } else { false }
    }

    static func text(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: "NULL"
        case let .int64(integer): String(integer)
        case let .double(double): "\(double)"
        case let .string(text): text
        case .blob: "blob"
        }
    }
}
