import XCTest
@testable import LiveTableCore

final class ScreenTests: XCTestCase {
    func testNewScreenIsBlank() {
        let screen = Screen(width: 3, height: 2)
        XCTAssertEqual(screen.cells.count, 6)
        XCTAssertTrue(screen.cells.allSatisfy { $0 == Cell() })
    }

    func testNegativeSizeIsEmpty() {
        let screen = Screen(width: -1, height: 5)
        XCTAssertEqual(screen.width, 0)
        XCTAssertEqual(screen.cells.count, 0)
    }
}
