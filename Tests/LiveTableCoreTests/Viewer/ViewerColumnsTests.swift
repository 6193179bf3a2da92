import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// The viewer's columns: the key column frozen on the left, the sideways
/// scroll moved only as far as the column cursor needs, `<` `>` widths by
/// column name, `-` hiding and `=` showing all, change highlighting on the
/// right cell after scrolling. `viewerUpdate` is driven with its effects
/// performed against a file the sqlite3 CLI made, and `viewerRender`'s
/// screens compared as text.
final class ViewerColumnsTests: XCTestCase {
    private var path: String!
    private var database: SQLiteDataSource!
    /// The one viewer driver: time is injected, from its start.
    private var driver: ViewerDriver!

    override func setUpWithError() throws {
        path = try makeTemporaryDirectory().appendingPathComponent("wide.sqlite").path
        // The key column is not the first one: frozen, it comes first.
        try ForeignFile.sqlite3(path, """
            CREATE TABLE wide(label TEXT, id INTEGER PRIMARY KEY, c1 TEXT, c2 TEXT, c3 TEXT, c4 TEXT, c5 TEXT, c6 TEXT);
            INSERT INTO wide VALUES
                ('first', 1, 'aaaaa', 'bbbbb', 'ccccc', 'ddddd', 'eeeee', 'fffff'),
                ('second', 2, 'AAAAA', 'BBBBB', 'CCCCC', 'DDDDD', 'EEEEE', 'FFFFF');
            CREATE TABLE pairs(a, b, c, PRIMARY KEY(c, a)) WITHOUT ROWID;
            CREATE TABLE plain(x, y);
            CREATE VIEW some AS SELECT id, label FROM wide;
            """)
        database = try SQLiteDataSource.open(path: path)
    }

    // MARK: - Driving

    private var state: ViewerState { driver.state }

    /// Opens `target` on a `width` x 6 screen: two rows of the list.
    private func open(_ target: ViewerTarget = .table("wide"), width: Int = 30) throws {
        driver = try ViewerDriver(path: path, target: target, width: width, height: 6)
    }

    /// Sends a message, and performs the effects it asks for, at `offset`
    /// after the start.
    private func send(_ message: ViewerMessage, at offset: Duration = .zero) throws {
        driver.clock = offset
        try driver.send(message)
    }

    /// Another process commits `sql`; the observation delivers its window
    /// again, at `offset` after the start.
    private func commit(_ sql: String, at offset: Duration = .zero) throws {
        driver.clock = offset
        try driver.commit(sql)
    }

    /// Types each character of `keys`.
    private func type(_ keys: String) throws {
        for key in keys {
            try send(.key(.character(key)))
        }
    }

    /// The screen's lines from the header to the last row of the list,
    /// without their trailing blanks.
    private var columns: String {
        viewerRender(state).lines[1...3]
            .map { String($0.reversed().drop { $0 == " " }.reversed()) }
            .joined(separator: "\n")
    }

    /// What the status line says.
    private var status: String {
        viewerRender(state).lines[5].trimmingCharacters(in: .whitespaces)
    }

    /// The name of the column under the cursor.
    private var current: String? {
        state.table.map { $0.viewed.source.columnNames[$0.currentColumn] }
    }

    /// The x of the cursor's reversed header.
    private var cursorX: Int? {
        let screen = viewerRender(state)
        return (0..<screen.width).first { screen.style(x: $0, y: 1)?.reverse == true }
    }

    // MARK: - Frozen key columns

    func testKeyColumnIsFrozenOnTheLeftWhileTheOthersScroll() throws {
        try open()
        XCTAssertEqual(columns, """
             id  label   c1     c2
              1  first   aaaaa  bbbbb
              2  second  AAAAA  BBBBB
            """)
        XCTAssertEqual(current, "id", "the cursor starts on the first column of the screen")
        XCTAssertEqual(status, "4 more columns →")
        try type("lllll")
        XCTAssertEqual(current, "c4")
        XCTAssertEqual(columns, """
             id  c2     c3     c4     c5
              1  bbbbb  ccccc  ddddd  ee…
              2  BBBBB  CCCCC  DDDDD  EE…
            """, "the key stays; the cursor's column is the last whole one")
        XCTAssertEqual(status, "← 2 · 1 more column →")
        XCTAssertEqual(cursorX, 19)
        try type("ll")
        XCTAssertEqual(columns, """
             id  c4     c5     c6
              1  ddddd  eeeee  fffff
              2  DDDDD  EEEEE  FFFFF
            """)
        XCTAssertEqual(status, "← 4")
        try type("hhhhhhhh")
        XCTAssertEqual(current, "id", "the cursor moves onto the frozen column")
        XCTAssertEqual(columns, """
             id  label   c1     c2
              1  first   aaaaa  bbbbb
              2  second  AAAAA  BBBBB
            """)
    }

