import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// Finding your way (issue 27 §5): `c` moves the column cursor by part of a
/// column's name; Tab in the search prompt searches every column of the
/// row. And a paste keeps its line ends in the prompts that take SQL.
/// Driven as in `ViewerUpdateTests`: 100 items, on a 60 x 10 screen.
extension ViewerUpdateTests {
    /// `wide(id, alpha_name, beta, gamma_total, delta, epsilon, zeta_total)`:
    /// too wide for the screen, so that a column found may be off it.
    private func startWide() throws {
        let long = String(repeating: "x", count: 12)
        _ = try ForeignFile.sqlite3(path, """
            CREATE TABLE wide(id INTEGER PRIMARY KEY, alpha_name TEXT, beta TEXT, gamma_total INTEGER,
                delta TEXT, epsilon TEXT, zeta_total INTEGER);
            INSERT INTO wide VALUES (1, '\(long)', '\(long)', 10, '\(long)', '\(long)', 20);
            """)
        try start(.table("wide"))
    }

    private var currentColumnName: String? {
        state.table.map { $0.viewed.source.columnNames[$0.currentColumn] }
    }

    // MARK: - c

    func testCMovesToTheNextColumnWhoseNameHoldsTheTextAndShowsIt() throws {
        try startWide()
        XCTAssertEqual(currentColumnName, "id")
        XCTAssertFalse(driver.lines[1].contains("zeta_total"), "off the screen at first: \(driver.lines[1])")
        XCTAssertEqual(viewerUpdate(&state, .key(.character("c"))), [])
        XCTAssertEqual(state.prompt?.kind, .findColumn)
        for character in "TOTAL" {
            XCTAssertEqual(viewerUpdate(&state, .key(.character(character))), [])
        }
        XCTAssertTrue(driver.lines[9].hasPrefix(" column: TOTAL"), driver.lines[9])
        XCTAssertTrue(driver.lines[8].contains("Enter go to column  Esc cancel"), driver.lines[8])
        // Ignoring case; no read: the columns are known.
        XCTAssertEqual(viewerUpdate(&state, .key(.enter)), [])
        XCTAssertNil(state.prompt)
        XCTAssertEqual(currentColumnName, "gamma_total")

        // From the column after the cursor: the next match, scrolled into view.
        try type("c")
        try type("total")
        XCTAssertEqual(viewerUpdate(&state, .key(.enter)), [])
        XCTAssertEqual(currentColumnName, "zeta_total")
        XCTAssertTrue(driver.lines[1].contains("zeta_total"), driver.lines[1])
        XCTAssertTrue(driver.lines[2].contains("20"), "the column whole: \(driver.lines[2])")

        // Round, from the start again.
        try type("c")
        try type("total")
        try send(.key(.enter))
        XCTAssertEqual(currentColumnName, "gamma_total")
        XCTAssertNil(statusText)
    }

    func testCWithANameThatMatchesNothingSaysSoAndLeavesTheCursor() throws {
        try startWide()
        try type("lc")
        try type("nope")
        XCTAssertEqual(viewerUpdate(&state, .key(.enter)), [])
        XCTAssertNil(state.prompt)
        XCTAssertEqual(currentColumnName, "alpha_name")
        XCTAssertEqual(statusText, "no column matches \"nope\"")
        XCTAssertTrue(driver.lines[9].contains("no column matches \"nope\""), driver.lines[9])

        // A hidden column is not gone to: = shows it again.
        try type("llll")
        XCTAssertEqual(currentColumnName, "epsilon")
        try type("-c")
        try type("eps")
        try send(.key(.enter))
        XCTAssertEqual(statusText, "only hidden columns match \"eps\": = shows all")
        XCTAssertEqual(currentColumnName, "zeta_total")
    }

    func testEscClosesTheColumnPromptAndTheCursorStays() throws {
        try startWide()
        try type("cbeta")
        XCTAssertEqual(viewerUpdate(&state, .key(.escape)), [])
        XCTAssertNil(state.prompt)
        XCTAssertEqual(currentColumnName, "id")
        // In the row view, c does nothing.
        try send(.key(.enter))
        XCTAssertEqual(viewerUpdate(&state, .key(.character("c"))), [])
        XCTAssertNil(state.prompt)
    }

    // MARK: - Search in every column

