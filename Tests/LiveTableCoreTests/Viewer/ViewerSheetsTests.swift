import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// Sheets (issue 27): `:` opens a query on top of the sheet on screen, `q`
/// goes back to the one below as it was, and quits only from the last.
/// Driven as in `ViewerUpdateTests`: 100 items, price 10 to 1,000.
extension ViewerUpdateTests {
    /// `:`, the prompt emptied, `sql` pasted.
    private func typeQuery(_ sql: String) throws {
        try type(":")
        try send(.key(.control("u")))
        try send(.key(.paste(sql)))
    }

    func testAQueryOpensOnTopAndQGoesBackToTheSheetAsItWas() throws {
        try start(.table("item"))
        try type("ll]jj")  // price ↓, third row
        XCTAssertEqual(selectedName, "item 098")
        try type(":")
        let prompt = try XCTUnwrap(state.prompt)
        XCTAssertEqual(prompt.kind, .query)
        // What the sheet runs: its columns, its order.
        XCTAssertTrue(prompt.text.hasPrefix("SELECT "), prompt.text)
        XCTAssertTrue(prompt.text.contains("ORDER BY \"price\" DESC"), prompt.text)

        // Edited into another query: Ctrl-U empties the prompt.
        try send(.key(.control("u")))
        let effects = try driver.send(.key(.paste("SELECT name, price FROM item WHERE price < 100")))
        XCTAssertEqual(effects, [])
        let opening = try send(.key(.enter))
        XCTAssertTrue(opening.contains(.recordQuery("SELECT name, price FROM item WHERE price < 100")), "\(opening)")
        let query = try XCTUnwrap(state.table)
        XCTAssertEqual(query.viewed.target, .query("SELECT name, price FROM item WHERE price < 100"))
        XCTAssertEqual(query.window?.rows.count, 9)
        XCTAssertEqual(state.sheets, [.table("item")])
        XCTAssertTrue(driver.lines[0].contains("— item › SELECT name, pric"), driver.lines[0])
        XCTAssertEqual(state.queryHistory.lines, ["SELECT name, price FROM item WHERE price < 100"])

        // q: the table again, with its sort and its selection.
        XCTAssertFalse(try send(.key(.character("q"))).contains(.quit))
        let back = try XCTUnwrap(state.table)
        XCTAssertEqual(back.viewed.target, .table("item"))
        XCTAssertEqual(back.viewed.ordering.sortColumn, "price")
        XCTAssertEqual(selectedName, "item 098")
        XCTAssertEqual(state.sheets, [])
        // The last sheet: q quits.
        XCTAssertTrue(try send(.key(.character("q"))).contains(.quit))
    }

    func testARefusedQueryStaysOnItsPromptAndTheSheetStays() throws {
        try start(.table("item"))
        try typeQuery("DELETE FROM item")
        try send(.key(.enter))
        XCTAssertEqual(state.prompt?.kind, .query)
        XCTAssertEqual(state.prompt?.text, "DELETE FROM item")
        guard case .error? = state.message else { return XCTFail("no error: \(String(describing: state.message))") }
        XCTAssertEqual(state.table?.viewed.target, .table("item"))
        XCTAssertEqual(state.sheets, [])
        // Esc closes the prompt, never the sheet.
        try send(.key(.escape))
        XCTAssertNil(state.prompt)
        XCTAssertEqual(state.table?.viewed.target, .table("item"))
    }

    func testUpWalksTheQueryHistory() throws {
        try start(.table("item"))
        state.queryHistory = PromptHistory()
        for sql in ["SELECT 1 AS a", "SELECT 2 AS b"] {
            try typeQuery(sql)
            try send(.key(.enter))
        }
        XCTAssertEqual(state.sheets, [.table("item"), .query("SELECT 1 AS a")])
        try type(":")
        // The prompt holds what the sheet runs; ↑ steps back from it.
        try send(.key(.control("u")))
        try send(.key(.up))
        XCTAssertEqual(state.prompt?.text, "SELECT 2 AS b")
        try send(.key(.up))
        XCTAssertEqual(state.prompt?.text, "SELECT 1 AS a")
        try send(.key(.escape))
        // Two sheets to close before q quits.
        XCTAssertFalse(try send(.key(.character("q"))).contains(.quit))
        XCTAssertEqual(state.table?.viewed.target, .query("SELECT 1 AS a"))
        XCTAssertFalse(try send(.key(.character("q"))).contains(.quit))
        XCTAssertEqual(state.table?.viewed.target, .table("item"))
    }

    func testAQueryFromThePickerGoesBackToThePicker() throws {
        try start(nil)
        XCTAssertNil(state.table)
        try type(":")
        XCTAssertEqual(state.prompt?.text, "")
        try send(.key(.paste("SELECT count(*) AS n FROM item")))
        try send(.key(.enter))
        XCTAssertEqual(state.table?.window?.rows, [[100.databaseValue]])
        XCTAssertTrue(driver.lines[0].contains("— tables › SELECT count(*)"), driver.lines[0])
        XCTAssertFalse(try send(.key(.character("q"))).contains(.quit))
        XCTAssertNil(state.table)
        XCTAssertEqual(state.picker.entries?.map(\.name), ["item", "other"])
    }

    func testQWhileAQueryOpensLeavesNoSheetBehind() throws {
        try start(.table("item"))
        try typeQuery("SELECT 1 AS a")
        try send(.key(.enter))
        XCTAssertEqual(state.sheets, [.table("item")])
        // A second query, and q before it has opened (its open is held
        // back): back to the table, and no sheet is left pushed.
        try typeQuery("SELECT 2 AS b")
        _ = try driveViewer(&driver.state, .key(.enter)) { effect in
            if case .open = effect { return nil }
            return try performViewerEffect(effect, on: driver.dataSource, now: driver.now)
        }
        try send(.key(.character("q")))
        XCTAssertEqual(state.table?.viewed.target, .table("item"))
        XCTAssertEqual(state.sheets, [])
        // t, then a table from the picker: it replaces the sheet, and pushes none.
        try start(.table("item"))
        try typeQuery("SELECT 2 AS b")
        _ = try driveViewer(&driver.state, .key(.enter)) { effect in
            if case .open = effect { return nil }
            return try performViewerEffect(effect, on: driver.dataSource, now: driver.now)
        }
        try type("t")
        try send(.key(.enter))
        XCTAssertNotNil(state.table)
        XCTAssertEqual(state.sheets, [])
    }
}
