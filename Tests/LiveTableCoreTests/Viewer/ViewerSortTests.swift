import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// Sorting by the current column with `[` and `]`, on the harness of
/// `ViewerUpdateTests` (a file written by the sqlite3 CLI; `item` has an
/// index on `price`, none on `name`): the effects asked, the selection kept
/// by identity at its screen row, and the same key again back to the
/// natural order.
extension ViewerUpdateTests {
    // MARK: - Helpers

    /// Moves the column cursor to `column` of the table on screen.
    private func moveCursor(to column: String) throws {
        let table = try XCTUnwrap(state.table)
        let index = try XCTUnwrap(table.viewed.source.columnNames.firstIndex(of: column))
        while state.table!.currentColumn > index { try send(.key(.left)) }
        while state.table!.currentColumn < index { try send(.key(.right)) }
    }

    /// The values of `column` on the list, from the top.
    private func visible(_ column: Int) throws -> [String] {
        let table = try XCTUnwrap(state.table)
        let window = try XCTUnwrap(table.window)
        return window.rows.dropFirst(table.scrollTop).prefix(state.pageRows).map { row in
            row[column].storage.value.map { "\($0)" } ?? "NULL"
        }
    }

    /// The values of `column` in the rows before the selection, of the
    /// selection, and after it.
    private func neighbours(_ column: Int) throws -> [String] {
        let table = try XCTUnwrap(state.table)
        let window = try XCTUnwrap(table.window)
        let index = try XCTUnwrap(table.selectedIndex)
        return window.rows[max(0, index - 1)...min(window.rows.count - 1, index + 1)].map { row in
            row[column].storage.value.map { "\($0)" } ?? "NULL"
        }
    }

    /// The status line of the screen.
    private var statusLine: String {
        let lines = viewerRender(state).text.components(separatedBy: "\n")
        return lines[ViewerLayout(width: state.width, height: state.height).statusY]
            .trimmingCharacters(in: .whitespaces)
    }

    // MARK: - Tests

    func testBracketKeysOpenTheSourceSortedByTheCurrentColumn() throws {
        try start(.table("item"))
        try moveCursor(to: "price")
        // The key asks for the source in the new order, and says so until
        // its window arrives.
        let effects = viewerUpdate(&state, .key(.character("]")))
        // The window of the order on screen is left (its read interrupted).
        XCTAssertEqual(effects, [.stop(.window), .stop(.rowsBefore), .open(.table("item"), sortColumn: "price", descending: true)])
        XCTAssertEqual(state.table?.pendingSort, PendingSort(column: "price", descending: true))
        XCTAssertEqual(statusLine, "sorting by price…")
        let viewed = try database.read { db in
            try ViewedSource.open(.table("item"), sortColumn: "price", descending: true, in: db)
        }
        // Opened: its window is observed, no count (the rows are the same).
        let observe = viewerUpdate(&state, .opened(viewed))
        guard case let .observe(observed, request)? = observe.first, observe.count == 1 else {
            return XCTFail("expected one observation, got \(observe)")
        }
        XCTAssertEqual(observed.ordering.sortColumn, "price")
        XCTAssertTrue(observed.ordering.descending)
        XCTAssertEqual(observed.cost, .indexSearch)
        XCTAssertEqual(statusLine, "sorting by price…")
        try send(.window(try database.read { db in try ViewerWindow.fetch(db, observed, request) }))
        XCTAssertNil(state.table?.pendingSort)
        // The index keeps the window a search: the status line is quiet.
        XCTAssertEqual(statusLine, "")
        XCTAssertTrue(viewerRender(state).text.contains("items.sqlite — item · by price ↓"))
        try send(.key(.home))
        XCTAssertEqual(try visible(2), ["1000", "990", "980", "970", "960", "950"])
    }

    func testLeftBracketSortsAscendingAndUnindexedColumnStatesItsCost() throws {
        try ForeignFile.sqlite3(path, "UPDATE item SET name = printf('z%03d', 200 - id) WHERE id > 95")
        try start(.table("item"))
        try moveCursor(to: "name")
        try send(.key(.character("[")))
        let table = try XCTUnwrap(state.table)
        XCTAssertEqual(table.viewed.ordering.sortColumn, "name")
        XCTAssertFalse(table.viewed.ordering.descending)
        XCTAssertEqual(table.viewed.cost, .scan)
        XCTAssertEqual(statusLine, "sorted by an unindexed column: each update scans 100 rows")
        try send(.key(.end))
        XCTAssertEqual(try visible(1), ["item 095", "z100", "z101", "z102", "z103", "z104"])
    }

