import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// Pause (Space): the screen stays as it is while another process goes on
/// committing; the title counts the changes; Space again shows the latest,
/// what changed meanwhile highlighted.
final class ViewerPauseTests: XCTestCase {
    private var path: String!
    private var driver: ViewerDriver!

    override func setUpWithError() throws {
        path = try makeItemsFile(count: 100, indexed: false)
        driver = try ViewerDriver(path: path, table: "item")
    }

    /// The highlight of cell `column` of the row whose id is `id`.
    private func highlight(id: Int64, column: Int) throws -> CellHighlight? {
        let table = try XCTUnwrap(driver.state.table)
        let row = try XCTUnwrap(table.window?.rows.firstIndex { $0[0] == id.databaseValue })
        let rowID = try XCTUnwrap(table.highlighter.window?.rows[row].id)
        return table.highlighter.highlight(row: rowID, cell: column)
    }

    func testPausedScreenStaysAndCountsChangesThenSpaceShowsTheLatest() throws {
        try driver.type(" ")
        let frozen = driver.lines
        XCTAssertTrue(frozen[0].hasSuffix("row 1 of 100 · paused — 0 changes"), frozen[0])

        driver.clock = .seconds(1)
        try driver.commit("UPDATE item SET price = 31 WHERE id = 3")
        try driver.commit("INSERT INTO item(id, name, price) VALUES (0, 'first', 0)")
        try driver.commit("UPDATE item SET price = 32 WHERE id = 3")
        var lines = driver.lines
        XCTAssertTrue(lines[0].hasSuffix("row 1 of 100 · paused — 3 changes"), lines[0])
        // Everything but the title is as it was.
        XCTAssertEqual(Array(lines.dropFirst()), Array(frozen.dropFirst()))
        XCTAssertEqual(driver.state.table?.window?.rows.first?[1], "item 001".databaseValue)

        driver.clock = .seconds(5)
        let effects = try driver.type(" ")
        XCTAssertEqual(effects.first, .resume)
        lines = driver.lines
        XCTAssertFalse(lines[0].contains("paused"), lines[0])
        XCTAssertTrue(lines[0].hasSuffix("row 2 of 101 · live"), lines[0])
        // The new first row is in the window, above the selection, which
        // keeps its place on the screen.
        XCTAssertEqual(driver.state.table?.window?.rows.first?[1], "first".databaseValue)
        XCTAssertTrue(lines.contains { $0.contains("item 003     32") }, lines.joined(separator: "\n"))
        // What changed during the pause lights up from the resume.
        XCTAssertEqual(try highlight(id: 3, column: 2), CellHighlight(kind: .changed, level: .strong))
        XCTAssertEqual(try highlight(id: 0, column: 1), CellHighlight(kind: .added, level: .strong))
        XCTAssertNil(try highlight(id: 2, column: 2))
        XCTAssertEqual(driver.state.highlightTimer, driver.start + .seconds(5) + .milliseconds(600))
    }

    func testNarrowTitleStillSaysPaused() throws {
        try driver.type(" ")
        try driver.send(.resize(width: 30, height: 10))
        XCTAssertEqual(driver.lines[0], " items.sqlite — item   paused")
    }

    func testNavigationWhilePausedMovesInTheFrozenWindowWithoutObserving() throws {
        try driver.type(" ")
        _ = driver.takeEffects()
        try driver.type("jjjjjjjjjj")
        XCTAssertEqual(driver.selected(1), "item 011".databaseValue)
        try driver.send(.key(.end))
        let window = try XCTUnwrap(driver.state.table?.window)
        XCTAssertEqual(driver.selected(0), window.rows.last?[0])
        XCTAssertEqual(window.reachesEnd, false)
        try driver.send(.resize(width: 60, height: 12))
        XCTAssertEqual(driver.takeEffects().filter { if case .observe = $0 { true } else { false } }, [])

        // On resume the window follows the selection again.
        try driver.commit("UPDATE item SET name = 'renamed' WHERE id = 1")
        try driver.type(" ")
        XCTAssertEqual(driver.selected(0), window.rows.last?[0])
        XCTAssertTrue(driver.takeEffects().contains { if case .observe = $0 { true } else { false } })
    }

    func testSecondSpaceBeforeTheResumeKeepsThePause() throws {
        try driver.type(" ")
        // Space, Space: the resume asked for by the first is not taken.
        _ = viewerUpdate(&driver.state, .key(.character(" ")))
        _ = viewerUpdate(&driver.state, .key(.character(" ")))
        try driver.send(.resumed(now: driver.now))
        XCTAssertNotNil(driver.state.table?.paused)
    }

    func testKeysTypedWhileResumingActOnTheLatestWindow() throws {
        try driver.type(" ")
        try driver.commit("INSERT INTO item(id, name, price) VALUES (0, 'first', 0)")
        try driver.type("jjj")
        XCTAssertEqual(driver.selected(1), "item 004".databaseValue)
        // Space, then j before the time stamp of the resume comes back.
        XCTAssertEqual(viewerUpdate(&driver.state, .key(.character(" "))), [.resume])
        XCTAssertEqual(viewerUpdate(&driver.state, .key(.character("j"))), [])
        XCTAssertEqual(driver.selected(1), "item 004".databaseValue)
        try driver.send(.resumed(now: driver.now))
        XCTAssertNil(driver.state.table?.paused)
        XCTAssertEqual(driver.selected(1), "item 005".databaseValue)
    }

    func testMovingUpWhilePausedStopsFollowingAndTheResumeFollowsTheSelection() throws {
        try driver.type("F")
        try driver.type(" ")
        try driver.type("k")
        XCTAssertEqual(driver.selected(1), "item 099".databaseValue)
        XCTAssertEqual(driver.state.table?.observedRequest?.anchor, .last)
        try driver.commit("INSERT INTO item(name, price) VALUES ('new', 1)")
        try driver.type(" ")
        XCTAssertEqual(driver.selected(1), "item 099".databaseValue)
        XCTAssertEqual(driver.state.table?.observedRequest?.anchor, .position(RowPosition(key: [99.databaseValue])))
        XCTAssertEqual(driver.lines[9].trimmingCharacters(in: .whitespaces), "1 new row ↓")
    }

    func testFWhilePausedResumesAndFollows() throws {
        try driver.type(" ")
        try driver.commit("INSERT INTO item(name, price) VALUES ('new', 1)")
        try driver.type("F")
        XCTAssertNil(driver.state.table?.paused)
        XCTAssertEqual(driver.selected(1), "new".databaseValue)
        XCTAssertTrue(driver.lines[0].hasSuffix("· following"), driver.lines[0])
    }

    func testFollowingPausedKeepsTheFrozenEndThenShowsTheNewEnd() throws {
        try driver.type("F")
        try driver.type(" ")
        try driver.commit("INSERT INTO item(name, price) VALUES ('new 1', 1), ('new 2', 2)")
        XCTAssertEqual(driver.selected(1), "item 100".databaseValue)
        XCTAssertTrue(driver.lines[0].hasSuffix("row 100 of 100 · paused — 2 changes"), driver.lines[0])
        try driver.type(" ")
        XCTAssertEqual(driver.selected(1), "new 2".databaseValue)
        XCTAssertTrue(driver.lines[0].hasSuffix("row 102 of 102 · following"), driver.lines[0])
    }
}
