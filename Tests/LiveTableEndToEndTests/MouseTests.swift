import Foundation
import XCTest

/// The mouse in `livetable view`, in tmux: SGR reports typed into the pane
/// as the terminal would send them scroll, select and open; `--no-mouse`
/// and `mouse = false` leave the mouse to the terminal; every way out
/// turns the reports off.
final class MouseTests: LiveTableTestCase {
    /// `item`: 50 rows, "item 001"…
    private func makeFile() throws -> URL {
        let file = directory.appendingPathComponent("mouse.sqlite")
        _ = try sqlite(file, """
            CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price INTEGER);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50)
            INSERT INTO item SELECT i, printf('item %03d', i), i * 10 FROM n;
            """)
        return file
    }

    /// A report of button code `code` on the cell (`x`, `y`), from 0.
    private func report(_ code: Int, x: Int, y: Int) -> String {
        "\u{1B}[<\(code);\(x + 1);\(y + 1)M"
    }

    func testTheWheelScrollsAndAClickSelectsARowAndAColumn() throws {
        let session = try launch(["view", try makeFile().path, "item"], height: 12)
        try session.waitForScreen(containing: "row 1 of 50")
        XCTAssertTrue(try session.reportsMouse())
        // Two notches down, three rows each, in one read.
        try session.type(report(65, x: 5, y: 4) + report(65, x: 5, y: 4))
        try session.waitForScreen(containing: "row 7 of 50")
        try session.type(report(65, x: 5, y: 4) + report(65, x: 5, y: 4) + report(64, x: 5, y: 4))
        try session.waitForScreen(containing: "row 10 of 50")
        // The list scrolled: its first line is not row 1 any more.
        let screen = try session.screen()
        let first = ViewerScreen.line(2, of: screen)
        let firstID = try XCTUnwrap(Int(first.split(separator: " ").first ?? ""), screen)
        XCTAssertGreaterThan(firstID, 1, screen)

        // A click on the list's first line, on the price column.
        let header = ViewerScreen.line(1, of: screen)
        let priceX = try XCTUnwrap(header.range(of: "price")).lowerBound.utf16Offset(in: header)
        try session.type(report(0, x: priceX, y: 2) + "\u{1B}[<0;\(priceX + 1);3m")
        try session.waitForScreen(containing: "row \(firstID) of 50")
        try waitUntil("price to be the current column") {
            try session.styledLines()[1].codes(of: "price")?.contains("7") == true
        }
        // A click on the header's name.
        let nameX = try XCTUnwrap(header.range(of: "name")).lowerBound.utf16Offset(in: header)
        try session.type(report(0, x: nameX, y: 1))
        try waitUntil("name to be the current column") {
            try session.styledLines()[1].codes(of: "name")?.contains("7") == true
        }
        XCTAssertEqual(try session.styledLines()[1].codes(of: "price")?.contains("7"), false)
        try session.send("q")
        try waitForExit(session, status: 0)
        XCTAssertFalse(try session.reportsMouse(), "mouse reports left on")
    }

    func testADoubleClickOpensTheRow() throws {
        let session = try launch(["view", try makeFile().path, "item"], height: 12)
        try session.waitForScreen(containing: "row 1 of 50")
        try session.type(report(0, x: 3, y: 5) + "\u{1B}[<0;4;6m" + report(0, x: 3, y: 5) + "\u{1B}[<0;4;6m")
        let screen = try session.waitForScreen(containing: "┌ Row 4 ─")
        XCTAssertTrue(screen.contains("item 004"), screen)
    }

