import Foundation
import XCTest

/// `livetable demo`: the walkthrough plays to its end, keys skip or quit.
final class DemoTests: LiveTableTestCase {
    func testFastDemoRunsToItsEnd() throws {
        let session = try launch(["demo", "--speed", "20"])
        let screen = try waitForExit(session, status: 0)
        XCTAssertFalse(screen.contains("Hall of Fame"), screen)
    }

    func testDemoPlaysItsStepsOnTheGivenDatabase() throws {
        let database = directory.appendingPathComponent("demo.sqlite")
        let session = try launch(["demo", "--speed", "4", "--database", database.path])
        // Each caption shows in turn.
        for caption in ["Refresh (r)", "Insert a random player (n)", "edit the player", "Toggle the ordering (o)",
                        "Delete the selected player (d)", "Stress test (s)", "Delete all players (D)"]
        {
            try session.waitForScreen(containing: caption, timeout: 5)
        }
        try waitForExit(session, status: 0)
        // The last step deletes all players.
        XCTAssertEqual(try sqlite(database, "SELECT COUNT(*) FROM player"), "0")
        XCTAssertEqual(try sqlite(database, "SELECT COUNT(*) FROM player WHERE name = 'Demo Player'"), "0")
    }

    func testAnyKeySkipsAheadAndQQuits() throws {
        // A step lasts 150 s at this speed: only keys move the demo on.
        let session = try launch(["demo", "--speed", "0.01"])
        try session.waitForScreen(containing: "Refresh (r): an empty table gets 8 random players")
        try session.send("Space")
        try session.waitForScreen(containing: "Insert a random player (n)")
        try session.send("x")
        try session.waitForScreen(containing: "Move down (j) and edit the player (e)")
        try session.send("q")
        try waitForExit(session, status: 0)
    }
}
