import Foundation
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// The mouse on the viewer: the wheel moves the selection three rows, a
/// click selects the row and column under it (the header, a column), a
/// double click opens the row; on the picker a click selects a table, a
/// double click opens it; a prompt takes no mouse event.
final class ViewerMouseTests: XCTestCase {
    private var path: String!
    private var driver: ViewerDriver!

    override func setUpWithError() throws {
        path = try makeTemporaryDirectory().appendingPathComponent("mouse.sqlite").path
        try ForeignFile.sqlite3(path, """
            CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, size INTEGER);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40)
            INSERT INTO item SELECT i, 'item' || i, i * 10 FROM n;
            CREATE TABLE other(x);
            """)
    }

    /// A 40 x 10 screen: rows of the list on lines 2 to 7.
    private func open(_ target: ViewerTarget? = .table("item")) throws {
        driver = try ViewerDriver(path: path, target: target, width: 40, height: 10)
    }

    private func mouse(_ action: MouseEvent.Action, x: Int = 1, y: Int, clicks: Int = 1) throws {
        try driver.send(.key(.mouse(MouseEvent(action, x: x, y: y, clickCount: clicks))))
    }

    private var selectedID: Int64? {
        driver.selected(0).flatMap(Int64.fromDatabaseValue)
    }

    /// On the help, too tall for the screen, the wheel scrolls it; a click closes it.
    func testTheWheelScrollsTheHelpAndAClickClosesIt() throws {
        try open()
        try driver.send(.key(.character("?")))
        try mouse(.wheelDown, y: 4)
        XCTAssertEqual(driver.state.overlay, .help(scroll: 3))
        try mouse(.wheelUp, y: 4)
        XCTAssertEqual(driver.state.overlay, .help(scroll: 0))
        XCTAssertEqual(selectedID, 1)
        try mouse(.press, y: 4)
        XCTAssertNil(driver.state.overlay)
        XCTAssertEqual(selectedID, 1)
    }

    func testTheWheelMovesTheSelectionThreeRowsANotch() throws {
        try open()
        XCTAssertEqual(selectedID, 1)
        try mouse(.wheelDown, y: 4)
        XCTAssertEqual(selectedID, 4)
        try mouse(.wheelDown, y: 4)
        try mouse(.wheelDown, y: 4)
        XCTAssertEqual(selectedID, 10)
        XCTAssertTrue(driver.lines[2].contains("5"), "the rows scrolled: \(driver.lines[2])")
        try mouse(.wheelUp, y: 4)
        XCTAssertEqual(selectedID, 7)
    }

    func testAClickSelectsTheRowAndTheColumnUnderIt() throws {
        try open()
        let header = driver.lines[1]
        let sizeX = try XCTUnwrap(header.range(of: "size")).lowerBound.utf16Offset(in: header)
        try mouse(.press, x: sizeX, y: 5)
        XCTAssertEqual(selectedID, 4)
        XCTAssertEqual(driver.state.table?.currentColumn, 2)
        // Releases and other buttons do nothing.
        try mouse(.release, x: 1, y: 2)
        try driver.send(.key(.mouse(MouseEvent(.press, button: 2, x: 1, y: 2))))
        XCTAssertEqual(selectedID, 4)
        // Below the last row, on the title or the footer: nothing.
        try mouse(.press, y: 0)
        try mouse(.press, y: 8)
        XCTAssertEqual(selectedID, 4)
        XCTAssertNil(driver.state.overlay)
    }

    func testAClickOnTheHeaderSelectsAColumn() throws {
        try open()
        let header = driver.lines[1]
        let nameX = try XCTUnwrap(header.range(of: "name")).lowerBound.utf16Offset(in: header)
        try mouse(.press, x: nameX + 1, y: 1)
        XCTAssertEqual(driver.state.table?.currentColumn, 1)
        XCTAssertEqual(selectedID, 1)
    }

    func testADoubleClickOpensTheRow() throws {
        try open()
        try mouse(.press, y: 3)
        XCTAssertNil(driver.state.overlay)
        try mouse(.press, y: 3, clicks: 2)
        XCTAssertEqual(selectedID, 2)
        XCTAssertEqual(driver.state.overlay, .row(scroll: 0))
        // In the row, the wheel scrolls it; a click leaves it open.
        try mouse(.press, y: 3)
        XCTAssertEqual(driver.state.overlay, .row(scroll: 0))
    }

    func testAClickOnThePickerSelectsATableAndADoubleClickOpensIt() throws {
        try open(nil)
        XCTAssertEqual(driver.state.picker.selectedIndex, 0)
        try mouse(.press, y: 3)
        XCTAssertEqual(driver.state.picker.selectedIndex, 1)
        XCTAssertNil(driver.state.table)
        try mouse(.press, y: 3, clicks: 2)
        XCTAssertEqual(driver.state.table?.viewed.target, .table("other"))
    }

    func testAPromptTakesNoMouseEvent() throws {
        try open()
        try driver.type("/")
        try mouse(.wheelDown, y: 4)
        try mouse(.press, y: 5)
        XCTAssertEqual(selectedID, 1)
        XCTAssertNotNil(driver.state.prompt)
    }
}
