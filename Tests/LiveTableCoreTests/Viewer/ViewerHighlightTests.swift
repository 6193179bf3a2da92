import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// Change highlighting in the viewer: windows delivered after another
/// process's commits are compared by row identity, with time injected by
/// the messages, as the app loop stamps them.
final class ViewerHighlightTests: XCTestCase {
    private var path: String!
    /// The one viewer driver: time is injected, from its start.
    private var driver: ViewerDriver!

    override func setUpWithError() throws {
        path = try makeItemsFile(count: 12, indexed: false)
    }

    // MARK: - Driving

    private var state: ViewerState { driver.state }
    private var start: ContinuousClock.Instant { driver.start }

    private func open(sort: String? = nil) throws {
        driver = try ViewerDriver(path: path, table: "item", sort: sort, height: 12)
    }

    /// Sends a message, performing the effects it asks for with the window
    /// stamped `at` after the start; returns every effect.
    @discardableResult
    private func send(_ message: ViewerMessage, at offset: Duration) throws -> [ViewerEffect] {
        driver.clock = offset
        return try driver.send(message)
    }

    /// Another process commits `sql`; the observation delivers its window again.
    @discardableResult
    private func commit(_ sql: String, at offset: Duration) throws -> [ViewerEffect] {
        driver.clock = offset
        return try driver.commit(sql)
    }

    /// The highlight of the cell `column` of the row whose id is `id`.
    private func highlight(id: Int64, column: Int) throws -> CellHighlight? {
        let table = try XCTUnwrap(state.table)
        let window = try XCTUnwrap(table.window)
        let row = try XCTUnwrap(window.rows.firstIndex { $0[0] == id.databaseValue }, "\(window.rows.map { $0[0] })")
        let rowID = try XCTUnwrap(table.highlighter.window?.rows[row].id)
        return table.highlighter.highlight(row: rowID, cell: column)
    }

    // MARK: - Tests

    func testChangedCellIsHighlightedByIdentityAndRendered() throws {
        try open()
        XCTAssertNil(try highlight(id: 3, column: 2))
        try commit("UPDATE item SET price = 31 WHERE id = 3", at: .milliseconds(100))
        XCTAssertEqual(try highlight(id: 3, column: 2), CellHighlight(kind: .changed, level: .strong))
        XCTAssertNil(try highlight(id: 3, column: 1))
        XCTAssertNil(try highlight(id: 4, column: 2))
        // Row 3 is on screen row 4 (title, header, rows 1, 2): its price cell reversed.
        let screen = viewerRender(state)
        let line = screen.text.components(separatedBy: "\n")[4]
        let x = try XCTUnwrap(line.range(of: "31")).lowerBound.utf16Offset(in: line)
        XCTAssertEqual(screen.style(x: x, y: 4)?.reverse, true)
        XCTAssertEqual(screen.style(x: 0, y: 4)?.reverse, false)
    }

    func testMovedRowIsNotChanged() throws {
        try open(sort: "price")
        // Item 1 moves to the end by its price: only that cell changed;
        // the others moved up a row, unchanged.
        try commit("UPDATE item SET price = 1000 WHERE id = 1", at: .milliseconds(100))
        XCTAssertEqual(try highlight(id: 1, column: 2)?.kind, .changed)
        XCTAssertNil(try highlight(id: 2, column: 2))
        XCTAssertNil(try highlight(id: 2, column: 1))
    }

    func testNewRowIsAddedAndTheTitleShowsTheCountChange() throws {
        try open()
        try send(.counted(12), at: .zero)
        try commit("INSERT INTO item(id, name, price) VALUES (0, 'first', 0)", at: .milliseconds(100))
        XCTAssertEqual(try highlight(id: 0, column: 1), CellHighlight(kind: .added, level: .strong))
        XCTAssertNil(try highlight(id: 1, column: 1))
        // The count's pause ends: the commit is counted.
        try send(.countPauseEnded, at: .milliseconds(100))
        try send(.counted(13), at: .milliseconds(100))
        XCTAssertTrue(viewerRender(state).text.hasPrefix(" items.sqlite — item +1"))
        // A key is a look: the change counts from there.
        try send(.key(.character("?")), at: .milliseconds(200))
        try send(.key(.escape), at: .milliseconds(200))
        XCTAssertFalse(viewerRender(state).text.contains("+1"))
    }

    func testNavigationHighlightsNothing() throws {
        try open()
        // A row inserted unseen, then the user's own jump: the window of
        // another request shows it, but it is not news.
        try ForeignFile.sqlite3(path, "INSERT INTO item(id, name, price) VALUES (0, 'first', 0)")
        try send(.key(.end), at: .milliseconds(100))
        XCTAssertNil(try highlight(id: 0, column: 1))
        XCTAssertNil(state.table?.highlighter.nextDeadline)
        XCTAssertNil(state.highlightTimer)
    }

    func testHighlightFadesByInjectedTimeWithOneTimer() throws {
        try open()
        let effects = try commit("UPDATE item SET name = 'renamed' WHERE id = 2", at: .seconds(1))
        XCTAssertEqual(effects.filter { if case .highlightTimer = $0 { true } else { false } },
                       [.highlightTimer(at: start + .seconds(1) + .milliseconds(600))])
        try send(.highlightTick(start + .milliseconds(1700)), at: .zero)
        XCTAssertEqual(try highlight(id: 2, column: 1), CellHighlight(kind: .changed, level: .faint))
        XCTAssertEqual(state.highlightTimer, start + .seconds(3))
        // The last fade: the timer that fired is not set again.
        let last = try send(.highlightTick(start + .seconds(3)), at: .zero)
        XCTAssertNil(try highlight(id: 2, column: 1))
        XCTAssertEqual(last, [])
        XCTAssertNil(state.highlightTimer)
    }

    func testNewColumnsStartAfresh() throws {
        try open()
        // Every row has one more cell: not a change of every row.
        try commit("ALTER TABLE item ADD COLUMN note TEXT", at: .milliseconds(100))
        XCTAssertEqual(state.table?.viewed.source.columnNames.count, 4)
        XCTAssertNil(try highlight(id: 1, column: 3))
        XCTAssertNil(state.table?.highlighter.nextDeadline)
        try commit("UPDATE item SET note = 'x' WHERE id = 1", at: .milliseconds(200))
        XCTAssertEqual(try highlight(id: 1, column: 3)?.kind, .changed)
    }

    func testHTogglesHighlighting() throws {
        try open()
        try send(.key(.character("H")), at: .zero)
        try commit("UPDATE item SET price = 31 WHERE id = 3", at: .milliseconds(100))
        XCTAssertNil(try highlight(id: 3, column: 2))
        XCTAssertNil(state.highlightTimer)
        try send(.key(.character("H")), at: .milliseconds(200))
        try commit("UPDATE item SET price = 32 WHERE id = 3", at: .milliseconds(300))
        XCTAssertEqual(try highlight(id: 3, column: 2)?.kind, .changed)
    }
}
