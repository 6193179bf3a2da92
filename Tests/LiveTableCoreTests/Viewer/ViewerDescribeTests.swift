import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// `I` (issue 27 §3): a row per column of the sheet, on a SQLite file and
/// on PostgreSQL, its figures equal to each database's own aggregates; `#`
/// on a row opens its column's frequencies, Enter goes back to the sheet on
/// that column.
final class ViewerDescribeTests: XCTestCase {
    /// What the database says of `orders`, one line per column.
    private var aggregates: (String) throws -> String = { _ in "" }

    private static let figuresSQL = """
        SELECT count(status), count(*) - count(status), count(DISTINCT status), min(status), max(status) FROM orders;
        SELECT count(amount), count(*) - count(amount), count(DISTINCT amount), min(amount), max(amount), avg(amount) FROM orders;
        """

    func testSQLite() throws {
        let (driver, cli) = try ViewerFrequencyTests.ordersOnSQLite(self)
        aggregates = cli
        try checkDescribeSheet(driver)
    }

    func testPostgres() throws {
        let (driver, cli) = try ViewerFrequencyTests.ordersOnPostgres("viewerDescribe")
        aggregates = cli
        try checkDescribeSheet(driver)
    }

    /// A table of 1,000 columns, wider than one statement's target list
    /// (PostgreSQL's 1,664 entries, SQLite's 2,000 columns) and than a
    /// compound `SELECT` (SQLite's 500 terms): each column's figures.
    func testSQLiteDescribesAThousandColumns() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("wide.sqlite").path
        try ForeignFile.sqlite3(path, Self.wideTable)
        try checkWideDescribe(try ViewerDriver(path: path, table: "wide", width: 160, height: 12))
    }

    func testPostgresDescribesAThousandColumns() throws {
        let dataSource = try PostgresTestDatabase.open("viewerDescribeWide", sql: Self.wideTable)
        try checkWideDescribe(try ViewerDriver(dataSource: dataSource, target: .table("wide"), width: 160, height: 12) { _ in })
    }

    /// `wide(c1 … c1000)`: two rows, column `cN` holds N and NULL (`c1`:
    /// 1 and 0). A key: PostgreSQL's window of a table without one reads
    /// its columns twice (shown, and as the key).
    private static let wideTable = """
        CREATE TABLE wide(c1 INTEGER PRIMARY KEY, \((2...1000).map { "c\($0) INTEGER" }.joined(separator: ", ")));
        INSERT INTO wide VALUES (\((1...1000).map(String.init).joined(separator: ", ")));
        INSERT INTO wide (c1) VALUES (0);
        """

    private func checkWideDescribe(_ driver: ViewerDriver, line: UInt = #line) throws {
        try driver.type("I")
        guard case let .sheet(sheet)? = driver.state.table?.viewed.target else { return XCTFail("no sheet", line: line) }
        XCTAssertEqual(sheet.kind, .describe(figures: true), line: line)
        try driver.send(.key(.end))
        let last = try XCTUnwrap(rows(driver).last)
        // Its mean (8) as each database prints it; PostgreSQL's type in lower case.
        let type = driver.database == nil ? "integer" : "INTEGER"
        XCTAssertEqual(Array(last[0...7]) + [last[9]], ["c1000", "1000", type, "1", "1", "1", "1000", "1000", "1000"], line: line)
        XCTAssertEqual(driver.state.table?.rowCount, 1000, line: line)
    }

    /// Its `…` rows stay on screen until the figures' own first window,
    /// and a sort asked before the figures open still gets them.
    func testTheDotsStayOnScreenUntilTheFiguresAreRead() throws {
        let (driver, _) = try ViewerFrequencyTests.ordersOnSQLite(self)
        var state = driver.state
        func step(_ message: ViewerMessage, performing wanted: (ViewerEffect) -> Bool) throws -> ViewerMessage? {
            let effect = viewerUpdate(&state, message).first(where: wanted)
            return try effect.flatMap { try performViewerEffect($0, on: driver.dataSource, now: .now, countChunk: nil) }
        }
        func isOpen(figures: Bool) -> (ViewerEffect) -> Bool {
            { effect in
                guard case let .open(.sheet(sheet), _, _) = effect else { return false }
                return sheet.kind == .describe(figures: figures)
            }
        }
        let isObserve: (ViewerEffect) -> Bool = { if case .observe = $0 { true } else { false } }
        let opened = try XCTUnwrap(try step(.key(.character("I")), performing: isOpen(figures: false)))
        // Opened: its window, and the sheet with the figures, are read.
        var state0 = state
        let full = try XCTUnwrap(try step(opened, performing: isOpen(figures: true)))
        state = state0
        let window = try XCTUnwrap(try step(opened, performing: isObserve))
        _ = viewerUpdate(&state, window)
        XCTAssertEqual(state.table?.window?.rows.first?.contains("…".databaseValue), true)
        state0 = state
        // The figures open: the dots stay until their window.
        let figuresWindow = try XCTUnwrap(try step(full, performing: isObserve))
        if case let .sheet(sheet)? = state.table?.viewed.target { XCTAssertEqual(sheet.kind, .describe(figures: true)) }
        XCTAssertEqual(state.table?.window?.rows.first?.contains("…".databaseValue), true)
        let title = viewerRender(state).text.components(separatedBy: "\n")[0]
        XCTAssertTrue(title.hasSuffix("loading"), title)
        _ = viewerUpdate(&state, figuresWindow)
        XCTAssertEqual(state.table?.window?.rows.first?.contains("…".databaseValue), false)

        // A sort of the dots before the figures open: the figures follow.
        state = state0
        let sorted = try XCTUnwrap(try step(.key(.character("]")), performing: { if case .open = $0 { true } else { false } }))
        XCTAssertNotNil(try step(sorted, performing: isOpen(figures: true)), "the figures are read after the sort")
    }

    /// A filter typed on the `…` rows, checked before or after the figures
    /// open, or the figures opening while it is typed: the figures come,
    /// filtered.
    func testAFilterTypedBeforeTheFiguresOpenIsKept() throws {
        for figuresFirst in [false, true, nil] {
            let (driver, _) = try ViewerFrequencyTests.ordersOnSQLite(self)
            var state = driver.state
            func perform(_ effects: [ViewerEffect]) throws -> [ViewerMessage] {
                try effects.compactMap { try performViewerEffect($0, on: driver.dataSource, now: .now, countChunk: nil) }
            }
            func isOpen(figures: Bool) -> (ViewerMessage) -> Bool {
                { message in
                    guard case let .opened(viewed) = message, case let .sheet(sheet) = viewed.target else { return false }
                    return sheet.kind == .describe(figures: figures)
                }
            }
            var messages = try perform(viewerUpdate(&state, .key(.character("I"))))
            let dots = try XCTUnwrap(messages.first(where: isOpen(figures: false)))
            messages = try perform(viewerUpdate(&state, dots))
            let full = try XCTUnwrap(messages.first(where: isOpen(figures: true)))
            for message in messages where !isOpen(figures: true)(message) { _ = viewerUpdate(&state, message) }
            _ = viewerUpdate(&state, .key(.character("f")))
            var typing = [full]
            if figuresFirst == nil {
                while !typing.isEmpty { typing += try perform(viewerUpdate(&state, typing.removeFirst())) }
            }
            for character in "\"column\" = 'status'" { _ = viewerUpdate(&state, .key(.character(character))) }
            let filtered = try perform(viewerUpdate(&state, .key(.enter)))
            var queue = figuresFirst == true ? typing + filtered : filtered + typing
            var steps = 0
            while !queue.isEmpty, steps < 50 {
                steps += 1
                queue += try perform(viewerUpdate(&state, queue.removeFirst()))
            }
            guard case let .sheet(sheet)? = state.table?.viewed.target else { return XCTFail("no sheet") }
            XCTAssertEqual(sheet.kind, .describe(figures: true), "figures first: \(String(describing: figuresFirst))")
            XCTAssertEqual(state.table?.viewed.source.filter, "\"column\" = 'status'", "figures first: \(String(describing: figuresFirst))")
            XCTAssertEqual(state.table?.window?.rows.map { $0[1] }, ["status".databaseValue], "figures first: \(String(describing: figuresFirst))")
        }
    }

    private func checkDescribeSheet(_ driver: ViewerDriver) throws {
        // Without figures first, at once; then with them, in its place.
        let opens = try driver.type("I").compactMap { effect -> DerivedSheet? in
            guard case let .open(.sheet(sheet), _, _) = effect else { return nil }
            return sheet
        }
        XCTAssertEqual(opens.map(\.kind), [.describe(figures: false), .describe(figures: true)])
        XCTAssertEqual(driver.state.table?.viewed.target, .sheet(opens[1]))
        XCTAssertEqual(driver.state.sheets, [.table("orders")])
        XCTAssertEqual(rows(driver).map { $0[0] }, ["id", "status", "amount"])
        try assertFigures(driver)

        // Live: another process's commit changes the figures.
        try driver.commit("UPDATE orders SET status = NULL WHERE id = 11; UPDATE orders SET amount = 1000 WHERE id = 1;")
        try assertFigures(driver)

        // `#` on amount's row: its frequencies; q: back on the row.
        try driver.type("jj#")
        guard case let .sheet(frequency)? = driver.state.table?.viewed.target else { return XCTFail("no sheet") }
        XCTAssertEqual(frequency.name, "amount: frequency")
        XCTAssertEqual(driver.state.sheets.count, 2)
        try driver.type("q")
        XCTAssertEqual(driver.selected(1).map(ViewerFrequencyTests.text), "amount")
        // Enter: the orders, on the column amount.
        try driver.send(.key(.enter))
        XCTAssertEqual(driver.state.table?.viewed.target, .table("orders"))
        XCTAssertEqual(driver.state.table?.currentColumnName, "amount")
        XCTAssertEqual(driver.state.sheets, [])
    }

    /// The rows of status and amount: values, nulls, distinct, min, max
    /// (and amount's mean) as the database computes them.
    private func assertFigures(_ driver: ViewerDriver, line: UInt = #line) throws {
        let expected = try aggregates(Self.figuresSQL).split(separator: "\n").map {
            $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        }
        let shown = rows(driver)
        XCTAssertEqual(Array(shown[1][3...7]), expected[0], line: line)
        XCTAssertEqual(Array(shown[2][3...7]), Array(expected[1][0...4]), line: line)
        XCTAssertEqual(Double(shown[2][8]) ?? 0, Double(expected[1][5]) ?? -1, accuracy: 0.001, line: line)
        XCTAssertEqual(shown[1][9], "paid", "most frequent", line: line)
    }

    /// Column by column: column, #, type, then the figures, as text.
    private func rows(_ driver: ViewerDriver) -> [[String]] {
        guard let table = driver.state.table, let window = table.window else { return [] }
        let names = table.viewed.source.columnNames
        let order = ["column", "#", "type"] + DerivedSheet.describeFigures
        return window.rows.map { row in
            order.map { name in names.firstIndex(of: name).map { ViewerFrequencyTests.text(row[$0]) } ?? "?" }
        }
    }
}
