import Foundation
import XCTest

/// Scores and names that another process stores as something the app
/// never writes (issue 7): `score INTEGER NOT NULL` keeps texts, blobs and
/// reals beyond 64-bit integers. The app shows them as stored, keeps the
/// selection on their player where SQLite sorts it, and does not crash
/// when a window is anchored on them.
final class OddValuesTests: LiveTableTestCase {
    /// The 1-based rank of a player, by score or by name, from the
    /// database: SQLite's comparisons order values of any type as its
    /// indexes do.
    private func rank(of id: String, byName: Bool, in database: URL) throws -> Int {
        let before = byName
            ? "p.name < s.name OR (p.name = s.name AND (p.score > s.score OR (p.score = s.score AND p.id < s.id)))"
            : "p.score > s.score OR (p.score = s.score AND (p.name < s.name OR (p.name = s.name AND p.id < s.id)))"
        let count = try sqlite(database, "SELECT COUNT(*) FROM player p, player s WHERE s.id = \(id) AND (\(before))")
        return try XCTUnwrap(Int(count)) + 1
    }

    /// A score as the app shows it: numbers as SQLite writes them as text,
    /// texts and blobs as SQL literals.
    private func shown(_ expression: String) -> String {
        """
        CASE typeof(\(expression)) WHEN 'text' THEN quote(\(expression)) WHEN 'blob' THEN quote(\(expression)) \
        ELSE CAST(\(expression) AS TEXT) END
        """
    }

    /// Waits until the selected player is at `rank` in the title, its row
    /// shows its name and stored score, and the max-score pane shows
    /// SQLite's `MAX(score)`.
    @discardableResult
    private func waitForSelectedPlayer(
        _ session: TmuxSession, _ database: URL, id: String, byName: Bool = false,
        file: StaticString = #filePath, line: UInt = #line) throws -> AppScreen
    {
        let rank = try rank(of: id, byName: byName, in: database)
        let row = try sqlite(database, "SELECT name || '|' || \(shown("score")) FROM player WHERE id = \(id)")
            .split(separator: "|", maxSplits: 1).map(String.init)
        let maxScore = try sqlite(database, "SELECT \(shown("MAX(score)")) FROM player")
        let text = try session.waitForScreen(
            "player \(id) (\(row)) at row \(rank), max score \(maxScore)", file: file, line: line)
        { text in
            let screen = AppScreen(text)
            return screen.title?.contains(byName ? "by name" : "by score") == true
                && screen.title?.contains("row \(rank) of 8") == true
                && screen.maxScore == maxScore
                && screen.lines.contains { $0.hasPrefix("│ \(row[0]) ") && $0.contains(" \(row[1]) │") }
        }
        return AppScreen(text)
    }

    func testSelectedPlayerWithAnOddScoreIsShownAsStoredAndKeepsTheAppRunning() throws {
        let (session, database) = try startApp()
        // The selected player: the first by score.
        let id = try sqlite(database, "SELECT id FROM player ORDER BY score DESC, name, id LIMIT 1")
        try waitForSelectedPlayer(session, database, id: id)

        for literal in ["-1e30", "'abc'", "X'00FF'", "9.9e18", "1e999", "''", "-1e999", "1.5"] {
            // Another process writes the score: the selection follows its
            // player to where SQLite sorts the new value.
            _ = try sqlite(database, "UPDATE player SET score = \(literal) WHERE id = \(id)")
            try waitForSelectedPlayer(session, database, id: id)

            // The window anchored on the player: by name, and back.
            try session.send("o")
            try waitForSelectedPlayer(session, database, id: id, byName: true)
            try session.send("o")
            try waitForSelectedPlayer(session, database, id: id)

            // Jumps and pages, then back to the player, who sorts first or
            // last whatever the odd value.
            for key in ["G", "g", "PageDown", "PageUp"] {
                try session.send(key)
            }
            try session.waitForScreen(containing: "row 1 of 8")
            let rank = try rank(of: id, byName: false, in: database)
            try session.send(rank == 1 ? "g" : "G")
            try waitForSelectedPlayer(session, database, id: id)
        }
        let screen = try waitForSelectedPlayer(session, database, id: id)
        XCTAssertTrue(screen.text.contains(" 1.5 │"), screen.text)

        _ = try sqlite(database, "UPDATE player SET score = -1e30 WHERE id = \(id)")
        XCTAssertTrue(try waitForSelectedPlayer(session, database, id: id).text.contains(" -1.0e+30 │"))
        _ = try sqlite(database, "UPDATE player SET score = 'abc' WHERE id = \(id)")
        let text = try waitForSelectedPlayer(session, database, id: id).text
        XCTAssertTrue(text.contains(" 'abc' │"), text)
        XCTAssertEqual(AppScreen(text).maxScore, "'abc'", text)

        try session.send("q")
        try waitForExit(session, status: 0)
    }

    func testSelectedPlayerWithABlobNameIsShownAndKeepsTheAppRunning() throws {
        let (session, database) = try startApp()
        let id = try sqlite(database, "SELECT id FROM player ORDER BY score DESC, name, id LIMIT 1")
        // A blob sorts after every text: the player is last by name.
        _ = try sqlite(database, "UPDATE player SET name = CAST('Zz Blob' AS BLOB) WHERE id = \(id)")
        XCTAssertEqual(try sqlite(database, "SELECT typeof(name) FROM player WHERE id = \(id)"), "blob")
        try waitForSelectedPlayer(session, database, id: id)
        try session.send("o")
        try waitForSelectedPlayer(session, database, id: id, byName: true)
        try session.send("g")
        try session.waitForScreen(containing: "row 1 of 8")
        try session.send("G")
        try waitForSelectedPlayer(session, database, id: id, byName: true)
        try session.send("q")
        try waitForExit(session, status: 0)
    }
}
