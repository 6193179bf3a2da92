import Foundation
import XCTest

/// The selection stays on its player across updates, on a table larger
/// than the window of rows that the app observes.
final class SelectionTests: LiveTableTestCase {
    /// The rank (0-based) of a player in the ordering by score, and the
    /// number of players, from the database.
    private func rank(ofPlayer id: String, in database: URL) throws -> (rank: Int, count: Int)? {
        let output = try sqlite(database, """
            SELECT (SELECT COUNT(*) FROM player p
                    WHERE p.score > s.score
                       OR (p.score = s.score AND (p.name < s.name OR (p.name = s.name AND p.id < s.id))))
                   || '|' || (SELECT COUNT(*) FROM player)
            FROM player s WHERE s.id = \(id)
            """)
        let parts = output.split(separator: "|").compactMap { Int($0) }
        return parts.count == 2 ? (parts[0], parts[1]) : nil
    }

    func testRefreshKeepsTheSelectionOnItsPlayerOutsideTheWindow() throws {
        let database = try makeDatabase(morePlayers: 292)
        // 12 rows: a few rows per page, and windows of 48 players (24 on
        // each side of the selection) out of 300.
        let session = try launch(["--database", database.path, "--seed", "1"], height: 12)
        let screen = try waitForScreenMatchingDatabase(session, database)
        XCTAssertGreaterThan(screen.rowCapacity, 1)
        for _ in 0..<10 {
            try session.send("j")
        }
        try session.waitForScreen(containing: "row 11 of 300")
        let id = try sqlite(database, "SELECT id FROM player ORDER BY score DESC, name, id LIMIT 1 OFFSET 10")

        var ranks: [Int] = []
        let scores = "SELECT group_concat(id || ':' || score) FROM player"
        for refresh in 1...4 {
            let before = try sqlite(database, scores)
            try session.send("r")
            try waitUntil("refresh \(refresh)") { try sqlite(database, scores) != before }
            let (rank, count) = try XCTUnwrap(rank(ofPlayer: id, in: database), "the seeded refreshes keep the player")
            let row = try sqlite(database, "SELECT name || '|' || score FROM player WHERE id = \(id)")
                .split(separator: "|").map(String.init)
            // The title shows the selected player's rank; its row is on
            // screen, and the edit form opens on it.
            try session.waitForScreen(containing: "row \(rank + 1) of \(count)")
            try session.waitForScreen("the selected player's row") { text in
                AppScreen(text).rows.contains(AppScreen.Row(name: row[0], score: Int(row[1])!))
            }
            try session.send("e")
            // The form is drawn whole once its score field shows: a capture
            // may catch the box before its fields.
            let form = try session.waitForScreen("the edit form") { $0.contains("Edit player") && $0.contains("Score  ") }
            XCTAssertTrue(form.contains("Name   \(row[0])"), form)
            XCTAssertTrue(form.contains("Score  \(row[1])"), form)
            try session.send("Escape")
            try session.waitForScreen("the form to close") { !$0.contains("Edit player") }
            ranks.append(rank)
        }
        // The refreshes sent the player out of the first window.
        XCTAssertTrue(ranks.contains { $0 >= 48 }, "\(ranks)")
        try session.send("q")
        try waitForExit(session, status: 0)
    }
}