    func testSelectionStaysOnItsRowAtItsScreenRowAcrossTheSort() throws {
        try start(.table("item"))
        for _ in 0..<40 { try send(.key(.down)) }
        for _ in 0..<2 { try send(.key(.up)) }
        XCTAssertEqual(selectedName, "item 039")
        let row = try XCTUnwrap(state.table?.selectedRow)
        XCTAssertEqual(row, 3)
        try moveCursor(to: "name")
        try send(.key(.character("]")))
        XCTAssertEqual(selectedName, "item 039")
        XCTAssertEqual(state.table?.selectedRow, row)
        XCTAssertEqual(try visible(1), ["item 042", "item 041", "item 040", "item 039", "item 038", "item 037"])
        // Ascending, on the indexed column: still there.
        try moveCursor(to: "price")
        try send(.key(.character("[")))
        XCTAssertEqual(selectedName, "item 039")
        XCTAssertEqual(state.table?.selectedRow, row)
        XCTAssertEqual(try visible(1), ["item 036", "item 037", "item 038", "item 039", "item 040", "item 041"])
    }

    func testHomeTypedBeforeTheSortCameGoesToTheFirstRowOfTheNewOrder() throws {
        try start(.table("item"))
        for _ in 0..<40 { try send(.key(.down)) }
        try moveCursor(to: "price")
        XCTAssertEqual(viewerUpdate(&state, .key(.character("]"))).count, 3)
        // Home while the new order opens: nothing is read in the order left.
        XCTAssertEqual(viewerUpdate(&state, .key(.home)), [])
        let viewed = try database.read { db in
            try ViewedSource.open(.table("item"), sortColumn: "price", descending: true, in: db)
        }
        let observe = viewerUpdate(&state, .opened(viewed))
        guard case let .observe(observed, request)? = observe.first, observe.count == 1 else {
            return XCTFail("expected one observation, got \(observe)")
        }
        // The first row of the new order, not the selected row's place.
        XCTAssertEqual(request.anchor, .first)
        try send(.window(try database.read { db in try ViewerWindow.fetch(db, observed, request) }))
        XCTAssertEqual(state.table?.selectedIndex, 0)
        XCTAssertEqual(try visible(2).first, "1000")
    }

    func testSameKeyAgainGoesBackToTheNaturalOrder() throws {
        try start(.table("item"))
        try moveCursor(to: "price")
        try send(.key(.character("]")))
        XCTAssertEqual(state.table?.viewed.ordering.sortColumn, "price")
        // The other key on the same column: the other direction.
        try send(.key(.character("[")))
        XCTAssertEqual(state.table?.viewed.ordering.sortColumn, "price")
        XCTAssertEqual(state.table?.viewed.ordering.descending, false)
        // The same key again: the natural order (rowid).
        let effects = try send(.key(.character("[")))
        XCTAssertEqual(effects.prefix(3), [.stop(.window), .stop(.rowsBefore), .open(.table("item"), sortColumn: nil, descending: false)])
        let table = try XCTUnwrap(state.table)
        XCTAssertNil(table.viewed.ordering.sortColumn)
        XCTAssertEqual(table.viewed.ordering.keyColumns.map(\.expression), ["rowid"])
        XCTAssertFalse(viewerRender(state).text.contains(" · by "))
        XCTAssertEqual(selectedName, "item 001")
    }

    func testSortAtLaunchPutsTheCursorOnItsColumnAndTheKeysAgree() throws {
        // Spelled otherwise than the table does: the column's own name.
        try start(.table("item"), sort: "PRICE", descending: true)
        let table = try XCTUnwrap(state.table)
        XCTAssertEqual(table.viewed.ordering.sortColumn, "price")
        XCTAssertEqual(table.viewed.source.columnNames[table.currentColumn], "price")
        XCTAssertTrue(viewerRender(state).text.contains("by price ↓"))
        let effects = try send(.key(.character("]")))
        XCTAssertEqual(effects.prefix(3), [.stop(.window), .stop(.rowsBefore), .open(.table("item"), sortColumn: nil, descending: false)])
        XCTAssertNil(state.table?.viewed.ordering.sortColumn)
    }

