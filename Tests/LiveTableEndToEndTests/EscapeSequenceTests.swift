import Foundation
import XCTest

/// Keys that terminals send as escape sequences: they must never be read as
/// Esc, which quits.
final class EscapeSequenceTests: LiveTableTestCase {
    /// Under tmux with TERM=xterm-256color, Home and End arrive as
    /// `ESC [1~` and `ESC [4~`, which xterm's terminfo does not list; Alt+a
    /// arrives as `ESC a`.
    func testUnknownSequencesAndAltLettersDoNotQuit() throws {
        let (session, database) = try startApp(environment: ["TERM": "xterm-256color"])
        for sequence in ["\u{1B}[4~", "\u{1B}[8~", "\u{1B}[F", "\u{1B}OF"] {
            try session.send("Home")
            try session.waitForScreen(containing: "row 1 of 8")
            try session.type(sequence)
            try session.waitForScreen("End (\(sequence.debugDescription)) selects the last row") {
                $0.contains("row 8 of 8")
            }
        }
        for sequence in ["\u{1B}[1~", "\u{1B}[7~", "\u{1B}[H", "\u{1B}OH"] {
            try session.send("End")
            try session.waitForScreen(containing: "row 8 of 8")
            try session.type(sequence)
            try session.waitForScreen("Home (\(sequence.debugDescription)) selects the first row") {
                $0.contains("row 1 of 8")
            }
        }
        try session.send("M-a", "M-q", "M-[", "F5")
        try session.send("n")
        try waitForPlayerCount(database, 9)
        XCTAssertEqual(try waitForScreenMatchingDatabase(session, database).playerCount, "9", "still running")

        // A lone Esc is still Esc: it closes the help.
        try session.send("?")
        try session.waitForScreen(containing: "Press any key to close")
        try session.send("Escape")
        try session.waitForScreen("the help closed") { !$0.contains("Press any key to close") }
        try session.send("q")
        try waitForExit(session, status: 0)
    }
}
