import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// The viewer's search (`/`, `n`, `N`) and filter (`f`), driven as in
/// `ViewerUpdateTests`: on a file of 100 items that the sqlite3 CLI made
/// (`item 001` to `item 100`, price 10 to 1,000, an index on price), with
/// a 10-row terminal, so that a window holds 18 rows and most rows are
/// outside it.
extension ViewerUpdateTests {
    // MARK: - Driving

    /// Opens the prompt with `key`, types `text`, and presses Enter.
    private func prompt(_ key: Character, _ text: String) throws {
        try send(.key(.character(key)))
        try type(text)
        try send(.key(.enter))
    }

    private var screenText: String { viewerRender(state).text }

    // MARK: - Search

    func testSearchFindsARowFarOutsideTheWindowInTheCurrentColumn() throws {
        try start(.table("item"))
        try send(.key(.right))  // the name column
        XCTAssertNil(state.table?.window?.rows.first { $0[1] == "item 090".databaseValue })
        try prompt("/", "ITEM 09")
        XCTAssertEqual(selectedName, "item 090")
        XCTAssertNil(statusText)
        // The window is anchored on the match, which keeps the selection's
        // screen row (the top one).
        let table = try XCTUnwrap(state.table)
        XCTAssertEqual(table.selectedRow, 0)
        XCTAssertTrue(screenText.contains("row 90 of 100") || !(table.window?.reachesStart ?? true))
    }

    func testSearchNextPreviousAndWrap() throws {
        try start(.table("item"))
        try send(.key(.right))
        try prompt("/", "item 09")
        XCTAssertEqual(selectedName, "item 090")
        try send(.key(.character("n")))
        XCTAssertEqual(selectedName, "item 091")
        try send(.key(.character("N")))
        XCTAssertEqual(selectedName, "item 090")
        // Nothing before item 090 matches: from the end again.
        try send(.key(.character("N")))
        XCTAssertEqual(selectedName, "item 099")
        XCTAssertEqual(statusText, "search wrapped")
        try send(.key(.character("n")))
        XCTAssertEqual(selectedName, "item 090")
        XCTAssertEqual(statusText, "search wrapped")
        try send(.key(.character("n")))
        XCTAssertNil(statusText)
        XCTAssertEqual(selectedName, "item 091")
    }

    func testEachSearchJumpKeepsThePositionInTheTitle() throws {
        try start(.table("item"))
        try send(.key(.right))
        try prompt("/", "item 040")
        XCTAssertTrue(viewerRender(state).lines[0].contains("row 40 of 100"), viewerRender(state).lines[0])
        try prompt("/", "item 090")
        XCTAssertEqual(selectedName, "item 090")
        XCTAssertEqual(state.table?.window?.reachesStart, false)
        XCTAssertTrue(viewerRender(state).lines[0].contains("row 90 of 100"), viewerRender(state).lines[0])
        try send(.key(.pageUp))
        XCTAssertTrue(viewerRender(state).lines[0].contains("row 84 of 100"), viewerRender(state).lines[0])
    }

    func testMovesTypedBeforeAJumpArrivesStartFromWhereItLands() throws {
        try start(.table("item"))
        let end = viewerUpdate(&state, .key(.end))
        guard case let .observe(viewed, request)? = end.first else { return XCTFail("\(end)") }
        XCTAssertEqual(viewerUpdate(&state, .key(.pageUp)), [])
        XCTAssertEqual(viewerUpdate(&state, .key(.pageUp)), [])
        XCTAssertEqual(viewerUpdate(&state, .key(.up)), [])
        try send(.window(try database.read { db in try ViewerWindow.fetch(db, viewed, request) }))
        XCTAssertEqual(selectedName, "item 087", "End, then two pages and a row up")
        XCTAssertEqual(state.table?.pendingMove, 0)
    }

    func testKeysTypedWhileASearchRunsAreEachApplied() throws {
        try start(.table("item"))
        try send(.key(.right))
        try prompt("/", "item 09")
        XCTAssertEqual(selectedName, "item 090")
        // n n n N typed before the first search comes back.
        let first = viewerUpdate(&state, .key(.character("n")))
        guard case let .search(viewed, request)? = first.first else { return XCTFail("\(first)") }
        for key: Character in ["n", "n", "N"] {
            XCTAssertEqual(viewerUpdate(&state, .key(.character(key))), [])
        }
        XCTAssertEqual(viewerRender(state).lines[9].trimmingCharacters(in: .whitespaces), "searching…")
        let result = try database.read { db in try request.run(db, viewed.source, viewed.ordering) }
        try send(.searched(result))
        XCTAssertEqual(selectedName, "item 092", "three matches on, then one back")
        XCTAssertEqual(state.table?.queuedSearchSteps, [])
        XCTAssertNil(state.table?.pendingSearch)
    }