    func testKeyColumnsOfEachKindOfSource() throws {
        func keys(_ target: ViewerTarget) throws -> [String] {
            let source = try database.read { db in
                try ViewedSource.open(target, sortColumn: nil, descending: false, in: db).source
            }
            return source.keyColumns.map { source.columnNames[$0] }
        }
        XCTAssertEqual(try keys(.table("wide")), ["id"], "the INTEGER PRIMARY KEY, an alias of the rowid")
        XCTAssertEqual(try keys(.table("pairs")), ["c", "a"], "a WITHOUT ROWID table's primary key, in key order")
        XCTAssertEqual(try keys(.table("plain")), [], "the rowid is not a column")
        XCTAssertEqual(try keys(.table("some")), [], "a view has no identity")
        XCTAssertEqual(try keys(.query("SELECT id, label FROM wide")), [], "nor a query")
        try open(.table("pairs"))
        XCTAssertEqual(viewerRender(state).lines[1].trimmingCharacters(in: .whitespaces), "c  a  b")
    }

    // MARK: - Sideways scroll

    func testMovingLeftInsideTheScreenDoesNotScroll() throws {
        try open()
        try type("llllll")
        let scrolled = columns
        XCTAssertEqual(state.table?.firstColumn, 4, "c3")
        try type("hh")
        XCTAssertEqual(current, "c3")
        XCTAssertEqual(state.table?.firstColumn, 4)
        XCTAssertEqual(columns, scrolled, "no jump: c4 and c3 were whole on screen")
        XCTAssertEqual(cursorX, 5)
        try type("h")
        XCTAssertEqual(current, "c2")
        XCTAssertEqual(columns, """
             id  c2     c3     c4     c5
              1  bbbbb  ccccc  ddddd  ee…
              2  BBBBB  CCCCC  DDDDD  EE…
            """, "one column to the left, only as far as the cursor needs")
        try type("lll")
        XCTAssertEqual(current, "c5")
        XCTAssertEqual(state.table?.firstColumn, 4, "moving right scrolls by one column to show c5 whole")
    }

    func testNarrowerColumnsScrollBackRatherThanLeaveTheScreenPartEmpty() throws {
        try open()
        try type("llllllll")
        XCTAssertEqual(current, "c6")
        XCTAssertEqual(state.table?.firstColumn, 5, "c4")
        try type("<")
        XCTAssertEqual(columns, """
             id  c3     c4     c5     c6
              1  ccccc  ddddd  eeeee  ff…
              2  CCCCC  DDDDD  EEEEE  FF…
            """, "c3 fills the room c6 left")
        try send(.resize(width: 80, height: 6))
        XCTAssertEqual(state.table?.firstColumn, 0, "a wider screen shows every column")
        XCTAssertEqual(status, "")
    }

    func testNarrowerScreenScrollsToKeepTheCursorWhole() throws {
        try open()
        try type("lll")
        XCTAssertEqual(state.table?.firstColumn, 0, "c2 is whole at 30 cells")
        try send(.resize(width: 24, height: 6))
        XCTAssertEqual(state.table?.firstColumn, 2)
        XCTAssertEqual(columns, """
             id  c1     c2     c3
              1  aaaaa  bbbbb  ccc…
              2  AAAAA  BBBBB  CCC…
            """)
    }

    func testWiderValuesOfAnotherProcessScrollToKeepTheCursorWhole() throws {
        try open()
        try type("llllll")
        XCTAssertEqual(current, "c5")
        XCTAssertEqual(state.table?.firstColumn, 4, "c3")
        try commit("UPDATE wide SET c4 = 'a longer one' WHERE id = 1")
        XCTAssertEqual(state.table?.firstColumn, 5, "c4, wider: c5 would be cut")
        XCTAssertEqual(columns, """
             id  c4            c5     c6
              1  a longer one  eeeee  ff…
              2  DDDDD         EEEEE  FF…
            """)
    }

    // MARK: - Widths

