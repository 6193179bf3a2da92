import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// The traps a new user fell into (issue 24, items 15 to 21), driven as in
/// `ViewerUpdateTests`: 100 items (`item 001` to `item 100`, price 10 to
/// 1,000), a table `other`, a 10-row terminal (pages of 6 rows).
extension ViewerUpdateTests {
    private var pickerSelection: String? {
        state.picker.entries.map { $0[state.picker.selectedIndex].name }
    }

    // MARK: - Esc

    func testEscClosesWhatIsOnTopAndNeverQuits() throws {
        try start(.table("item"))
        try send(.key(.enter))
        XCTAssertEqual(state.overlay, .row(scroll: 0))
        XCTAssertFalse(try send(.key(.escape)).contains(.quit))
        XCTAssertNil(state.overlay)
        try type("fprice <= 100")
        try send(.key(.enter))
        XCTAssertEqual(state.table?.rowCount, 10)
        try send(.key(.character("?")))
        XCTAssertFalse(try send(.key(.escape)).contains(.quit))
        XCTAssertNil(state.overlay)
        XCTAssertFalse(try send(.key(.escape)).contains(.quit))
        XCTAssertNil(state.table?.viewed.source.filter)
        // Nothing left to close: Esc does nothing, q quits.
        XCTAssertEqual(try send(.key(.escape)), [])
        XCTAssertEqual(state.table?.viewed.target, .table("item"))
        XCTAssertEqual(try send(.key(.character("q"))), [.quit])
    }

    func testEscOnThePickerGoesBackToTheTableLeft() throws {
        try start(nil)
        XCTAssertEqual(try send(.key(.escape)), [], "no table to go back to")
        try send(.key(.down))
        try send(.key(.enter))
        XCTAssertEqual(state.table?.viewed.target, .table("other"))
        try type("t")
        XCTAssertNil(state.table)
        XCTAssertFalse(try send(.key(.escape)).contains(.quit))
        XCTAssertEqual(state.table?.viewed.target, .table("other"))
    }

    // MARK: - The filter's prompt

    func testARejectedFilterStaysOnThePromptAndArrowsWalkTheFiltersTyped() throws {
        try start(.table("item"))
        try type("ftotl > 5")
        try send(.key(.enter))
        XCTAssertTrue(statusText?.hasPrefix("invalid filter: ") == true, statusText ?? "nil")
        XCTAssertEqual(state.prompt?.kind, .filter)
        XCTAssertEqual(state.prompt?.text, "totl > 5")
        // The status line holds the prompt: the footer says why.
        XCTAssertTrue(viewerRender(state).lines[8].contains("invalid filter"), viewerRender(state).text)
        try send(.key(.control("u")))
        try type("price <= 100")
        try send(.key(.enter))
        XCTAssertNil(state.prompt)
        XCTAssertEqual(state.table?.viewed.source.filter, "price <= 100")
        try type("f")
        XCTAssertEqual(state.prompt?.text, "price <= 100", "f opens on the current filter")
        try send(.key(.control("u")))
        try type("id")
        try send(.key(.up))
        XCTAssertEqual(state.prompt?.text, "price <= 100")
        try send(.key(.up))
        XCTAssertEqual(state.prompt?.text, "totl > 5")
        try send(.key(.up))
        XCTAssertEqual(state.prompt?.text, "totl > 5", "the oldest stays")
        try send(.key(.down))
        XCTAssertEqual(state.prompt?.text, "price <= 100")
        try send(.key(.down))
        XCTAssertEqual(state.prompt?.text, "id", "back to the line being typed")
    }

    func testTheFirstUpInTheFilterPromptSkipsTheFilterAlreadyThere() throws {
        try start(.table("item"))
        try type("fprice <= 100")
        try send(.key(.enter))
        try type("f")
        try send(.key(.control("u")))
        try type("price <= 500")
        try send(.key(.enter))
        try type("f")
        XCTAssertEqual(state.prompt?.text, "price <= 500")
        try send(.key(.up))
        XCTAssertEqual(state.prompt?.text, "price <= 100", "the first ↑ shows another filter")
        try send(.key(.down))
        XCTAssertEqual(state.prompt?.text, "price <= 500")
        try send(.key(.down))
        XCTAssertEqual(state.prompt?.text, "price <= 500", "back to the line typed")
    }

