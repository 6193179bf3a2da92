import Foundation
import XCTest

/// The help overlay, and text that the terminal must draw exactly: wide
/// characters take two cells and keep the columns aligned.
final class HelpAndTextTests: LiveTableTestCase {
    func testHelpOverlayListsTheKeysAndAnyKeyClosesIt() throws {
        let (session, database) = try startApp()
        try session.send("?")
        // The whole overlay: a capture can catch it half drawn.
        let texts = ["Press any key to close", "Keys", "n or +", "insert a random player", "q, Ctrl-C",
                     "order by score / by name"]
        try session.waitForScreen("the help overlay, whole") { screen in texts.allSatisfy { screen.contains($0) } }
        try session.send("x")
        try session.waitForScreen("the overlay to close") { !$0.contains("Press any key to close") }
        XCTAssertTrue(try session.screen().contains("Hall of Fame"))
        // The list is whole again where the overlay was.
        try waitForScreenMatchingDatabase(session, database)
    }

    func testWideCharactersKeepColumnsAligned() throws {
        let (session, database) = try startApp()
        try session.send("e")
        try session.waitForScreen(containing: "Edit player")
        try session.send("C-u")
        try session.type("王小明🎉")
        try session.send("Enter")
        try waitUntil("the player to be saved") {
            try sqlite(database, "SELECT COUNT(*) FROM player WHERE name = '王小明🎉'") == "1"
        }
        let text = try session.waitForScreen(containing: "│ 王小明🎉 ")
        // Rows of the list next to a pane: "│ name   score ││ value │".
        let lines = text.components(separatedBy: "\n").filter { $0.hasPrefix("│ ") && $0.contains("││") }
        let row = try XCTUnwrap(lines.first { $0.contains("王小明🎉") }, text)
        let other = try XCTUnwrap(lines.first { !$0.contains("王小明🎉") }, text)
        // Each wide character is one character of the line but two cells.
        XCTAssertEqual(Self.cells(row), 100, row)
        XCTAssertEqual(Self.cells(other), 100, other)
        // The list box's right border stands in the same column.
        XCTAssertEqual(Self.cells(String(row[..<row.range(of: "││")!.lowerBound])),
                       Self.cells(String(other[..<other.range(of: "││")!.lowerBound])))
    }

    /// Names that start with a zero-width character keep their score in
    /// the score column, and invisible or reordering characters never
    /// reach the terminal.
    func testZeroWidthAndBidiCharactersInNamesAreNeutralized() throws {
        let (session, database) = try startApp()
        _ = try sqlite(database, """
            UPDATE player SET name = char(0x200B) || 'Hidden' WHERE id = 1;
            UPDATE player SET name = char(0xFEFF) || 'Marked' WHERE id = 2;
            UPDATE player SET name = char(0x301) || 'Accent' WHERE id = 3;
            UPDATE player SET name = char(0x202E) || 'Reversed' WHERE id = 4;
            """)
        let text = try session.waitForScreen(containing: "Reversed")
        let rows = text.components(separatedBy: "\n").filter { line in
            line.hasPrefix("│ ") && line.unicodeScalars.contains { CharacterSet.decimalDigits.contains($0) }
        }
        XCTAssertEqual(rows.count, 8, text)
        for row in rows {
            // "…  794 ││ …" or "…  794 │": one space between the score and
            // the border, in every row.
            let inner = row.split(separator: "│", omittingEmptySubsequences: false)[1]
            XCTAssertTrue(inner.hasSuffix(" ") && !inner.hasSuffix("  "), "score shifted: \(row)")
        }
        for scalar in ["\u{200B}", "\u{FEFF}", "\u{202E}"] {
            XCTAssertFalse(text.contains(scalar), "\(scalar.unicodeScalars.first!.debugDescription) reached the terminal")
        }
    }

    /// The terminal cells of text made of ASCII, box drawing, CJK
    /// ideographs and emoji.
    private static func cells(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { width, scalar in
            let wide = (0x2E80...0x9FFF).contains(scalar.value) || (0x1F300...0x1FAFF).contains(scalar.value)
            return width + (wide ? 2 : 1)
        }
    }
}
