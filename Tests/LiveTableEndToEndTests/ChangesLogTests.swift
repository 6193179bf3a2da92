import Foundation
import XCTest

/// `L`, the changes log, in the real binary: another process's UPDATE of
/// a visible row is listed with its old and new values, the log stays
/// live, and Enter goes back to the row.
final class ChangesLogTests: LiveTableTestCase {
    func testAnotherProcessesUpdateIsListedWithOldAndNewValues() throws {
        let file = try makeItemFile("items.sqlite", rows: 20)
        let session = try launch(["view", file.path, "item"], width: 120)
        try session.waitForScreen(containing: "row 1 of 20 · live")
        _ = try sqlite(file, "UPDATE item SET price = 4242 WHERE id = 3")
        try session.waitForScreen(containing: "4242")
        try session.send("L")
        var screen = try session.waitForScreen(containing: "item › changes log")
        let entry = ViewerScreen.line(2, of: screen)
        XCTAssertTrue(entry.contains("updated") && entry.contains("price: 30 → 4242"), screen)
        XCTAssertNotNil(entry.range(of: #"\d\d:\d\d:\d\d"#, options: .regularExpression), "the time: \(entry)")

        // Live: the sheet under the log is still watched.
        _ = try sqlite(file, "UPDATE item SET name = 'renamed' WHERE id = 4")
        screen = try session.waitForScreen(containing: "name: item 004 → renamed")
        XCTAssertTrue(ViewerScreen.line(2, of: screen).contains("renamed"), "newest first:\n\(screen)")

        // Enter on the older entry: its row, in its sheet.
        try session.send("Down")
        try session.send("Enter")
        try session.waitForScreen(containing: "item › changes log › item")
        XCTAssertEqual(try selectedName(session), "item 003")
        try session.send("q")
        try session.waitForScreen(containing: "item › changes log")
        try session.send("q")
        try session.send("q")
        try waitForExit(session, status: 0)
    }
}