    // MARK: - Back from the picker

    func testATableLeftWithTComesBackAsItWas() throws {
        try start(.table("item"))
        try type("ll")  // the price column
        try type("[")
        try type("fprice <= 500")
        try send(.key(.enter))
        try type("jjj>")
        let table = try XCTUnwrap(state.table)
        XCTAssertEqual(selectedName, "item 004")
        XCTAssertEqual(table.viewed.ordering.sortColumn, "price")
        try type("t")
        XCTAssertNil(state.table)
        XCTAssertEqual(pickerSelection, "item", "the cursor on the table left")
        try send(.key(.enter))
        let back = try XCTUnwrap(state.table)
        XCTAssertEqual(back.viewed.ordering, table.viewed.ordering)
        XCTAssertEqual(back.viewed.source.filter, "price <= 500")
        XCTAssertEqual(selectedName, "item 004")
        XCTAssertEqual(back.selectedRow, table.selectedRow)
        XCTAssertEqual(back.currentColumn, table.currentColumn)
        XCTAssertEqual(back.columnWidths, table.columnWidths)
        XCTAssertEqual(back.rowCount, 50)
    }

    /// Sends `message` as `send` does, but leaves the filter's checks
    /// unanswered: they are still running.
    @discardableResult
    private func sendHoldingFilterChecks(_ message: ViewerMessage) throws -> [ViewerEffect] {
        let database = driver.dataSource, now = driver.now
        return try driveViewer(&driver.state, message) { effect in
            if case .filter = effect { return nil }
            return try performViewerEffect(effect, on: database, now: now, countChunk: 7)
        }
    }

    func testEscWhileARememberedFilterIsCheckedShowsTheRowsUnfiltered() throws {
        try start(.table("item"))
        try type("fprice <= 500")
        try send(.key(.enter))
        try type("t")
        try sendHoldingFilterChecks(.key(.enter))
        XCTAssertEqual(state.table?.pendingFilter, "price <= 500", "the filter is being checked")
        XCTAssertNil(state.table?.window)
        let effects = try send(.key(.escape))
        XCTAssertTrue(effects.contains(.stop(.filter)), "\(effects)")
        XCTAssertNil(state.table?.viewed.source.filter)
        XCTAssertEqual(state.table?.window?.rows.isEmpty, false, "a window is read")
        XCTAssertEqual(state.table?.rowCount, 100)
    }

    func testATableLeftWhileARememberedFilterIsCheckedKeepsTheFilter() throws {
        try start(.table("item"))
        try type("fprice <= 500")
        try send(.key(.enter))
        try type("t")
        try sendHoldingFilterChecks(.key(.enter))
        XCTAssertEqual(state.table?.pendingFilter, "price <= 500")
        try type("t")
        XCTAssertNil(state.table)
        try send(.key(.enter))
        XCTAssertEqual(state.table?.viewed.source.filter, "price <= 500")
        XCTAssertEqual(state.table?.rowCount, 50)
    }

    func testThePickerCursorStartsOnTheTableLeftAndFindsATableAsItsNameIsTyped() throws {
        try start(.table("other"))
        try type("t")
        XCTAssertEqual(pickerSelection, "other")
        try type("gg")
        XCTAssertEqual(pickerSelection, "item")
        try type("/OT")
        XCTAssertEqual(pickerSelection, "other")
        try send(.key(.backspace))
        try send(.key(.backspace))
        try type("it")
        XCTAssertEqual(pickerSelection, "item")
        try send(.key(.enter))
        XCTAssertEqual(state.table?.viewed.target, .table("item"))
    }

