import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// Follow (`F`, like `less +F`): the view stays at the end of the ordering
/// as another process appends rows; moving away stops it and counts the
/// rows that arrive below; `F` or End resumes.
final class ViewerFollowTests: XCTestCase {
    private var path: String!
    private var driver: ViewerDriver!

    override func setUpWithError() throws {
        path = try makeItemsFile(count: 100)
    }

    /// The 6 rows of the list (height 10), trimmed.
    private var listLines: [String] {
        driver.lines[2..<8].map { $0.trimmingCharacters(in: .whitespaces) }
    }

    private var statusLine: String {
        driver.lines[9].trimmingCharacters(in: .whitespaces)
    }

    // MARK: - Following

    func testFollowSelectsTheLastRowListFullAndStaysThereAsRowsArrive() throws {
        driver = try ViewerDriver(path: path, table: "item")
        try driver.type("F")
        XCTAssertTrue(driver.lines[0].hasSuffix("row 100 of 100 · following"), driver.lines[0])
        XCTAssertEqual(driver.selected(1), "item 100".databaseValue)
        XCTAssertEqual(listLines.first, "95  item 095    950")
        XCTAssertEqual(listLines.last, "100  item 100   1000")
        XCTAssertEqual(driver.state.table?.observedRequest?.anchor, .last)

        try driver.commit("INSERT INTO item(name, price) VALUES ('new 1', 5), ('new 2', 6)")
        XCTAssertEqual(driver.selected(1), "new 2".databaseValue)
        XCTAssertEqual(listLines.suffix(2), ["101  new 1         5", "102  new 2         6"])
        XCTAssertTrue(driver.lines[0].hasSuffix("row 102 of 102 · following"), driver.lines[0])
        // The new rows are news: highlighted as added.
        let ids = try XCTUnwrap(driver.state.table?.highlighter.window?.rows.suffix(2).map(\.id))
        XCTAssertEqual(ids.map { driver.state.table?.highlighter.rowHighlight(row: $0)?.kind }, [.added, .added])
    }

    func testSearchMatchAwayFromTheEndStopsFollowing() throws {
        driver = try ViewerDriver(path: path, table: "item")
        try driver.type("F")
        try driver.type("l/item 003")
        _ = try driver.send(.key(.enter))
        XCTAssertEqual(driver.selected(1), "item 003".databaseValue)
        XCTAssertFalse(driver.state.table?.isFollowing ?? true)
        XCTAssertNotEqual(driver.state.table?.observedRequest?.anchor, .last)
        XCTAssertTrue(listLines.contains("3  item 003     30"), "\(listLines)")
        XCTAssertFalse(driver.lines[0].contains("following"), driver.lines[0])
    }

    func testFollowWithADescendingSortStaysAtTheEndOfThatOrdering() throws {
        driver = try ViewerDriver(path: path, table: "item", sort: "price", descending: true)
        try driver.type("F")
        // The end of "price ↓" is the cheapest row.
        XCTAssertEqual(driver.selected(1), "item 001".databaseValue)
        try driver.commit("INSERT INTO item(name, price) VALUES ('cheapest', 1)")
        XCTAssertEqual(driver.selected(1), "cheapest".databaseValue)
        XCTAssertEqual(listLines.last, "101  cheapest      1")
        // A row that sorts elsewhere does not move the view.
        try driver.commit("INSERT INTO item(name, price) VALUES ('dearest', 99999)")
        XCTAssertEqual(driver.selected(1), "cheapest".databaseValue)
        XCTAssertEqual(driver.state.table?.isFollowing, true)
    }

