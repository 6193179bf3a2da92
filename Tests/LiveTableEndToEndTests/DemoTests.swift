import Foundation
import XCTest

/// `livetable demo`: the walkthrough plays to its end, keys skip or quit,
/// and a file that holds players is only changed once the user says yes.
///
/// Apart from the first test, the demo runs at a speed where a step lasts
/// 150 seconds: keys move it on, so that each step is checked whatever the
/// load of the machine.
final class DemoTests: LiveTableTestCase {
    /// A step lasts 150 s at this speed: only keys move the demo on.
    private let slowSpeed = "0.01"

    /// The captions of the walkthrough on an empty table.
    private enum Caption {
        static let populate = "Refresh (r): an empty table gets 8 random players"
        static let insert = "Insert a random player (n)"
        static let edit = "Move down (j) and edit the player (e): type a name and a score, Enter saves"
        static let order = "Toggle the ordering (o): by name"
        static let refresh = "Refresh (r): new random scores, maybe a player more or less"
        static let delete = "Delete the selected player (d)"
        static let stressTest = "Stress test (s): 50 concurrent refreshes"
        static let deleteAll = "Delete all players (D), and confirm (y)"
        /// The first step of the viewer's part.
        static let viewer = "livetable view: any SQLite file, read-only; another program writes this one, live"
    }

    func testFastDemoRunsToItsEndAndLeavesAnEmptyTable() throws {
        let database = directory.appendingPathComponent("demo.sqlite")
        let temporary = try makeTemporaryDirectory()
        let session = try launch(
            ["demo", "--speed", "20", "--database", database.path], environment: ["TMPDIR": temporary.path])
        let screen = try waitForExit(session, status: 0, timeout: 60)
        XCTAssertFalse(screen.contains("Hall of Fame"), screen)
        XCTAssertFalse(screen.contains("shop.sqlite"), screen)
        XCTAssertEqual(try sqlite(database, "SELECT COUNT(*) FROM player"), "0")
        // The viewer's file is gone with the demo.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: temporary.path), [])
    }

    /// The demo's last part: the viewer on a file that another connection
    /// writes meanwhile, which the screen follows; the file is removed at
    /// the end.
    func testDemoEndsWithTheViewerOnAFileAnotherConnectionWrites() throws {
        let temporary = try makeTemporaryDirectory()
        let session = try launch(["demo", "--speed", slowSpeed], environment: ["TMPDIR": temporary.path])
        for caption in [Caption.populate, Caption.insert, Caption.edit, Caption.order, Caption.refresh,
                        Caption.delete, Caption.stressTest, Caption.deleteAll]
        {
            try session.waitForScreen(containing: caption, timeout: 30)
            try session.send("Space")
        }
        try session.waitForScreen(containing: Caption.viewer)
        let files = try FileManager.default.contentsOfDirectory(atPath: temporary.path)
        XCTAssertEqual(files.count, 1, "\(files)")
        let shop = temporary.appendingPathComponent(try XCTUnwrap(files.first)).appendingPathComponent("shop.sqlite")

        // Another connection inserts orders: the count in the title grows,
        // with no key pressed, to what the file holds.
        let first = try session.waitForScreen("the row count") { Self.orderCount($0) != nil }
        let count = try XCTUnwrap(Self.orderCount(first))
        try session.waitForScreen("more orders", timeout: 10) { (Self.orderCount($0) ?? 0) > count + 1 }
        XCTAssertGreaterThan(Int(try sqlite(shop, "SELECT COUNT(*) FROM orders")) ?? 0, count + 1)
        XCTAssertEqual(try sqlite(shop, "PRAGMA journal_mode"), "delete")

        // Each step's keys are pressed when the next one starts (the
        // demo's pace is one step in 150 s here).
        try session.send("Space")
        try session.waitForScreen(containing: "Move down (j j j): the selection stays on its row while rows change")
        try session.send("Space")
        try session.waitForScreen(containing: "End (G): the last rows; new orders arrive after them, and the count grows")
        try session.waitForScreen(containing: "row 4 of")
        try session.send("Space")
        try session.waitForScreen(containing: "Columns (l l): > widens the current one, - hides it; the key column stays left")
        try session.send("Space")
        try session.waitForScreen(containing: "= shows the hidden columns again")
        // The item column, hidden.
        try session.waitForScreen("item hidden") { $0.contains("customer  quantity") }
        try session.send("Space")
        try session.waitForScreen(containing: "/ searches the column (← l: customer) in SQL, over the whole table")
        try session.waitForScreen("item shown again") { $0.contains("customer  item") }
        // The last of the first orders, at the end with the new ones.
        try session.waitForScreen("the last rows") { $0.contains(" 120  ") && !$0.contains(" 1  Arthur") }
        try session.send("Space")
        try session.waitForScreen(containing: "f filters by a SQL expression: status = 'new'")
        // The search wrapped from the end to the first order of Zoé, the 18th.
        try session.waitForScreen(containing: "row 18 of")
        try session.send("Space")
        try session.waitForScreen(containing: "Esc clears the filter")
        try session.waitForScreen(containing: "where status = 'new'")
        try session.send("Space")
        try session.waitForScreen(containing: "Enter: the whole row, every column")
        // The rows of the whole table back, a row selected: Enter, pressed
        // with the next Space, has a row to open (before the window came,
        // it would open nothing, and the follow step's Enter would open it).
        try session.waitForScreen("the filter cleared, a row selected") {
            !$0.contains("where status") && $0.range(of: #"row [0-9,]+ of"#, options: .regularExpression) != nil
        }
        try session.send("Space")
        try session.waitForScreen(containing: "F: follow, like less +F: the view stays on the last row as new orders arrive")
        try session.waitForScreen(containing: "┌ Row")
        try session.send("Space")
        try session.waitForScreen(containing: "Space pauses: the rows stay as they are while orders arrive")
        // The keys of the follow step: the whole row closed, then F: the
        // last row selected as the orders arrive.
        let following = try session.waitForScreen("the last row followed") { Self.followedRow($0) != nil }
        XCTAssertFalse(following.contains("┌ Row"), following)
        let last = try XCTUnwrap(Self.followedRow(following))
        try session.waitForScreen("a new last row followed", timeout: 10) { (Self.followedRow($0) ?? 0) > last }
        try session.send("Space")
        try session.waitForScreen(containing: "Space again shows the latest rows")
        // The pause step's Space: the screen paused, the orders that keep
        // arriving counted.
        try session.waitForScreen(containing: "paused — ")
        try session.send("Space")
        try session.waitForScreen(containing: "F again stops; ← → to total, then ]: the whole table sorted by total")
        try session.waitForScreen("the latest rows again") { Self.followedRow($0) != nil && !$0.contains("paused") }
        try session.send("Space")
        try session.waitForScreen(containing: "t: the table picker, with row counts")
        // The keys of the sort step: sorted by total, largest first.
        try session.waitForScreen(containing: "shop.sqlite — orders · by total ↓")
        try session.waitForScreen(containing: "customer")
        try session.send("Space")
        try session.waitForScreen(containing: "livetable view FILE [TABLE] shows your own files")
        try session.waitForScreen("the picker") { screen in
            screen.split(separator: "\n").contains { $0.hasPrefix(" orders") && $0.contains("table") }
        }
        try session.send("Space")
        try waitForExit(session, status: 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: temporary.path), [])
    }