    func testAnOpenThatFindsNoTableOnThePickerListsTheTablesAgain() throws {
        for kind in [ViewerFailureKind.missingSource, .fileReplaced] {
            try start(nil)
            let database = driver.dataSource, now = driver.now
            let effects = try driveViewer(&driver.state, .key(.enter)) { effect in
                if case .open = effect { return .openFailed(#"no table or view "item": the file has "t", "t2""#, kind) }
                return try performViewerEffect(effect, on: database, now: now, countChunk: 7)
            }
            XCTAssertNil(state.table)
            XCTAssertTrue(effects.contains(.listTables), "\(kind): \(effects)")
            XCTAssertEqual(state.picker.entries?.map(\.name), ["item", "other"])
            XCTAssertTrue(statusText?.hasPrefix("no table or view") == true, statusText ?? "nil")
        }
    }

    func testAFindOnThePickerThatMatchesNothingKeepsThePromptAndArrowsStepThroughTheMatches() throws {
        try start(nil)
        try type("/zzz")
        XCTAssertEqual(statusText, #"no table matches "zzz""#)
        XCTAssertEqual(try send(.key(.enter)), [], "nothing is opened")
        XCTAssertNil(state.table)
        XCTAssertEqual(state.prompt?.kind, .findTable)
        XCTAssertEqual(state.prompt?.text, "zzz")
        try send(.key(.control("u")))
        try type("e")
        XCTAssertNil(statusText)
        XCTAssertEqual(pickerSelection, "item")
        try send(.key(.down))
        XCTAssertEqual(pickerSelection, "other")
        try send(.key(.down))
        XCTAssertEqual(pickerSelection, "item", "round")
        try send(.key(.up))
        XCTAssertEqual(pickerSelection, "other")
        try send(.key(.enter))
        XCTAssertEqual(state.table?.viewed.target, .table("other"))
    }

    // MARK: - Sorting from the first row

    func testASortFromTheFirstRowShowsTheNewFirstRow() throws {
        try start(.table("item"))
        try type("ll]")
        XCTAssertEqual(selectedName, "item 100")
        XCTAssertEqual(state.table?.selectedRow, 0)
        XCTAssertNil(statusText)
        // Elsewhere the row stays, and the status line says how to go to the top.
        try type("jj[")
        XCTAssertEqual(selectedName, "item 098")
        XCTAssertTrue(statusText?.contains("g goes to the top") == true, statusText ?? "nil")
    }

    // MARK: - Monochrome NULL

    func testNullDiffersFromTheTextNullWithoutColours() throws {
        try ForeignFile.sqlite3(path, "UPDATE item SET name = NULL WHERE id = 1; UPDATE item SET name = 'NULL' WHERE id = 2")
        try start(.table("item"))
        XCTAssertFalse(state.useColor)
        try type("jjj")
        let screen = viewerRender(state)
        // The style of the first cell of each "NULL" on the screen.
        var styles: [CellStyle] = []
        for y in 0..<screen.height {
            let texts = (0..<screen.width).map { screen[$0, y].text }
            for x in 0..<(screen.width - 3) where texts[x..<x + 4] == ["N", "U", "L", "L"] {
                styles.append(screen[x, y].style)
                // The name column is 8 wide: the blanks after NULL are not underlined.
                XCTAssertEqual(texts[x + 4], " ", screen.text)
                XCTAssertFalse(screen[x + 4, y].style.underline, "\(y): \(screen.text)")
            }
        }
        XCTAssertEqual(styles.count, 2, screen.text)
        XCTAssertNotEqual(styles.first, styles.last)
    }

    // MARK: - Column widths

    func testColumnWidthsStayPutAsRowsScroll() throws {
        let long = "a name of 25 characters.."
        try ForeignFile.sqlite3(path, "UPDATE item SET name = '\(long)' WHERE id <= 3")
        try start(.table("item"))
        let width = try XCTUnwrap(state.table?.columnPlan(width: state.width).widths[1])
        XCTAssertEqual(width, long.count)
        try type("G")
        XCTAssertEqual(selectedName, "item 100")
        XCTAssertEqual(state.table?.columnPlan(width: state.width).widths[1], width)
        try type("g")
        XCTAssertEqual(state.table?.columnPlan(width: state.width).widths[1], width)
    }

    // MARK: - The cost of a query

    func testAGroupingQuerySaysNoRowCountAsItsCost() throws {
        try start(.query("SELECT price % 7 AS m, count(*) FROM item GROUP BY m"))
        XCTAssertEqual(state.table?.rowCount, 7)
        let status = viewerRender(state).lines[9]
        XCTAssertFalse(status.contains("scans 7 rows"), status)
        XCTAssertTrue(status.contains("each update runs the whole query"), status)
        XCTAssertFalse(status.contains("index"), "no index would help: \(status)")
    }
}
