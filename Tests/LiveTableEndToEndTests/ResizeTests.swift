import Foundation
import XCTest

/// Resizing the terminal re-lays out the app at once; a terminal too small
/// shows a short message and recovers when enlarged.
final class ResizeTests: LiveTableTestCase {
    func testResizeRelaysOut() throws {
        let (session, database) = try startApp()
        try session.resize(width: 50, height: 16)
        // tmux cuts the old lines to the new width: only the app's redraw
        // closes a border at column 50 and puts the Players pane there.
        let text = try session.waitForScreen("the narrow layout") { text in
            let lines = text.components(separatedBy: "\n")
            return lines.first?.contains("Hall of Fame") == true
                && lines.allSatisfy { $0.count <= 50 }
                && lines.contains { $0.hasPrefix("└") && $0.hasSuffix("┘") && $0.count == 50 }
                && AppScreen(text).playerCount == "8"
        }
        XCTAssertEqual(AppScreen(text).playerCount, "8")
        // Below 60 columns the panes sit above the list: it shows fewer rows.
        try waitForScreenMatchingDatabase(session, database)

        try session.resize(width: 120, height: 40)
        try session.waitForScreen("the wide layout") { text in
            text.components(separatedBy: "\n").contains { $0.hasPrefix("┌") && $0.count > 100 }
        }
        XCTAssertEqual(try waitForScreenMatchingDatabase(session, database).rows.count, 8)
    }

    func testTooSmallTerminalShowsAMessageAndRecovers() throws {
        let (session, database) = try startApp()
        let players = try sqlite(database, "SELECT group_concat(id || name || score) FROM player")
        try session.resize(width: 20, height: 5)
        let text = try session.waitForScreen(containing: "Too small: need 30x9")
        XCTAssertFalse(text.contains("Hall of Fame"), text)
        // Nothing shows what keys would do: they do nothing, no blind
        // insert or delete.
        try session.send("d", "n", "D", "y", "e", "Enter", "r")

        try session.resize(width: 1, height: 1)
        try session.waitForScreen("the 1x1 screen") { !$0.contains("Too small") }
        try session.send("n", "Delete")
        try session.resize(width: 100, height: 30)
        XCTAssertEqual(try waitForScreenMatchingDatabase(session, database).playerCount, "8")
        XCTAssertFalse(try session.screen().contains("Edit player"))
        // Keys that did nothing were read: the next write is the first.
        try session.send("n")
        try waitForPlayerCount(database, 9)
        XCTAssertEqual(try sqlite(database, "SELECT group_concat(id || name || score) FROM player WHERE id <= 8"), players)
        XCTAssertEqual(try waitForScreenMatchingDatabase(session, database).playerCount, "9")

        // Quitting works while too small.
        try session.resize(width: 20, height: 5)
        try session.waitForScreen(containing: "Too small: need 30x9")
        try session.send("q")
        try waitForExit(session, status: 0)
    }
}
