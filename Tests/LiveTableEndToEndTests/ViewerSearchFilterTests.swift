import Foundation
import XCTest

/// The viewer's search (`/`, `n`, `N`) and filter (`f`) in tmux: the real
/// binary on a file that Python made, which a Python process writes while
/// the filter is on, checked with `sha256sum` to be left unchanged.
final class ViewerSearchFilterTests: LiveTableTestCase {
    /// A file of `item`: 20,000 rows ("item 00001"…, price 1 to 20,000,
    /// an index on price), in rollback-journal mode.
    private func makeFile() throws -> URL {
        try makeItemFile("big.sqlite", rows: 20_000, nameDigits: 5, price: "i", indexOnPrice: true)
    }

    /// Starts a Python process that inserts a row ("new 1", "new 2"…,
    /// price 100,000 and up) every 20 ms until `stop` exists.
    private func startWriter(_ database: URL, stop: URL) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", #"""
            import os, sqlite3, sys, time
            c = sqlite3.connect(sys.argv[1], timeout=5)
            k = 0
            while not os.path.exists(sys.argv[2]):
                k += 1
                c.execute("INSERT INTO item(name, price) VALUES (?, ?)", ("new %d" % k, 100000 + k))
                c.commit()
                time.sleep(0.02)
            c.close()
            """#, database.path, stop.path]
        try process.run()
        return process
    }

    func testSearchFindsAFarRowAndFilterNarrowsLiveRowsWithoutWriting() throws {
        let database = try makeFile()
        let session = try launch(["view", database.path, "item"])
        try session.waitForScreen(containing: "row 1 of 20,000 · live")

        // Search the name column: the match is 19,997 rows away.
        try session.send("l", "/")
        try session.type("ITEM 19998")
        try session.waitForScreen(containing: "/ (name) ITEM 19998")
        try session.send("Enter")
        // The selection (reversed) and the match (underlined) show where
        // it is, and the title its position.
        try session.waitForScreen(containing: "item 19998")
        try session.waitForScreen(containing: "row 19,998 of 20,000 · live")
        try waitUntil("the match is selected") {
            let codes = try session.styledLines().codes(of: "item 19998")
            return codes?.contains("7") == true && codes?.contains("4") == true
        }
        XCTAssertEqual(try session.styledLines().codes(of: "item 19997")?.contains("4"), false)
        // Nothing after it matches: n wraps round to it.
        try session.send("n")
        try session.waitForScreen(containing: "search wrapped")
        // Away from both ends, beyond the 10,000 rows that a window's read
        // counts: the rows before the match are counted in the background.
        try session.send("/")
        try session.type("ITEM 12345")
        try session.send("Enter")
        try session.waitForScreen(containing: "row 12,345 of 20,000 · live")
        try session.send("/")
        try session.type("no such item")
        try session.send("Enter")
        try session.waitForScreen(containing: "not found: no such item")

        // A filter, while another process inserts rows that it keeps.
        let stop = directory.appendingPathComponent("stop")
        let writer = try startWriter(database, stop: stop)
        defer {
            _ = FileManager.default.createFile(atPath: stop.path, contents: nil)
            writer.waitUntilExit()
        }
        try session.send("f")
        try session.type("price > 19990 AND name LIKE '%9%' OR price >= 100000")
        try session.send("Enter")
        try session.waitForScreen(containing: "where price > 19990 AND name LIKE '%9%'")
        try session.waitForScreen(containing: "item 19991")
        // Rows the writer adds show in the filtered view, and the count
        // follows them.
        try session.waitForScreen(containing: "new 3")
        let live = try XCTUnwrap(ViewerScreen.titleCount(try session.screen()))
        XCTAssertLessThan(live, 1_000)
        try session.waitForScreen("the count grows") { (ViewerScreen.titleCount($0) ?? 0) > live }

        _ = FileManager.default.createFile(atPath: stop.path, contents: nil)
        writer.waitUntilExit()
        let expected = try sqlite(database,
            "SELECT COUNT(*) FROM item WHERE price > 19990 AND name LIKE '%9%' OR price >= 100000")
        try session.waitForScreen("the filtered count") { ViewerScreen.titleCount($0) == Int(expected) }
        let sha256 = try Shell.sha256(database)
        let total = try sqlite(database, "SELECT COUNT(*) FROM item")

        // An invalid filter is explained, and the previous one kept.
        try session.send("f", "C-u")
        try session.type("pricee > 1")
        try session.send("Enter")
        try session.waitForScreen(containing: "invalid filter: no such column: pricee")
        XCTAssertTrue(try session.screen().contains("where price > 19990"))
        // The rejected text stays on the prompt, to be corrected.
        XCTAssertTrue(try session.screen().contains("filter: pricee > 1"))
        // A filter that would write is refused before anything runs.
        try session.send("C-u")
        try session.type("1); DELETE FROM item; --")
        try session.send("Enter")
        try session.waitForScreen(containing: "invalid filter:")
        XCTAssertTrue(try session.screen().contains("where price > 19990"))

        // Esc closes the prompt, then clears the filter, and never quits: q does.
        try session.send("Escape")
        try session.waitForScreen("the prompt closed") { !$0.contains("filter: 1); DELETE") }
        try session.send("Escape")
        try session.waitForScreen(containing: "filter cleared")
        try session.waitForScreen("the whole count") { ViewerScreen.titleCount($0) == Int(total) }
        try session.send("q")
        try waitForExit(session, status: 0)
        XCTAssertEqual(try Shell.sha256(database), sha256)
        XCTAssertEqual(try sqlite(database, "SELECT COUNT(*) FROM item"), total)
        XCTAssertFalse(FileManager.default.fileExists(atPath: database.path + "-wal"))
    }
}
