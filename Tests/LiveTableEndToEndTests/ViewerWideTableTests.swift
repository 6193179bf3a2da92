import Foundation
import XCTest

/// `livetable view` on a table of 30 columns, in tmux: the key column
/// frozen on the left while the cursor scrolls sideways, a value that the
/// sqlite3 command updates in a scrolled-to column showing under its
/// name, `-` `=` hiding and showing, `<` narrowing; the file is left
/// unchanged (`sha256sum`).
final class ViewerWideTableTests: LiveTableTestCase {
    /// `wide(id INTEGER PRIMARY KEY, c01 … c29)` of 20 rows, made by
    /// Python: the value of row 3, column c25 is "r03c25".
    private func makeWideFile() throws -> URL {
        let file = directory.appendingPathComponent("wide.sqlite")
        try Shell.python(#"""
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            names = ["c%02d" % i for i in range(1, 30)]
            c.execute("CREATE TABLE wide(id INTEGER PRIMARY KEY, %s)" % ", ".join(n + " TEXT" for n in names))
            c.executemany("INSERT INTO wide VALUES (?, %s)" % ", ".join("?" for _ in names),
                          [[r] + ["r%02d%s" % (r, n) for n in names] for r in range(1, 21)])
            c.commit()
            c.close()
            """#, [file.path])
        return file
    }

    /// The screen's lines.
    private func lines(_ session: TmuxSession) throws -> [String] {
        try session.screen().components(separatedBy: "\n")
    }

    /// The column, in characters, where `text` starts on `line`.
    private func column(of text: String, in line: String) -> Int? {
        line.range(of: text).map { line.distance(from: line.startIndex, to: $0.lowerBound) }
    }

    func testKeyColumnStaysWhileScrollingToAColumnThatAnotherProcessUpdates() throws {
        let database = try makeWideFile()
        let session = try launch(["view", database.path, "wide"])
        try session.waitForScreen(containing: "row 1 of 20 · live")
        let first = try lines(session)
        XCTAssertTrue(first[1].hasPrefix(" id  c01 "), first.joined(separator: "\n"))
        try session.waitForScreen(containing: "more columns →")

        // 25 columns to the right: c25, the last column whole on screen.
        try session.type(String(repeating: "l", count: 25))
        try session.waitForScreen("c25 in view, scrolled") { screen in
            let lines = screen.components(separatedBy: "\n")
            return lines.count > 1 && lines[1].contains("c25") && screen.contains("← ")
        }
        var screen = try lines(session)
        XCTAssertTrue(screen[1].hasPrefix(" id  c"), "the key column stays on the left: \(screen[1])")
        XCTAssertFalse(screen[1].contains("c01"), screen[1])
        XCTAssertTrue(screen[4].hasPrefix("  3  r03c"), screen[4])

        // Another process updates that column of row 3.
        _ = try sqlite(database, "UPDATE wide SET c25 = 'NEWVAL' WHERE id = 3")
        try session.waitForScreen(containing: "NEWVAL")
        screen = try lines(session)
        XCTAssertEqual(column(of: "NEWVAL", in: screen[4]), column(of: "c25", in: screen[1]),
                       "under its column's name:\n\(screen.joined(separator: "\n"))")
        XCTAssertTrue(screen[4].hasPrefix("  3  "), screen[4])
        let sha256 = try Shell.sha256(database)

        // Hidden, the cursor on the next column; then shown again.
        try session.send("-")
        try session.waitForScreen(containing: "1 hidden · = shows all")
        screen = try lines(session)
        XCTAssertFalse(screen[1].contains("c25"), screen[1])
        XCTAssertFalse(screen[4].contains("NEWVAL"), screen[4])
        XCTAssertTrue(screen[1].contains("c26"), screen[1])
        try session.send("=")
        try session.waitForScreen("all columns shown") { !$0.contains("hidden") && $0.contains("NEWVAL") }

        // Back on c25, narrowed: its values cut.
        try session.send("h", "<")
        try session.waitForScreen(containing: "NE…")
        XCTAssertTrue(try lines(session)[4].hasPrefix("  3  "))

        try session.send("q")
        try waitForExit(session, status: 0)
        XCTAssertEqual(try Shell.sha256(database), sha256, "the viewer wrote to the file")
        XCTAssertEqual(try sqlite(database, "SELECT c25 FROM wide WHERE id = 3"), "NEWVAL")
    }
}