    func testTabSearchesEveryColumnAndNContinuesSo() throws {
        try start(.table("item"))
        try type("/")
        XCTAssertTrue(driver.lines[9].hasPrefix(" / (id)"), driver.lines[9])
        XCTAssertTrue(driver.lines[8].contains("Enter search  Tab all columns  Esc cancel"), driver.lines[8])
        XCTAssertEqual(viewerUpdate(&state, .key(.tab)), [])
        XCTAssertTrue(driver.lines[9].hasPrefix(" / (all columns)"), driver.lines[9])
        XCTAssertTrue(driver.lines[8].contains("Tab this column"), driver.lines[8])
        try type("550")
        let table = try XCTUnwrap(state.table)
        // The cursor is on id, and 550 is a price: found all the same.
        XCTAssertEqual(
            viewerUpdate(&state, .key(.enter)),
            [.search(table.viewed, RowSearch(text: "550", column: nil, forward: true, from: table.selected))])
        let request = try XCTUnwrap(state.table?.pendingSearch)
        try send(.searched(try database.read { db in try request.run(db, table.viewed.source, table.viewed.ordering) }))
        XCTAssertEqual(selectedName, "item 055")
        XCTAssertEqual(state.table?.search, TableSearch(text: "550", column: nil))

        // n: in every column still, from the match.
        let match = try XCTUnwrap(state.table?.selected)
        XCTAssertEqual(
            viewerUpdate(&state, .key(.character("n"))),
            [.search(table.viewed, RowSearch(text: "550", column: nil, forward: true, from: match))])
        let next = try XCTUnwrap(state.table?.pendingSearch)
        try send(.searched(try database.read { db in try next.run(db, table.viewed.source, table.viewed.ordering) }))
        XCTAssertEqual(selectedName, "item 055")
        XCTAssertEqual(statusText, "search wrapped")

        // / opens in the mode of the last search; Tab goes back to the column.
        try type("/")
        XCTAssertEqual(state.prompt?.searchesAllColumns, true)
        try send(.key(.tab))
        try type("550")
        try send(.key(.enter))
        XCTAssertEqual(statusText, "not found: 550")
        XCTAssertEqual(state.table?.search, TableSearch(text: "550", column: 0))
    }

    func testASearchInEveryColumnMarksTheMatchesInEachColumn() throws {
        try start(.table("item"))
        try type("/")
        try send(.key(.tab))
        try type("3")
        try send(.key(.enter))
        XCTAssertEqual(selectedName, "item 003")
        let screen = viewerRender(state)
        let lines = screen.text.components(separatedBy: "\n")
        // The row of item 003, price 30: its 3s in id, name and price.
        let y = try XCTUnwrap(lines.firstIndex { $0.contains("item 003") })
        let marked = Array(lines[y]).indices.filter { screen.style(x: $0, y: y)?.underline == true }
        XCTAssertEqual(marked.map { Array(lines[y])[$0] }, ["3", "3", "3"], lines[y])
    }

    // MARK: - A pasted query keeps its lines

    func testAPastedQueryKeepsItsLineEndsAndRunsAsWritten() throws {
        try start(.table("item"))
        try type(":")
        try send(.key(.control("u")))
        // As terminals paste them: CR, or CR LF. The comment ends with its line.
        XCTAssertEqual(viewerUpdate(&state, .key(.paste("SELECT name -- the name\r, price\r\nFROM item WHERE price > 980"))), [])
        let sql = "SELECT name -- the name\n, price\nFROM item WHERE price > 980"
        XCTAssertEqual(state.prompt?.text, sql)
        try send(.key(.home))
        XCTAssertTrue(driver.lines[9].hasPrefix(" SQL: SELECT name -- the name⏎, price⏎FROM item"), driver.lines[9])
        let opening = try send(.key(.enter))
        XCTAssertTrue(opening.contains(.recordQuery(sql)), "\(opening)")
        XCTAssertEqual(state.table?.viewed.target, .query(sql))
        XCTAssertEqual(state.table?.viewed.source.columnNames, ["name", "price"])
        XCTAssertEqual(state.table?.window?.rows.map { $0[1] }, [990.databaseValue, 1000.databaseValue])
    }

    func testAPasteInTheSearchPromptIsOneLine() throws {
        try start(.table("item"))
        try type("/")
        try send(.key(.paste("item\r\n05")))
        XCTAssertEqual(state.prompt?.text, "item 05")
    }
}