    func testKeyAgainBeforeTheSortCameDropsIt() throws {
        try start(.table("item"))
        try moveCursor(to: "price")
        let asked = viewerUpdate(&state, .key(.character("]")))
        XCTAssertEqual(asked, [.stop(.window), .stop(.rowsBefore), .open(.table("item"), sortColumn: "price", descending: true)])
        // Back to the order on screen: nothing to open, the opening on its
        // way is left (and dropped if it comes), and the order on screen
        // observed again.
        let back = viewerUpdate(&state, .key(.character("]")))
        XCTAssertEqual(back.first, .stop(.open))
        guard case .observe? = back.last, back.count == 2 else { return XCTFail("\(back)") }
        XCTAssertNil(state.table?.pendingSort)
        XCTAssertEqual(statusLine, "")
        let viewed = try database.read { db in
            try ViewedSource.open(.table("item"), sortColumn: "price", descending: true, in: db)
        }
        XCTAssertEqual(viewerUpdate(&state, .opened(viewed)), [])
        XCTAssertNil(state.table?.viewed.ordering.sortColumn)
    }

    func testViewSortedSelectsTheFirstRow() throws {
        try ForeignFile.sqlite3(path, "CREATE VIEW cheap AS SELECT name, price FROM item WHERE price < 500")
        try start(.table("cheap"))
        for _ in 0..<10 { try send(.key(.down)) }
        XCTAssertEqual(selectedName, "110")
        try moveCursor(to: "price")
        try send(.key(.character("]")))
        // A row of a view has no identity to follow: the first row.
        XCTAssertEqual(selectedName, "490")
        XCTAssertEqual(state.table?.selectedRow, 0)
        XCTAssertEqual(try visible(1), ["490", "480", "470", "460", "450", "440"])
    }

    func testQuerySortedSelectsTheFirstRow() throws {
        try start(.query("SELECT name, price * 2 AS double FROM item WHERE id <= 20"))
        for _ in 0..<3 { try send(.key(.down)) }
        try moveCursor(to: "double")
        try send(.key(.character("]")))
        XCTAssertEqual(state.table?.viewed.ordering.sortColumn, "double")
        XCTAssertEqual(selectedName, "400")
        XCTAssertEqual(state.table?.selectedRow, 0)
        try send(.key(.character("]")))
        XCTAssertNil(state.table?.viewed.ordering.sortColumn)
        XCTAssertEqual(try visible(0).first, "item 001")
    }

    func testWithoutRowidTableKeepsTheSelectionByPrimaryKey() throws {
        try ForeignFile.sqlite3(path, """
            CREATE TABLE stock(sku TEXT PRIMARY KEY, shelf INTEGER) WITHOUT ROWID;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50)
            INSERT INTO stock(sku, shelf) SELECT printf('sku %02d', i), (i * 7) % 50 FROM n;
            """)
        try start(.table("stock"))
        for _ in 0..<20 { try send(.key(.down)) }
        let selected = try XCTUnwrap(state.table?.selectedIndex)
        XCTAssertEqual(state.table?.window?.rows[selected][0], "sku 21".databaseValue)
        let row = try XCTUnwrap(state.table?.selectedRow)
        try moveCursor(to: "shelf")
        try send(.key(.character("[")))
        XCTAssertEqual(try neighbours(0), ["sku 28", "sku 21", "sku 14"])
        XCTAssertEqual(try neighbours(1), ["46", "47", "48"])
        XCTAssertEqual(state.table?.selectedRow, row)
    }

    func testCommitWhileSortedMovesTheRowAndTheSelectionFollows() throws {
        try start(.table("item"))
        try moveCursor(to: "name")
        try send(.key(.character("]")))
        try send(.key(.home))
        try send(.key(.down))
        XCTAssertEqual(selectedName, "item 099")
        try commit("UPDATE item SET name = 'item 050½' WHERE name = 'item 099'")
        XCTAssertEqual(selectedName, "item 050½")
        XCTAssertEqual(try neighbours(1), ["item 051", "item 050½", "item 050"])
    }
}
