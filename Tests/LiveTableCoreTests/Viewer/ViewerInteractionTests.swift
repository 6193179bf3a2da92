import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// How the viewer's features meet: a pause, following, a sort, a search
/// and a filter asked for one while another is under way.
final class ViewerInteractionTests: XCTestCase {
    private var path: String!
    private var driver: ViewerDriver!

    override func setUpWithError() throws {
        path = try makeItemsFile(count: 100)
        driver = try ViewerDriver(path: path, table: "item")
    }

    /// Sends the keys of `text` without performing the effects they ask
    /// for, which are returned: their results come later, as messages.
    private func press(_ text: String) -> [ViewerEffect] {
        text.flatMap { viewerUpdate(&driver.state, .key(.character($0))) }
    }

    /// Performs `effects` now, and sends their results.
    private func perform(_ effects: [ViewerEffect]) throws {
        for effect in effects {
            if let message = try performViewerEffect(effect, on: driver.database, now: driver.now) {
                try driver.send(message)
            }
        }
    }

    func testSortSearchAndFilterWaitForTheEndOfAPause() throws {
        try driver.type(" ")
        XCTAssertNotNil(driver.state.table?.paused)
        for key in ["]", "[", "/", "n", "f"] {
            XCTAssertFalse(try driver.type(key).contains { if case .open = $0 { true } else { false } }, key)
            XCTAssertNil(driver.state.prompt, key)
            XCTAssertEqual(driver.state.message, .notice("paused: Space shows the latest rows first"), key)
        }
        XCTAssertNil(driver.state.table?.viewed.ordering.sortColumn)
        XCTAssertNil(driver.state.table?.pendingSort)
    }

    func testFilterCheckedWhileThePauseBeganShowsItsRows() throws {
        _ = press("fprice > 500")
        let check = viewerUpdate(&driver.state, .key(.enter))
        _ = press(" ")
        XCTAssertNotNil(driver.state.table?.paused)
        try perform(check)
        XCTAssertNil(driver.state.table?.paused, "the filter's rows show")
        XCTAssertEqual(driver.state.table?.rowCount, 50)
        XCTAssertTrue(driver.lines[2].contains("item 051"), driver.lines.joined(separator: "\n"))
    }

    func testEscWhileAFilterIsCheckedCancelsItAndDoesNotQuit() throws {
        _ = press("fprice > 500")
        let check = viewerUpdate(&driver.state, .key(.enter))
        XCTAssertEqual(driver.state.table?.pendingFilter, "price > 500")
        XCTAssertFalse(viewerUpdate(&driver.state, .key(.escape)).contains(.quit))
        XCTAssertNil(driver.state.table?.pendingFilter)
        // The check's late result is dropped.
        try perform(check)
        XCTAssertNil(driver.state.table?.viewed.source.filter)
        XCTAssertEqual(driver.state.table?.rowCount, 100)
        XCTAssertFalse(viewerUpdate(&driver.state, .key(.escape)).contains(.quit))
    }

    func testFilterForgetsTheMarkOfFollowingStopped() throws {
        try driver.type("Fk")
        guard case .stopped? = driver.state.table?.follow else { return XCTFail("following stopped") }
        try driver.type("fprice > 500")
        try driver.send(.key(.enter))
        XCTAssertNil(driver.state.table?.follow, "the mark counted rows of the unfiltered table")
        XCTAssertEqual(driver.state.table?.rowCount, 50)
    }

    func testSortForgetsASearchUnderWay() throws {
        _ = press("l/item 00")
        let search = viewerUpdate(&driver.state, .key(.enter))
        XCTAssertNotNil(driver.state.table?.pendingSearch)
        try driver.type("l]")
        XCTAssertEqual(driver.state.table?.viewed.ordering.sortColumn, "price")
        XCTAssertNil(driver.state.table?.pendingSearch)
        // The search's late result, a position in the natural order, is dropped.
        try perform(search)
        XCTAssertEqual(driver.selected(1), "item 100".databaseValue, "sorted from the first row: the new first row")
    }

    func testEndWhileFollowingLeavesNoJumpBehind() throws {
        try driver.type("F")
        try driver.send(.key(.end))
        try driver.type("kkkkkkkkkk")
        XCTAssertEqual(driver.selected(1), "item 090".databaseValue)
        XCTAssertNotEqual(driver.state.table?.observedRequest?.anchor, .last, "the window follows the selection")
    }

    func testAKeyOfAnotherOrderingReadsTheWholeOrdering() {
        let ordering = RowOrdering(keyColumns: [
            RowOrdering.KeyColumn(expression: "price", descending: true),
            RowOrdering.KeyColumn(expression: "rowid", descending: false),
        ], isUnique: true, dialect: .sqlite)
        // A position of the natural order (its key is the rowid alone).
        for ranges in [ordering.after([1.databaseValue]), ordering.before([1.databaseValue])] {
            XCTAssertEqual(ranges.count, 1)
            XCTAssertNil(ranges.first?.condition)
        }
    }
}