    func testSearchInAnotherOrderingFollowsThatOrdering() throws {
        try start(.table("item"), sort: "price", descending: true)
        try send(.key(.left))  // the name column: the cursor starts on the sort column
        try prompt("/", "item 00")
        // By price descending, item 009 comes first among the matches.
        XCTAssertEqual(selectedName, "item 009")
        try send(.key(.character("n")))
        XCTAssertEqual(selectedName, "item 008")
    }

    func testSearchNotFoundKeepsTheSelection() throws {
        try start(.table("item"))
        try send(.key(.right))
        try send(.key(.down))
        try prompt("/", "%")  // a LIKE wildcard, searched as a character
        XCTAssertEqual(statusText, "not found: %")
        XCTAssertEqual(selectedName, "item 002")
        XCTAssertTrue(screenText.contains("not found: %"))
    }

    func testSearchLooksInTheCurrentColumnOnly() throws {
        try start(.table("item"))
        // The id column: "item" is in no id.
        try prompt("/", "item")
        XCTAssertEqual(statusText, "not found: item")
        try send(.key(.right))
        try send(.key(.right))  // price
        try prompt("/", "550")
        XCTAssertEqual(selectedName, "item 055")
    }

    func testSearchMatchIsHighlightedInTheCellsShown() throws {
        try start(.table("item"))
        try send(.key(.right))
        try prompt("/", "m 01")
        XCTAssertEqual(selectedName, "item 010")
        let screen = viewerRender(state)
        let lines = screen.text.components(separatedBy: "\n")
        // "item 011" is on the row below the selection: its "m 01" marked.
        let y = try XCTUnwrap(lines.firstIndex { $0.contains("item 011") })
        let x = try XCTUnwrap(lines[y].range(of: "m 01")).lowerBound.utf16Offset(in: lines[y])
        XCTAssertEqual(screen.style(x: x, y: y)?.underline, true)
        XCTAssertEqual(screen.style(x: x + 3, y: y)?.underline, true)
        XCTAssertEqual(screen.style(x: x - 1, y: y)?.underline, false)
        XCTAssertEqual(screen.style(x: x + 4, y: y)?.underline, false)
    }

    func testNWithoutASearchSaysSo() throws {
        try start(.table("item"))
        try send(.key(.character("n")))
        XCTAssertEqual(statusText, "no search yet: / searches the current column")
        XCTAssertEqual(selectedName, "item 001")
    }

    // MARK: - Prompt

    func testPromptEditsItsLineAndEscCancels() throws {
        try start(.table("item"))
        try send(.key(.right))
        try send(.key(.character("/")))
        try type("item 0z")
        try send(.key(.backspace))
        try send(.key(.left))
        try type("9")
        XCTAssertEqual(state.prompt?.text, "item 90")
        // The keys of the table do not act while the prompt is open.
        try type("jq")
        XCTAssertEqual(state.prompt?.text, "item 9jq0")
        XCTAssertTrue(screenText.contains("/ (name) item 9jq0"))
        try send(.key(.escape))
        XCTAssertNil(state.prompt)
        XCTAssertEqual(selectedName, "item 001")
        XCTAssertNil(state.table?.search)
    }

    func testLongPromptScrollsToItsCursorAndTinyScreensDoNotCrash() throws {
        try start(.table("item"))
        try send(.key(.character("f")))
        try type("price > 1 AND price < 1000 AND name LIKE 'item%' AND id > 0 AND id < 500")
        // 60 cells: the label, then the end of the text, the cursor after it.
        let screen = viewerRender(state)
        let status = try XCTUnwrap(screen.text.components(separatedBy: "\n").last)
        XCTAssertTrue(status.hasPrefix(" filter: "), status)
        XCTAssertTrue(status.hasSuffix("AND id < 500"), status)
        let cursor = try XCTUnwrap(screen.cursor)
        XCTAssertEqual(cursor.y, 9)
        XCTAssertEqual(cursor.x, 58)
        try send(.key(.home))
        let start = viewerRender(state)
        XCTAssertTrue(try XCTUnwrap(start.text.components(separatedBy: "\n").last).hasPrefix(" filter: price > 1 AND"))
        XCTAssertEqual(start.cursor?.x, 9)
        for (width, height) in [(0, 0), (1, 1), (20, 5), (21, 6)] {
            state.width = width
            state.height = height
            _ = viewerRender(state)
        }
    }