    /// The selected row in the viewer's title when it is the last and the
    /// view follows it: 121 for "row 121 of 121 · following".
    private static func followedRow(_ screen: String) -> Int? {
        guard let title = screen.split(separator: "\n").first(where: { $0.contains("shop.sqlite — orders") }),
              let match = title.range(of: #"row ([0-9,]+) of \1 · following"#, options: .regularExpression)
        else { return nil }
        return Int(title[match].split(separator: " ")[1].filter(\.isNumber))
    }

    /// The row count in the viewer's title: "row 4 of 121 · live" or
    /// "121 rows · live".
    private static func orderCount(_ screen: String) -> Int? {
        guard let title = screen.split(separator: "\n").first(where: { $0.contains("shop.sqlite — orders") }),
              let match = title.range(of: #"(of |  )[0-9,]+( rows)? · live"#, options: .regularExpression)
        else { return nil }
        return Int(title[match].filter(\.isNumber))
    }

    func testDemoPlaysEachStepOnANewDatabase() throws {
        let database = directory.appendingPathComponent("demo.sqlite")
        let session = try launch(["demo", "--speed", slowSpeed, "--database", database.path])

        /// Skips to the next step, which plays the rest of the current one
        /// at once, and waits for the caption of the next step.
        func next(_ caption: String, line: UInt = #line) throws {
            try session.send("Space")
            try session.waitForScreen(containing: caption, line: line)
        }

        try session.waitForScreen(containing: Caption.populate)
        let empty = try waitForScreenMatchingDatabase(session, database)
        XCTAssertTrue(empty.showsNoPlayer, empty.text)

        try next(Caption.insert)
        try waitForPlayerCount(database, 8)
        try waitForScreenMatchingDatabase(session, database)

        try next(Caption.edit)
        try waitForPlayerCount(database, 9)
        try waitForScreenMatchingDatabase(session, database)

        try next(Caption.order)
        try waitUntil("the edited player") {
            try sqlite(database, "SELECT COUNT(*) FROM player WHERE name = 'Demo Player' AND score = 1000") == "1"
        }

        try next(Caption.refresh)
        try session.waitForScreen(containing: "Hall of Fame — by name")
        try waitForScreenMatchingDatabase(session, database, orderBy: "name, score DESC, id")
        let scores = "SELECT group_concat(id || ':' || score) FROM player"
        let beforeRefresh = try sqlite(database, scores)

        try next(Caption.delete)
        try waitUntil("the refresh") { try sqlite(database, scores) != beforeRefresh }
        // The selected player to delete is one of the refreshed table.
        try waitForScreenMatchingDatabase(session, database, orderBy: "name, score DESC, id")
        let count = Int(try sqlite(database, "SELECT COUNT(*) FROM player"))!

        try next(Caption.stressTest)
        try waitForPlayerCount(database, count - 1)

        // The next step waits until the stress test is over.
        try session.send("Space")
        let screen = try session.waitForScreen(containing: Caption.deleteAll, timeout: 60)
        XCTAssertNotNil(screen.range(of: #"stress test: \d+ ok, \d+ failed"#, options: .regularExpression), screen)

        try session.send("Space")
        try session.waitForScreen(containing: Caption.viewer)
        XCTAssertEqual(try sqlite(database, "SELECT COUNT(*) FROM player"), "0")
        try session.send("q")
        try waitForExit(session, status: 0)
    }

    /// The refreshes of the stress test take a while on 5,000 players: the
    /// step after it must not start before they are over, or deleting all
    /// players would race with them.
    func testStepAfterTheStressTestWaitsForItsEnd() throws {
        let database = try makeDatabase(morePlayers: 5000)
        let session = try launch(["demo", "--speed", slowSpeed, "--database", database.path], width: 200)
        try session.waitForScreen(containing: "\(database.path) holds 5008 players: the demo changes them, then deletes them all. Play it? [y/N]")
        try session.send("y", "Enter")
        // No empty table to populate: the walkthrough starts with an insert.
        for caption in [Caption.insert, Caption.edit, Caption.order, Caption.refresh, Caption.delete] {
            try session.waitForScreen(containing: caption)
            try session.send("Space")
        }
        try session.waitForScreen(containing: Caption.stressTest)
        try session.send("Space")
        let screen = try session.waitForScreen(containing: Caption.deleteAll, timeout: 120)
        XCTAssertNotNil(screen.range(of: #"stress test: 50 ok, 0 failed"#, options: .regularExpression), screen)
        try session.send("Space")
        try session.waitForScreen(containing: Caption.viewer, timeout: 30)
        try session.send("q")
        try waitForExit(session, status: 0)
        XCTAssertEqual(try sqlite(database, "SELECT COUNT(*) FROM player"), "0")
    }

    func testDemoAsksBeforeChangingAFileWithPlayersAndNoLeavesItUnchanged() throws {
        let database = try makeDatabase()
        let bytes = try contents(database)
        for answer in ["n", "", "whatever"] {
            // Wide enough for the question on one line.
            let session = try launch(["demo", "--speed", slowSpeed, "--database", database.path], width: 200)
            try session.waitForScreen(containing: "\(database.path) holds 8 players: the demo changes them, then deletes them all. Play it? [y/N]")
            if !answer.isEmpty {
                try session.type(answer)
            }
            try session.send("Enter")
            let screen = try waitForExit(session, status: 0)
            XCTAssertFalse(screen.contains("Hall of Fame"), screen)
            session.kill()
            XCTAssertEqual(try contents(database), bytes, "answer \(answer)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["players.sqlite"])
        }
    }

    func testDemoOnAFileWithOnePlayerAsksAboutIt() throws {
        let database = try makeDatabase()
        _ = try sqlite(database, "DELETE FROM player WHERE id > (SELECT MIN(id) FROM player)")
        let session = try launch(["demo", "--speed", slowSpeed, "--database", database.path], width: 200)
        try session.waitForScreen(containing: "holds 1 player: the demo changes it, then deletes it. Play it? [y/N]")
        try session.send("Y", "Enter")
        try session.waitForScreen(containing: Caption.insert)
        try waitForScreenMatchingDatabase(session, database)
        try session.send("q")
        try waitForExit(session, status: 0)
    }

    func testAnyKeySkipsAheadAndQQuits() throws {
        let session = try launch(["demo", "--speed", slowSpeed])
        try session.waitForScreen(containing: Caption.populate)
        try session.send("Space")
        try session.waitForScreen(containing: Caption.insert)
        try session.send("x")
        try session.waitForScreen(containing: "Move down (j) and edit the player (e)")
        try session.send("q")
        try waitForExit(session, status: 0)
    }
}

extension DemoTests {
    /// A new directory in the test's directory, for TMPDIR.
    fileprivate func makeTemporaryDirectory() throws -> URL {
        let url = directory.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