    func testMovingAwayStopsFollowingAndCountsTheNewRowsBelow() throws {
        driver = try ViewerDriver(path: path, table: "item")
        try driver.type("F")
        try driver.send(.key(.up))
        XCTAssertEqual(driver.selected(1), "item 099".databaseValue)
        XCTAssertFalse(driver.lines[0].contains("following"), driver.lines[0])
        // The window follows the selection again, not the end.
        XCTAssertNotEqual(driver.state.table?.observedRequest?.anchor, .last)
        XCTAssertEqual(statusLine, "")

        try driver.commit("INSERT INTO item(name, price) VALUES ('new 1', 5), ('new 2', 6)")
        XCTAssertEqual(driver.selected(1), "item 099".databaseValue)
        XCTAssertEqual(statusLine, "2 new rows ↓")
        try driver.commit("INSERT INTO item(name, price) VALUES ('new 3', 7)")
        XCTAssertEqual(statusLine, "3 new rows ↓")

        // More than the window holds below the selection: estimated from
        // the row count, with "~".
        try driver.commit("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40)
            INSERT INTO item(name, price) SELECT 'more', i FROM n;
            """)
        XCTAssertEqual(driver.state.table?.window?.reachesEnd, false)
        XCTAssertEqual(statusLine, "~43 new rows ↓")

        // End resumes following: the last row, and no count any longer.
        try driver.send(.key(.end))
        XCTAssertEqual(driver.state.table?.isFollowing, true)
        XCTAssertEqual(driver.selected(0), 143.databaseValue)
        XCTAssertTrue(driver.lines[0].hasSuffix("row 143 of 143 · following"), driver.lines[0])
        XCTAssertEqual(statusLine, "")
    }

    func testFResumesAndFAgainStopsWithoutCounting() throws {
        driver = try ViewerDriver(path: path, table: "item")
        try driver.type("F")
        try driver.send(.key(.pageUp))
        try driver.commit("INSERT INTO item(name, price) VALUES ('new 1', 5)")
        XCTAssertEqual(statusLine, "1 new row ↓")
        try driver.type("F")
        XCTAssertEqual(driver.selected(1), "new 1".databaseValue)
        XCTAssertEqual(driver.state.table?.isFollowing, true)
        try driver.type("F")
        XCTAssertNil(driver.state.table?.follow)
        try driver.commit("INSERT INTO item(name, price) VALUES ('new 2', 6)")
        XCTAssertEqual(driver.selected(1), "new 1".databaseValue)
        XCTAssertEqual(statusLine, "")
    }

    func testEndWithoutFollowIsAJumpThatDoesNotFollow() throws {
        driver = try ViewerDriver(path: path, table: "item")
        try driver.send(.key(.end))
        XCTAssertEqual(driver.selected(1), "item 100".databaseValue)
        XCTAssertNil(driver.state.table?.follow)
        XCTAssertTrue(driver.lines[0].hasSuffix("· live"), driver.lines[0])
        try driver.commit("INSERT INTO item(name, price) VALUES ('new 1', 5)")
        XCTAssertEqual(driver.selected(1), "item 100".databaseValue)
    }

    func testDeletingTheRowFollowingStoppedAtEstimatesFromTheCount() throws {
        driver = try ViewerDriver(path: path, table: "item")
        try driver.type("F")
        try driver.send(.key(.up))
        // The row that was last is gone: the rows below it can not be
        // counted in the window; the row count says 2 more, minus 1.
        try driver.commit("DELETE FROM item WHERE id = 100; INSERT INTO item(id, name, price) VALUES (200, 'a', 1), (201, 'b', 2)")
        XCTAssertTrue(statusLine.hasPrefix("~1 new row ↓"), statusLine)
    }

    func testResizeWhileFollowingKeepsTheListFullAtTheEnd() throws {
        driver = try ViewerDriver(path: path, table: "item")
        try driver.type("F")
        try driver.send(.resize(width: 60, height: 14))
        XCTAssertEqual(driver.selected(1), "item 100".databaseValue)
        let table = try XCTUnwrap(driver.state.table)
        XCTAssertEqual(table.selectedRow, 9)
        XCTAssertEqual(table.observedRequest?.before, 30)
    }
}
