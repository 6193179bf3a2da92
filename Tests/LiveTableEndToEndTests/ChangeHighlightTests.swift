import Foundation
import XCTest

/// Change highlighting on the real binary: another process (the `sqlite3`
/// command) updates a visible player's score; that cell, and only it, is
/// highlighted, then plain again within a few seconds. Colours and
/// attributes are read with `capture-pane -e`.
final class ChangeHighlightTests: LiveTableTestCase {
    /// The score that the other process gives: on no other cell.
    private let newScore = "77777"

    /// Gives the lowest-scored player `newScore` with the sqlite3 command,
    /// and returns its name.
    private func updateLowestScore(_ database: URL) throws -> String {
        let name = try sqlite(database, "SELECT name FROM player ORDER BY score, name, id LIMIT 1")
        _ = try sqlite(database, "UPDATE player SET score = \(newScore) WHERE name = '\(name.replacingOccurrences(of: "'", with: "''"))'")
        return name
    }

    /// Waits until the new score shows, and returns the codes it first
    /// shows with, and those of the player's name then.
    private func firstCodes(
        _ session: TmuxSession, name: String,
        file: StaticString = #filePath, line: UInt = #line) throws -> (score: Set<String>, name: Set<String>?)
    {
        var result: (Set<String>, Set<String>?)?
        try waitUntil("the new score on screen", file: file, line: line) {
            let lines = try session.styledLines()
            guard let codes = lines.codes(of: newScore) else { return false }
            result = (codes, lines.codes(of: name))
            return true
        }
        return try XCTUnwrap(result, file: file, line: line)
    }

    /// Waits until the new score is drawn with `codes`.
    private func waitForScore(
        _ session: TmuxSession, codes: Set<String>, _ description: String,
        file: StaticString = #filePath, line: UInt = #line) throws
    {
        try waitUntil(description, timeout: 10, file: file, line: line) {
            try session.styledLines().codes(of: newScore) == codes
        }
    }

    func testUpdateOfAnotherProcessIsHighlightedThenPlain() throws {
        let (session, database) = try startApp()
        let name = try updateLowestScore(database)
        let (score, nameCodes) = try firstCodes(session, name: name)
        // Yellow and bold, reversed (or underlined, if the capture came
        // late): the changed cell only, not the name of its row.
        XCTAssertTrue(score.contains("33"), "\(score)")
        XCTAssertTrue(score.contains("1"), "\(score)")
        XCTAssertTrue(score.contains("7") || score.contains("4"), "\(score)")
        XCTAssertEqual(nameCodes, [], "\(String(describing: nameCodes))")
        try waitForScore(session, codes: [], "the highlight faded")
    }

    func testNoColorHighlightIsReverseThenBoldUnderline() throws {
        let (session, database) = try startApp(environment: ["NO_COLOR": "1"])
        try assertMonochromeHighlight(session, database)
    }

    func testNoColorOptionHighlightIsReverseThenBoldUnderline() throws {
        let database = directory.appendingPathComponent("players.sqlite")
        let session = try launch(["--database", database.path, "--seed", "1", "--no-color"])
        try waitForScreenMatchingDatabase(session, database)
        try assertMonochromeHighlight(session, database)
    }

    private func assertMonochromeHighlight(
        _ session: TmuxSession, _ database: URL, file: StaticString = #filePath, line: UInt = #line) throws
    {
        let name = try updateLowestScore(database)
        let (score, _) = try firstCodes(session, name: name, file: file, line: line)
        XCTAssertTrue(score == ["1", "7"] || score == ["1", "4"], "\(score)", file: file, line: line)
        try waitForScore(session, codes: ["1", "4"], "the faint highlight, bold and underlined", file: file, line: line)
        try waitForScore(session, codes: [], "the highlight faded", file: file, line: line)
    }

    func testHighlightKeyTurnsItOff() throws {
        let (session, database) = try startApp()
        // j shows when the keys before it have been read.
        try session.send("H", "j")
        try session.waitForScreen(containing: "row 2 of 8")
        let name = try updateLowestScore(database)
        let (score, _) = try firstCodes(session, name: name)
        XCTAssertEqual(score, [])
    }
}