    func testNoMouseLeavesTheMouseToTheTerminal() throws {
        let file = try makeFile()
        let session = try launch(["view", file.path, "item", "--no-mouse"], height: 12)
        try session.waitForScreen(containing: "row 1 of 50")
        XCTAssertFalse(try session.reportsMouse())
        // Reports sent anyway are dropped, not typed: no digit moves or filters.
        try session.type(report(65, x: 5, y: 4) + report(0, x: 3, y: 5) + "j")
        try session.waitForScreen(containing: "row 2 of 50")

        // mouse = false in the config file too.
        try writeConfig("mouse = false\n")
        let other = try launch(["view", file.path, "item"], height: 12)
        try other.waitForScreen(containing: "row 1 of 50")
        XCTAssertFalse(try other.reportsMouse())
        try other.type(report(65, x: 5, y: 4) + "j")
        try other.waitForScreen(containing: "row 2 of 50")
    }

    func testReportsAreTurnedOffOnCtrlCSignalsAndCrashes() throws {
        let file = try makeFile()
        let session = try launch(["view", file.path, "item"], height: 12)
        try session.waitForScreen(containing: "row 1 of 50")
        try session.send("C-c")
        try waitForExit(session, status: 0)
        XCTAssertFalse(try session.reportsMouse())

        let killed = try launch(["view", file.path, "item"], height: 12)
        try killed.waitForScreen(containing: "row 1 of 50")
        XCTAssertTrue(try killed.reportsMouse())
        XCTAssertEqual(kill(try killed.childProcessID(named: "livetable"), SIGTERM), 0)
        try waitForExit(killed, status: 128 + SIGTERM)
        XCTAssertFalse(try killed.reportsMouse())

        // A crash: the crash guard's reset sequence.
        let crashed = try launch(["view", file.path, "item"], height: 12, environment: ["SWIFT_BACKTRACE": "enable=no"])
        try crashed.waitForScreen(containing: "row 1 of 50")
        XCTAssertEqual(kill(try crashed.childProcessID(named: "livetable"), SIGSEGV), 0)
        try waitForExit(crashed, status: 128 + SIGSEGV)
        XCTAssertFalse(try crashed.reportsMouse())

        // A signal while the main thread is busy: the same sequence, from another thread.
        let marker = directory.appendingPathComponent("stalled")
        let stalled = try launch(["view", file.path, "item"], height: 12,
                                 environment: ["LIVETABLE_TEST_STALL_MARKER": marker.path])
        try stalled.waitForScreen(containing: "row 1 of 50")
        try stalled.send("j")
        try waitUntil("the main thread to be busy") { FileManager.default.fileExists(atPath: marker.path) }
        XCTAssertEqual(kill(try stalled.childProcessID(named: "livetable"), SIGTERM), 0)
        try waitForExit(stalled, status: 128 + SIGTERM, timeout: 3)
        XCTAssertFalse(try stalled.reportsMouse())
    }

    func testSuspendGivesTheMouseBackAndFgTakesItAgain() throws {
        let file = try makeFile()
        let session = try TmuxSession(
            command: "exec bash --norc --noprofile -i",
            environment: ["PS1": "$ ", "HOME": directory.path, "XDG_DATA_HOME": dataHome.path])
        defer { session.kill() }
        try session.waitForScreen(containing: "$")
        try session.type([Self.binaryPath, "view", file.path, "item"].map(Shell.quote).joined(separator: " "))
        try session.send("Enter")
        try session.waitForScreen(containing: "row 1 of 50")
        XCTAssertTrue(try session.reportsMouse())
        try session.send("C-z")
        try session.waitForScreen(containing: "Stopped")
        XCTAssertFalse(try session.reportsMouse())
        try session.type("fg")
        try session.send("Enter")
        try session.waitForScreen(containing: "row 1 of 50")
        try waitUntil("the reports to be on again") { try session.reportsMouse() }
        try session.type(report(65, x: 5, y: 4))
        try session.waitForScreen(containing: "row 4 of 50")
    }

    /// Writes the config file that the launched apps read (HOME is the
    /// test's directory).
    private func writeConfig(_ text: String) throws {
        let folder = directory.appendingPathComponent(".config/livetable")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try text.write(to: folder.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
    }
}