    // MARK: - Filter

    func testFilterNarrowsTheRowsAndTheCount() throws {
        try start(.table("item"))
        try prompt("f", "price > 500 AND name LIKE 'i%'")
        let table = try XCTUnwrap(state.table)
        XCTAssertEqual(table.rowCount, 50)
        XCTAssertEqual(selectedName, "item 051")
        XCTAssertTrue(screenText.contains("where price > 500 AND nam… 50 · live"), screenText)
                // price has an index: no scan is announced.
        XCTAssertNil(table.filterScannedRows)
        try send(.key(.end))
        XCTAssertEqual(selectedName, "item 100")
        XCTAssertTrue(screenText.contains("row 50 of 50") || !(state.table?.window?.reachesStart ?? true))
    }

    func testSortKeepsTheFilter() throws {
        try start(.table("item"))
        try prompt("f", "price > 500 AND name LIKE 'i%'")
        try send(.key(.right))
        try send(.key(.right))  // the price column
        try send(.key(.character("]")))
        let table = try XCTUnwrap(state.table)
        XCTAssertEqual(table.viewed.ordering.sortColumn, "price")
        XCTAssertEqual(table.viewed.source.filter, "price > 500 AND name LIKE 'i%'")
        XCTAssertEqual(table.rowCount, 50)
        try send(.key(.home))
        XCTAssertEqual(selectedName, "item 100")
        try send(.key(.end))
        XCTAssertEqual(selectedName, "item 051", "the filter's last row, by price descending")
        XCTAssertTrue(screenText.contains("by price ↓ · where price"), screenText)
    }

    func testFilterThatScansSaysSo() throws {
        try start(.table("item"))
        try prompt("f", "name LIKE '%5%'")
        XCTAssertEqual(state.table?.rowCount, 19)
        XCTAssertEqual(state.table?.filterScannedRows, .exact(100))
        XCTAssertTrue(screenText.contains("filtered: each update scans 100 rows"), screenText)
    }

    func testInvalidFilterIsExplainedAndThePreviousOneKept() throws {
        try start(.table("item"))
        try prompt("f", "price > 500")
        try prompt("f", " AND pricee > 1")  // the prompt holds "price > 500": this appends
        XCTAssertEqual(statusText, "invalid filter: no such column: pricee")
        XCTAssertEqual(state.table?.viewed.source.filter, "price > 500")
        XCTAssertEqual(state.table?.rowCount, 50)
        XCTAssertTrue(screenText.contains("invalid filter: no such column: pricee"))
    }

    func testFilterThatWouldWriteIsRefusedAndNothingIsWritten() throws {
        let before = try ForeignFile.sha256(path)
        try start(.table("item"))
        for attempt in ["1); DELETE FROM item; --", "1) UNION SELECT 1, 2, 3 FROM item WHERE (1", "(SELECT 1",
                        "price > 10 -- ) OR 1"] {
            try send(.key(.character("f")))
            try send(.key(.control("u")))
            try type(attempt)
            try send(.key(.enter))
            if attempt.hasPrefix("price") {
                // A comment ends with its line: a plain filter.
                XCTAssertEqual(state.table?.rowCount, 99, attempt)
                try send(.key(.escape))
                continue
            }
            XCTAssertTrue(statusText?.hasPrefix("invalid filter: ") == true, "\(attempt): \(statusText ?? "nil")")
            XCTAssertNil(state.table?.viewed.source.filter, attempt)
            XCTAssertEqual(state.table?.rowCount, 100, attempt)
        }
        XCTAssertEqual(try ForeignFile.sqlite3(path, "SELECT COUNT(*) FROM item"), "100\n")
        XCTAssertEqual(try ForeignFile.sha256(path), before)
    }