    func testNarrowAndWidenTheCurrentColumnRememberedByName() throws {
        try open()
        try type("<")
        XCTAssertEqual(state.table?.columnWidths, [:], "id, 2 cells wide, is not made wider by <")
        try type("l<")
        XCTAssertEqual(state.table?.columnWidths, ["label": 3])
        XCTAssertEqual(columns, """
             id  la…  c1     c2     c3
              1  fi…  aaaaa  bbbbb  ccccc
              2  se…  AAAAA  BBBBB  CCCCC
            """, "cut names and values end with …")
        try type("<")
        XCTAssertEqual(state.table?.columnWidths, ["label": 3], "at least 3 cells")
        try type("l>>")
        XCTAssertEqual(state.table?.columnWidths, ["label": 3, "c1": 13])
        try type("hl")
        XCTAssertEqual(columns, """
             id  la…  c1             c2
              1  fi…  aaaaa          bbb…
              2  se…  AAAAA          BBB…
            """, "each width stays with its column")
        try type(">>>>>>>>")
        XCTAssertEqual(state.table?.columnWidths["c1"], 28, "at most the screen")
        XCTAssertEqual(state.table?.firstColumn, 2, "c1 comes first, cut: it can not be whole")
        let widths = state.table?.columnWidths
        try send(.key(.character("t")))
        try send(.key(.home))
        try send(.key(.enter))
        XCTAssertEqual(state.table?.viewed.source.name, "pairs")
        XCTAssertEqual(state.table?.columnWidths, [:], "another table: its own widths")
        try type("t/wide")
        try send(.key(.enter))
        XCTAssertEqual(state.table?.viewed.source.name, "wide")
        XCTAssertEqual(state.table?.columnWidths, widths, "back on the table: its widths kept for the session")
    }

    // MARK: - Hiding

    func testHideMovesTheCursorOnAndShowAllBringsThemBack() throws {
        try open(width: 46)
        XCTAssertEqual(status, "1 more column →")
        try type("l-")
        XCTAssertEqual(current, "c1", "the next column takes the cursor")
        XCTAssertEqual(columns, """
             id  c1     c2     c3     c4     c5     c6
              1  aaaaa  bbbbb  ccccc  ddddd  eeeee  fffff
              2  AAAAA  BBBBB  CCCCC  DDDDD  EEEEE  FFFFF
            """)
        XCTAssertEqual(status, "1 hidden · = shows all")
        try type("lllll-")
        XCTAssertEqual(current, "c5", "the last column hidden: the previous one takes the cursor")
        XCTAssertEqual(status, "2 hidden · = shows all", "no more columns: the hidden ones are left out")
        try send(.key(.enter))
        XCTAssertEqual(rowDetailLines(state).map { $0.name.trimmingCharacters(in: .whitespaces) }, ["label", "id", "c1", "c2", "c3", "c4", "c5", "c6"],
                       "the whole row shows every column")
        try send(.key(.enter))
        try type("=")
        XCTAssertEqual(state.table?.hiddenColumns, [])
        XCTAssertEqual(current, "c5")
        XCTAssertEqual(status, "← 1")
        XCTAssertEqual(columns, """
             id  c1     c2     c3     c4     c5     c6
              1  aaaaa  bbbbb  ccccc  ddddd  eeeee  fffff
              2  AAAAA  BBBBB  CCCCC  DDDDD  EEEEE  FFFFF
            """, "the label is back, scrolled off to the left: c5 stays whole")
        try type("hhhhh")
        XCTAssertEqual(current, "label", "the label is back")
        XCTAssertEqual(status, "1 more column →")
    }

    func testTheLastColumnShownCanNotBeHidden() throws {
        try open(.table("plain"))
        try type("-")
        XCTAssertEqual(state.table?.hiddenColumns, ["x"])
        try type("-")
        XCTAssertEqual(state.table?.hiddenColumns, ["x"])
        XCTAssertEqual(state.message, .notice("the last column stays shown"))
        XCTAssertEqual(current, "y")
    }

    // MARK: - Change highlighting

    func testChangedCellIsHighlightedOnItsColumnAfterScrolling() throws {
        try open()
        try type("llllll")
        XCTAssertEqual(current, "c5")
        try commit("UPDATE wide SET c5 = 'ZZZZZ' WHERE id = 2", at: .milliseconds(100))
        XCTAssertEqual(columns, """
             id  c3     c4     c5     c6
              1  ccccc  ddddd  eeeee  ff…
              2  CCCCC  DDDDD  ZZZZZ  FF…
            """)
        let screen = viewerRender(state)
        XCTAssertEqual(screen.style(x: 19, y: 3), CellStyle(color: .normal, bold: true, reverse: true),
                       "c5 of the changed row, strong")
        XCTAssertEqual(screen.style(x: 12, y: 3), CellStyle.plain, "c4 of the changed row")
        XCTAssertEqual(screen.style(x: 26, y: 3), CellStyle.plain, "c6 of the changed row")
        XCTAssertEqual(screen.style(x: 1, y: 3), CellStyle.plain, "its frozen id")
    }
}
