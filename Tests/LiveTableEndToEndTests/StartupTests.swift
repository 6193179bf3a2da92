import Foundation
import XCTest

/// Launching livetable: the default database, --database, --seed.
final class StartupTests: LiveTableTestCase {
    func testFirstLaunchCreatesTheDefaultDatabaseWithEightPlayers() throws {
        let session = try launch()
        let screen = try waitForScreenMatchingDatabase(session, defaultDatabase)
        XCTAssertEqual(screen.playerCount, "8")
        XCTAssertEqual(screen.rows.count, 8)
        XCTAssertEqual(try sqlite(defaultDatabase, "SELECT COUNT(*) FROM player"), "8")
        XCTAssertTrue(screen.title?.contains("Hall of Fame — by score") ?? false, screen.text)
        XCTAssertTrue(screen.title?.contains("row 1 of 8") ?? false, screen.text)
        try session.send("q")
        try waitForExit(session, status: 0)
    }

    func testNextLaunchKeepsThePlayers() throws {
        let first = try launch()
        try waitForScreenMatchingDatabase(first, defaultDatabase)
        try first.send("n")
        try first.waitForScreen("9 players") { AppScreen($0).playerCount == "9" }
        try first.send("q")
        try waitForExit(first, status: 0)

        let second = try launch()
        let screen = try waitForScreenMatchingDatabase(second, defaultDatabase)
        XCTAssertEqual(screen.playerCount, "9")
    }

    func testHomeWithoutXDGDataHome() throws {
        let home = directory.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let session = try launch(environment: ["HOME": home.path, "XDG_DATA_HOME": ""])
        let database = home.appendingPathComponent(".local/share/livetable/players.sqlite")
        let screen = try waitForScreenMatchingDatabase(session, database)
        XCTAssertEqual(screen.playerCount, "8")
    }

    func testDatabaseOptionCreatesTheFile() throws {
        let database = directory.appendingPathComponent("scores.sqlite")
        XCTAssertFalse(FileManager.default.fileExists(atPath: database.path))
        let session = try launch(["--database", database.path])
        let screen = try waitForScreenMatchingDatabase(session, database)
        XCTAssertEqual(screen.playerCount, "8")
        XCTAssertFalse(FileManager.default.fileExists(atPath: defaultDatabase.path), "the default database is left alone")
    }

    func testSeedMakesPlayersReproducible() throws {
        var screens: [[AppScreen.Row]] = []
        for name in ["a.sqlite", "b.sqlite"] {
            let database = directory.appendingPathComponent(name)
            let session = try launch(["--database", database.path, "--seed", "42"])
            screens.append(try waitForScreenMatchingDatabase(session, database).rows)
            try session.send("q")
            try waitForExit(session, status: 0)
        }
        XCTAssertEqual(screens[0].count, 8)
        XCTAssertEqual(screens[0], screens[1])
    }

    func testHelpExplainsKeysAndOptions() throws {
        let result = try Shell.run(Self.binaryPath, ["--help"])
        XCTAssertEqual(result.status, 0)
        for text in [
            "--database <path>", "--seed <n>", "--no-color", "players.sqlite", "NO_COLOR",
            "demo", "bench", "n or +", "insert a random player", "q, Ctrl-C",
        ] {
            XCTAssertTrue(result.standardOutput.contains(text), "missing \(text) in:\n\(result.standardOutput)")
        }
    }
}