    func testEscAndAnEmptyFilterClearTheFilterBeforeQuitting() throws {
        try start(.table("item"))
        try prompt("f", "price <= 100")
        XCTAssertEqual(state.table?.rowCount, 10)
        XCTAssertEqual(try send(.key(.escape)).contains(.quit), false)
        XCTAssertNil(state.table?.viewed.source.filter)
        XCTAssertEqual(state.table?.rowCount, 100)
        XCTAssertEqual(statusText, "filter cleared")
        try prompt("f", "price <= 100")
        XCTAssertEqual(state.table?.rowCount, 10)
        try send(.key(.character("f")))
        try send(.key(.control("u")))
        try send(.key(.enter))
        XCTAssertNil(state.table?.viewed.source.filter)
        XCTAssertEqual(state.table?.rowCount, 100)
        // Without a filter, Esc does nothing: it never quits.
        XCTAssertEqual(try send(.key(.escape)), [])
    }

    func testFilterStaysLiveAndSearchStaysInIt() throws {
        try start(.table("item"))
        try send(.key(.right))
        try prompt("f", "price % 20 = 0")
        XCTAssertEqual(state.table?.rowCount, 50)
        XCTAssertEqual(selectedName, "item 002")
        try commit("INSERT INTO item(name, price) VALUES ('new even', 2000), ('new odd', 2010)")
        XCTAssertEqual(state.table?.rowCount, 51)
        try prompt("/", "new")
        XCTAssertEqual(selectedName, "new even")
        try send(.key(.character("n")))
        XCTAssertEqual(statusText, "search wrapped")
        XCTAssertEqual(selectedName, "new even")
        // The selected row leaves the filter: the next row takes its place.
        try send(.key(.home))
        try commit("UPDATE item SET price = 21 WHERE name = 'item 002'")
        XCTAssertEqual(selectedName, "item 004")
        XCTAssertEqual(state.table?.rowCount, 50)
    }

    func testFilterIsKeptWhenTheSourceIsOpenedAgainAfterAFailure() throws {
        try start(.table("item"))
        try prompt("f", "price <= 100")
        // A read failed (a page could not be read): the source is opened
        // again, with its filter.
        try send(.windowFailed("disk I/O error", .other))
        XCTAssertEqual(state.table?.viewed.source.filter, "price <= 100")
        XCTAssertEqual(state.table?.rowCount, 10)
        XCTAssertEqual(selectedName, "item 001")
        try commit("INSERT INTO item(name, price) VALUES ('cheap', 5)")
        XCTAssertEqual(state.table?.rowCount, 11)
    }

    func testFilterOnADroppedColumnIsDroppedAndSaysSo() throws {
        try start(.table("item"))
        try send(.key(.right))
        try prompt("f", "price <= 100")
        try commit("DROP INDEX item_price; ALTER TABLE item DROP COLUMN price")
        XCTAssertNil(state.table?.viewed.source.filter)
        XCTAssertEqual(statusText, "invalid filter: no such column: price")
        XCTAssertEqual(state.table?.rowCount, 100)
        XCTAssertEqual(state.table?.window?.rows.first, [1.databaseValue, "item 001".databaseValue])
    }

    func testFilterAndSearchOnAViewAndAWithoutRowidTable() throws {
        _ = try ForeignFile.sqlite3(path, """
            CREATE VIEW cheap AS SELECT name, price FROM item WHERE price < 300;
            CREATE TABLE code(key TEXT PRIMARY KEY, label TEXT) WITHOUT ROWID;
            INSERT INTO code VALUES ('a', 'Alpha'), ('b', 'Beta'), ('c', 'Gamma'), ('d', 'Delta');
            """)
        try start(.table("cheap"))
        try prompt("f", "price > 100")
        XCTAssertEqual(state.table?.rowCount, 19)
        try prompt("/", "02")
        XCTAssertEqual(state.table?.selectedIndex.flatMap { state.table?.window?.rows[$0][0] }, "item 020".databaseValue)

        try start(.table("code"))
        try prompt("f", "label LIKE '%ta'")
        XCTAssertEqual(state.table?.rowCount, 2)
        try send(.key(.right))
        try prompt("/", "DEL")
        XCTAssertEqual(selectedName, "Delta")
    }

    func testFilterOnAQueryUsesItsColumnNames() throws {
        try start(.query("SELECT name AS label, price * 2 AS doubled FROM item"))
        try prompt("f", "doubled > 1900")
        XCTAssertEqual(state.table?.rowCount, 5)
        XCTAssertEqual(state.table?.window?.rows.first?[0], "item 096".databaseValue)
        try prompt("/", "99")
        XCTAssertEqual(state.table?.selectedIndex.flatMap { state.table?.window?.rows[$0][0] }, "item 099".databaseValue)
    }
}
