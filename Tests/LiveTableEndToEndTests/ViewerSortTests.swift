import Foundation
import XCTest

/// Sorting in `livetable view` with `[` and `]`, in tmux: the real binary
/// on a file made by Python's sqlite3 module, with an index on `price` and
/// none on `name`, updated by the sqlite3 CLI while sorted, and checked
/// with `sha256sum` to be left unchanged.
final class ViewerSortTests: LiveTableTestCase {
    /// `item(id, name, price)`: 200 rows, "item 001"…, prices 1 to 200 in
    /// another order than the rowid's, an index on price only.
    private func makeFile() throws -> URL {
        try makeItemFile("sorted.sqlite", rows: 200, price: "(i * 37) % 200 + 1", indexOnPrice: true)
    }

    /// The rows on the screen, from the top: id, name and price of each
    /// line of the list.
    private func rows(_ screen: String) -> [(id: Int, name: String, price: Int)] {
        screen.components(separatedBy: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard words.count == 4, let id = Int(words[0]), words[1] == "item", let price = Int(words[3]) else {
                return nil
            }
            return (id, "item " + words[2], price)
        }
    }

    /// The status line, without the spaces around it.
    private func statusLine(_ screen: String) -> String {
        ViewerScreen.statusLine(screen).trimmingCharacters(in: .whitespaces)
    }

    func testBracketsSortByTheCurrentColumnLiveAndLeaveTheFileUnchanged() throws {
        let database = try makeFile()
        let session = try launch(["view", database.path, "item"])
        try session.waitForScreen(containing: "row 1 of 200 · live")
        try session.send("j", "j")
        try session.waitForScreen(containing: "row 3 of 200")

        // `]` on the indexed column: descending, the selection on its row,
        // and the status line quiet.
        try session.send("l", "l", "]")
        var screen = try session.waitForScreen(containing: "item · by price ↓")
        XCTAssertEqual(try selectedName(session), "item 003")
        try session.send("g")
        screen = try session.waitForScreen("the first rows by price, descending") { screen in
            self.rows(screen).first?.price == 200
        }
        XCTAssertEqual(rows(screen).prefix(5).map(\.price), [200, 199, 198, 197, 196])
        XCTAssertTrue(screen.contains("row 1 of 200 · live"))
        XCTAssertEqual(statusLine(screen), "")

        // `]` on the unindexed column: the status line states the cost.
        try session.send("h", "]")
        screen = try session.waitForScreen("sorted by name, its cost stated") {
            $0.contains("each update scans 200 rows") && $0.contains("item · by name ↓")
        }
        XCTAssertTrue(statusLine(screen).hasPrefix("sorted by an unindexed column: each update scans 200 rows"))
        // Sorted from the first row: the new first row is selected.
        XCTAssertEqual(try selectedName(session), "item 200")
        try session.send("g")
        screen = try session.waitForScreen("the first rows by name, descending") { screen in
            self.rows(screen).first?.name == "item 200"
        }
        XCTAssertEqual(rows(screen).prefix(3).map(\.name), ["item 200", "item 199", "item 198"])

        // Another process renames a row: it moves to its place in the sort.
        _ = try sqlite(database, "UPDATE item SET name = 'item 199x' WHERE name = 'item 050'")
        screen = try session.waitForScreen("the renamed row in its sorted place") { screen in
            self.rows(screen).prefix(3).map(\.name) == ["item 200", "item 199x", "item 199"]
        }
        XCTAssertEqual(rows(screen)[1].id, 50)
        XCTAssertFalse(screen.contains("item 050"))

        // From here on, nothing writes: the viewer leaves the file as it is.
        let sha256 = try Shell.sha256(database)

        // The same key again, off the first row: the natural order, by rowid;
        // the selection still on its row, and the status line says how to
        // go to the top.
        try session.send("j")
        try session.waitForScreen(containing: "row 2 of 200")
        try session.send("]")
        // The title changes as the order opens, the status line once its
        // first window is read.
        screen = try session.waitForScreen("the natural order") {
            !$0.contains(" · by ") && !$0.contains("back to the natural order…")
        }
        XCTAssertEqual(try selectedName(session), "item 199x")
        XCTAssertTrue(statusLine(screen).contains("g goes to the top"), statusLine(screen))
        try session.send("g")
        screen = try session.waitForScreen("the first rows by rowid") { self.rows($0).first?.id == 1 }
        XCTAssertEqual(rows(screen).prefix(3).map(\.id), [1, 2, 3])
        XCTAssertEqual(statusLine(screen), "")

        try session.send("q")
        try waitForExit(session, status: 0)
        XCTAssertEqual(try Shell.sha256(database), sha256)
    }

    func testSortAtLaunchAgreesWithTheKeys() throws {
        let database = try makeFile()
        let session = try launch(["view", database.path, "item", "--sort", "price", "--desc"])
        var screen = try session.waitForScreen("the first rows by price, descending") { screen in
            screen.contains("item · by price ↓") && self.rows(screen).first?.price == 200
        }
        XCTAssertEqual(rows(screen).prefix(3).map(\.price), [200, 199, 198])
        // The column cursor is on price: `[` sorts it ascending, then `[`
        // again goes back to the natural order.
        try session.send("[")
        screen = try session.waitForScreen(containing: "item · by price ↑")
        try session.send("g")
        screen = try session.waitForScreen("the first rows by price, ascending") { screen in
            self.rows(screen).first?.price == 1
        }
        try session.send("[")
        try session.waitForScreen("the natural order") { !$0.contains(" · by ") }
        try session.send("g")
        screen = try session.waitForScreen("the first rows by rowid") { self.rows($0).first?.id == 1 }
        XCTAssertEqual(rows(screen).prefix(3).map(\.price), [38, 75, 112])
        try session.send("q")
        try waitForExit(session, status: 0)
    }
}
