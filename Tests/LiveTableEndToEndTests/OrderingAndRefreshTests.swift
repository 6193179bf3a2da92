import Foundation
import XCTest

/// The ordering toggle, the refresh, and the stress test.
final class OrderingAndRefreshTests: LiveTableTestCase {
    func testOrderingToggleSortsByNameThenByScore() throws {
        let (session, database) = try startApp()
        try session.send("o")
        try session.waitForScreen(containing: "Hall of Fame — by name")
        try waitForScreenMatchingDatabase(session, database, orderBy: "name, score DESC, id")
        try session.send("o")
        try session.waitForScreen(containing: "Hall of Fame — by score")
        try waitForScreenMatchingDatabase(session, database)
    }

    func testRefreshGivesNewScores() throws {
        let (session, database) = try startApp()
        let snapshot = "SELECT group_concat(id || ':' || score) FROM player"
        let before = try sqlite(database, snapshot)
        let screenBefore = try AppScreen(session.screen())
        try session.send("r")
        // The refresh is one transaction: wait for it, then for its value.
        try waitUntil("the refresh to change the database") { try sqlite(database, snapshot) != before }
        let screen = try waitForScreenMatchingDatabase(session, database)
        XCTAssertNotEqual(screen.rows, screenBefore.rows)
    }

    func testStressTestEndsWithPanesMatchingTheDatabase() throws {
        let (session, database) = try startApp()
        let snapshot = "SELECT group_concat(id || ':' || score) FROM player"
        let before = try sqlite(database, snapshot)
        try session.send("s")
        try session.waitForScreen(containing: "stress test: 50 ok, 0 failed", timeout: 20)
        XCTAssertNotEqual(try sqlite(database, snapshot), before, "the refreshes changed the scores")
        let screen = try waitForScreenMatchingDatabase(session, database)
        let stats = try databaseStats(database)
        XCTAssertEqual(screen.playerCount, stats.count)
        XCTAssertEqual(screen.maxScore, stats.maxScore)
    }
}
