import LiveTableCore
import XCTest

/// Themes: dark is the colours the screen always had, light has none that
/// fades on white, mono has none; a role's colour replaces the theme's.
final class ThemeTests: XCTestCase {
    func testDarkIsTheColoursOfBefore() {
        let expected: [Color: ThemeColor] = [
            .normal: .terminalDefault, .title: .palette(6), .header: .palette(6), .border: .palette(4),
            .accent: .palette(3), .selection: .palette(3), .status: .palette(2), .error: .palette(1),
            .dim: .palette(8), .changed: .palette(3), .added: .palette(2), .null: .palette(8),
        ]
        for color in Color.allCases {
            XCTAssertEqual(Theme.dark.foreground(color), expected[color], "\(color)")
        }
    }

    func testLightHasNoYellowNorCyan() {
        for color in Color.allCases {
            XCTAssertFalse([.palette(3), .palette(6)].contains(Theme.light.foreground(color)), "\(color)")
        }
        XCTAssertNotEqual(Theme.light.foreground(.selection), Theme.dark.foreground(.selection))
    }

    func testMonoDrawsNoColour() {
        XCTAssertFalse(Theme.mono.usesColor)
        XCTAssertTrue(Theme.dark.usesColor && Theme.light.usesColor)
        XCTAssertEqual(Theme.named("light"), .light)
        XCTAssertNil(Theme.named("Light"))
    }

    func testARoleTakesItsColourOnly() {
        var theme = Theme.dark
        theme.set(.newRow, to: .palette(208))
        theme.set(.header, to: .terminalDefault)
        XCTAssertEqual(theme.foreground(.added), .palette(208))
        XCTAssertEqual(theme.foreground(.header), .terminalDefault)
        XCTAssertEqual(theme.foreground(.status), .palette(2))
        XCTAssertEqual(theme.foreground(.title), .palette(6))
    }

    func testColourNamesAndNumbers() {
        XCTAssertEqual(ThemeColor(name: "Red"), .palette(1))
        XCTAssertEqual(ThemeColor(name: "bright-white"), .palette(15))
        XCTAssertEqual(ThemeColor(name: "grey"), .palette(8))
        XCTAssertEqual(ThemeColor(name: "default"), .terminalDefault)
        XCTAssertNil(ThemeColor(name: "pink"))
        XCTAssertEqual(ThemeColor(number: 255), .palette(255))
        XCTAssertNil(ThemeColor(number: 256))
        XCTAssertNil(ThemeColor(number: -1))
    }
}
