import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// `viewerRender`, screens compared with expected multi-line strings: cells
/// formatted by type, columns cut, the picker, the whole row, tiny sizes.
final class ViewerRenderTests: XCTestCase {
    private var database: SQLiteDataSource!

    override func setUpWithError() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("odd.sqlite").path
        try ForeignFile.sqlite3(path, """
            CREATE TABLE odd(id INTEGER PRIMARY KEY, name TEXT, amount, data BLOB, note TEXT);
            INSERT INTO odd(name, amount, data, note) VALUES
                ('plain', 7, X'000102', 'short'),
                ('中文字', 12.5, NULL, 'a note long enough to be cut at the edge of the screen'),
                (NULL, -3, X'', char(27) || '[2J red'),
                ('x', 'text', X'FF', NULL);
            CREATE VIEW few AS SELECT name FROM odd WHERE id < 3;
            """)
        database = try SQLiteDataSource.open(path: path)
    }

    /// The state after the first window of `target`, on a `width` x `height` screen.
    private func tableState(_ target: ViewerTarget = .table("odd"), width: Int, height: Int) throws -> ViewerState {
        let viewed = try database.read { db in try ViewedSource.open(target, sortColumn: nil, descending: false, in: db) }
        var state = ViewerState.initial(databaseName: "odd.sqlite", opened: viewed, width: width, height: height, useColor: false)
        let effects = viewerUpdate(&state, .resize(width: width, height: height))
        for effect in effects {
            switch effect {
            case let .observe(viewed, request):
                let value = try database.read { db in try ViewerWindow.fetch(db, viewed, request) }
                _ = viewerUpdate(&state, .window(value))
            case let .count(source, _):
                let count = try database.read { db in try source.exactRowCount(db) }
                _ = viewerUpdate(&state, .counted(count))
            default:
                break
            }
        }
        return state
    }

    func testTableCellsAreFormattedByType() throws {
        let state = try tableState(width: 70, height: 9)
        XCTAssertEqual(viewerRender(state).text, """
             odd.sqlite — odd                                   row 1 of 4 · live
             id  name    amount  data       note
              1  plain        7  <3 bytes>  short
              2  中文字    12.5  NULL       a note long enough to be cut at the…
              3  NULL        -3  <0 bytes>  \\u{1b}[2J red
              4  x       text    <1 byte>   NULL

             ↑↓ move  Enter row  t tables  F follow  / search  ? help  q quit
                                                                last column cut →
            """)
    }

    func testTheFooterSaysColonSaveAndCopyLastWhereThereIsRoom() throws {
        let wide = try tableState(width: 90, height: 9)
        XCTAssertEqual(
            wide.footerLine, " ↑↓ move  Enter row  t tables  F follow  / search  ? help  q quit  : SQL  s save  y copy")
        let eighty = try tableState(width: 80, height: 9)
        XCTAssertEqual(
            eighty.footerLine, " ↑↓ move  Enter row  t tables  F follow  / search  ? help  q quit  : SQL  s save")
        // Narrower, ? and q stay: : goes first.
        let narrow = try tableState(width: 71, height: 9)
        XCTAssertEqual(narrow.footerLine, " ↑↓ move  Enter row  t tables  F follow  / search  ? help  q quit")
    }

    func testColumnsWiderThanTheScreenAreCutAndCounted() throws {
        let state = try tableState(width: 30, height: 6)
        XCTAssertEqual(viewerRender(state).text, """
             odd.sqlite — odd    4 · live
             id  name    amount  data
              1  plain        7  <3 byte…
              2  中文字    12.5  NULL
             ↑↓ move  Enter row  t tables
                          1 more column →
            """)
    }

    func testLongNameInTheTitleIsCutBeforeTheRowAndLiveAre() throws {
        // A file name (or a table or column name) of thousands of
        // characters took the whole title: "row 1 of 4 · live" vanished.
        var state = try tableState(width: 40, height: 6)
        state.databaseName = String(repeating: "f", count: 5_000) + ".sqlite"
        let title = viewerRender(state).text.split(separator: "\n", omittingEmptySubsequences: false)[0]
        XCTAssertEqual(title, " " + String(repeating: "f", count: 19) + "… row 1 of 4 · live")
    }

    func testOneRowIsOneRowNotOneRows() throws {
        let state = try tableState(.query("SELECT 1 AS x"), width: 42, height: 6)
        let title = viewerRender(state).text.split(separator: "\n", omittingEmptySubsequences: false)[0]
        XCTAssertTrue(title.hasSuffix(" 1 row · live"), "\(title)")
    }

    func testColumnCursorIsMarkedAndScrolledIntoView() throws {
        var state = try tableState(width: 30, height: 6)
        XCTAssertEqual(viewerRender(state).style(x: 1, y: 1)?.reverse, true, "the cursor starts on the first column")
        for _ in 0..<4 {
            _ = viewerUpdate(&state, .key(.character("l")))
        }
        XCTAssertEqual(state.table?.currentColumn, 4)
        let screen = viewerRender(state)
        XCTAssertEqual(screen.text, """
             odd.sqlite — odd    4 · live
             id  note
              1  short
              2  a note long enough to b…
             ↑↓ move  Enter row  t tables
                  ← 3 · last column cut →
            """, "the key column frozen, then a column too wide to show whole, cut")
        XCTAssertEqual(screen.style(x: 5, y: 1)?.reverse, true, "the header of the cursor's column")
        XCTAssertEqual(screen.style(x: 1, y: 1)?.reverse, false)
        _ = viewerUpdate(&state, .key(.left))
        _ = viewerUpdate(&state, .key(.character("l")))
        _ = viewerUpdate(&state, .key(.character("l")))
        XCTAssertEqual(state.table?.currentColumn, 4, "the cursor stops at the last column")
    }

    func testSelectedRowIsReversed() throws {
        let state = try tableState(width: 70, height: 9)
        let screen = viewerRender(state)
        XCTAssertEqual(screen.style(x: 0, y: 2)?.reverse, true)
        XCTAssertEqual(screen.style(x: 69, y: 2)?.reverse, true)
        XCTAssertEqual(screen.style(x: 0, y: 3)?.reverse, false)
    }

    func testWholeRowShowsEveryColumnInFull() throws {
        var state = try tableState(width: 40, height: 12)
        _ = viewerUpdate(&state, .key(.down))
        _ = viewerUpdate(&state, .key(.enter))
        XCTAssertEqual(viewerRender(state).text, """
             odd.sqlite — odd     row 2 of 4 · live
            ┌ Row 2 ───────────────────────────────┐
            │ id      2                            │
            │ name    中文字                       │
            │ amount  12.5                         │
            │ data    NULL                         │
            │ note    a note long enough to be     │
            │         cut at the edge of the       │
            │         screen                       │
            │                                      │
            └──────────────────────────────────────┘
                                  last column cut →
            """)
    }

    func testWholeRowShowsLineBreaksAsLineBreaks() {
        let lines = RowDetail.lines(
            names: ["note"], values: ["first line\nsecond\r\n\tthird \u{1B}[2J".databaseValue], width: 40)
        XCTAssertEqual(lines.map(\.value), ["first line", "second", "    third \\u{1b}[2J"])
        XCTAssertEqual(lines.map(\.name), ["note", "", ""])
    }

    func testWholeRowOfAHugeValueShowsItsStartAndHowManyBytesAreLeft() throws {
        // 100 KB: on one line, a wrap that measured the rest of the text
        // for each line read it 1,300 times (seconds; 10 MB took minutes).
        let value = String(repeating: "abcdefghi ", count: 10_000) + "é"
        // Lines of 80 cells: the name (4), its gap (2) and the margins (4) beside them.
        let lines = RowDetail.lines(names: ["note"], values: [value.databaseValue], width: 90)
        XCTAssertEqual(lines.count, RowDetail.maximumBytes / 80 + 2, "\(lines.count) lines")
        XCTAssertEqual(lines[0].value, String(repeating: "abcdefghi ", count: 8))
        XCTAssertEqual(lines.last?.value, "… \(100_002 - RowDetail.maximumBytes) more bytes")
        // Cut between two characters, never inside one.
        let (shown, more) = RowDetail.prefix("aé", bytes: 2)
        XCTAssertEqual(shown, "a")
        XCTAssertEqual(more, 2)
    }

    func testCellOfAHugeValueIsCutBeforeItIsEscapedOrMeasured() {
        // 10 MB of line breaks: escaped whole, 50 MB of text to measure on
        // each refresh.
        let cell = CellText(String(repeating: "\n", count: 10_000_000).databaseValue)
        XCTAssertEqual(cell.text.unicodeScalars.count, CellText.maximumLength * 5 + 1)
        XCTAssertTrue(cell.text.hasSuffix("\\u{a}…"))
        XCTAssertEqual(cell.fitted(toWidth: 12), "\\u{a}\\u{a}\\…")
        XCTAssertEqual(CellText(String(repeating: "x", count: CellText.maximumLength).databaseValue).text.count,
                       CellText.maximumLength, "a text that fits is not cut")
    }

    func testEstimatedCountBelowThePositionIsNotShown() throws {
        var state = try tableState(width: 50, height: 9)
        _ = viewerUpdate(&state, .key(.down))
        _ = viewerUpdate(&state, .key(.down))
        // A count of 2, stale: commits came since.
        state.table?.rowCount = 2
        _ = state.recount()
        XCTAssertEqual(state.table?.rowCountIsApproximate, true)
        XCTAssertEqual(viewerRender(state).lines[0], " odd.sqlite — odd               row 3 of 4 · live ")
    }

    func testNamesWithALineBreakAndWithASpaceLookDifferentInThePicker() throws {
        var state = ViewerState.initial(databaseName: "odd.sqlite", opened: nil, width: 40, height: 7, useColor: false)
        _ = viewerUpdate(&state, .resize(width: 40, height: 7))
        _ = viewerUpdate(&state, .tablesListed([
            PickerEntry(name: "new\nline", kind: .table, count: .exact(1)),
            PickerEntry(name: "new line", kind: .table, count: .exact(2)),
        ]))
        let lines = viewerRender(state).lines
        XCTAssertEqual(lines[2].trimmingCharacters(in: .whitespaces), #"new\u{a}line               table     1"#)
        XCTAssertEqual(lines[3].trimmingCharacters(in: .whitespaces), "new line                   table     2")
    }

    func testPickerListsTablesWithCounts() throws {
        var state = ViewerState.initial(databaseName: "odd.sqlite", opened: nil, width: 40, height: 7, useColor: false)
        XCTAssertEqual(viewerUpdate(&state, .resize(width: 40, height: 7)), [.listTables])
        XCTAssertEqual(viewerRender(state).text, """
             odd.sqlite — tables and views


                            Loading…

             ↑↓ move  Enter open  ? help  q quit

            """)
        _ = viewerUpdate(&state, .tablesListed([
            PickerEntry(name: "big", kind: .table, count: .estimated(2_000_000)),
            PickerEntry(name: "odd", kind: .table, count: .exact(4)),
            PickerEntry(name: "few", kind: .view, count: .atLeast(100_000)),
        ]))
        _ = viewerUpdate(&state, .key(.down))
        XCTAssertEqual(viewerRender(state).text, """
             odd.sqlite — tables and views 3 tables
             name                 kind         rows
             big                  table  ~2,000,000
             odd                  table           4
             few                  view     100,000+
             ↑↓ move  Enter open  ? help  q quit

            """)
        XCTAssertEqual(viewerRender(state).style(x: 1, y: 3)?.reverse, true)
    }

    func testUnindexedSortSaysWhatEachUpdateCosts() throws {
        let viewed = try database.read { db in
            try ViewedSource.open(.table("odd"), sortColumn: "note", descending: true, in: db)
        }
        XCTAssertEqual(viewed.cost, .scan)
        var state = ViewerState.initial(databaseName: "odd.sqlite", opened: viewed, width: 70, height: 6, useColor: false)
        _ = viewerUpdate(&state, .resize(width: 70, height: 6))
        _ = viewerUpdate(&state, .counted(2_000_000))
        XCTAssertEqual(viewerRender(state).text.components(separatedBy: "\n").last,
                       " sorted by an unindexed column: each update scans 2,000,000 rows")
        XCTAssertTrue(viewerRender(state).text.hasPrefix(" odd.sqlite — odd · by note ↓"))
    }

    func testErrorShowsInTheStatusLine() throws {
        var state = try tableState(width: 70, height: 6)
        state.message = .error("cannot read \"odd.sqlite\": the database is locked by another process")
        state.table?.isLive = false
        let lines = viewerRender(state).text.components(separatedBy: "\n")
        XCTAssertEqual(lines.first, " odd.sqlite — odd                               row 1 of 4 · not live")
        XCTAssertEqual(lines.last, " cannot read \"odd.sqlite\": the database is locked…  last column cut →")
    }

    /// A window that fails again once the schema was read again (a view
    /// slower than PostgreSQL's statement timeout) is not read until a
    /// key: the screen said "Reading the schema again…" for ever.
    func testAWindowThatFailsAgainAfterTheSchemaIsReadAgainSaysAKeyTriesAgain() throws {
        let viewed = try database.read { db in try ViewedSource.open(.table("odd"), sortColumn: nil, descending: false, in: db) }
        var state = ViewerState.initial(databaseName: "odd.sqlite", opened: viewed, width: 60, height: 7, useColor: false)
        _ = viewerUpdate(&state, .resize(width: 60, height: 7))
        func center() -> String { viewerRender(state).lines[3].trimmingCharacters(in: .whitespaces) }
        XCTAssertEqual(center(), "Loading…")
        _ = viewerUpdate(&state, .windowFailed("timed out after 5 s (statement_timeout)", .other))
        XCTAssertEqual(center(), "Reading the schema again…")
        _ = viewerUpdate(&state, .opened(viewed))
        XCTAssertEqual(center(), "Reading the schema again…")
        _ = viewerUpdate(&state, .windowFailed("timed out after 5 s (statement_timeout)", .other))
        XCTAssertEqual(center(), "Not read: a key tries again")
        XCTAssertEqual(viewerRender(state).lines.last?.trimmingCharacters(in: .whitespaces), "timed out after 5 s (statement_timeout)")
        XCTAssertTrue(viewerUpdate(&state, .key(.down)).contains(.open(.table("odd"), sortColumn: nil, descending: false)))
        XCTAssertEqual(center(), "Reading the schema again…")
    }

    func testTinyScreensNeverCrash() throws {
        let table = try tableState(width: 70, height: 9)
        for (width, height) in [(0, 0), (1, 1), (1, 0), (0, 1), (2, 3), (19, 5), (20, 4), (20, 5), (21, 6)] {
            for overlay in [nil, ViewerOverlay.help(scroll: 0), .row(scroll: 3)] {
                var state = table
                state.width = width
                state.height = height
                state.overlay = overlay
                let screen = viewerRender(state)
                XCTAssertEqual(screen.width, width)
                XCTAssertEqual(screen.height, height)
                state.table = nil
                _ = viewerRender(state)
            }
        }
        var state = table
        state.width = 19
        state.height = 5
        XCTAssertEqual(viewerRender(state).text, """


                 need 20x5


            """)
        state.width = 1
        state.height = 1
        XCTAssertEqual(viewerRender(state).text, "…")
    }

    func testHelpOverlayListsTheKeyTable() throws {
        var state = try tableState(width: 70, height: 40)
        _ = viewerUpdate(&state, .key(.character("?")))
        let text = viewerRender(state).text
        XCTAssertTrue(text.contains("Press any key to close"), text)
        for binding in viewerKeyBindings {
            XCTAssertTrue(text.contains(binding.keys), binding.keys)
            XCTAssertTrue(text.contains(binding.description), binding.description)
        }
    }

    func testHelpOverlayOnAShortScreenScrollsToEveryKey() throws {
        var state = try tableState(width: 70, height: 14)
        _ = viewerUpdate(&state, .key(.character("?")))
        var seen = Set<String>()
        var screens = [String]()
        for _ in 0..<viewerKeyBindings.count {
            let text = viewerRender(state).text
            screens.append(text)
            let lines = text.components(separatedBy: "\n")
            for binding in viewerKeyBindings where lines.contains(where: { $0.contains(binding.description) }) {
                seen.insert(binding.description)
            }
            _ = viewerUpdate(&state, .key(.down))
        }
        XCTAssertEqual(seen, Set(viewerKeyBindings.map(\.description)))
        let first = screens[0].components(separatedBy: "\n")
        let shown = viewerKeyBindings.filter { binding in first.contains { $0.contains(binding.description) } }.count
        XCTAssertGreaterThan(shown, 0)
        XCTAssertTrue(first.contains { $0.contains("… \(viewerKeyBindings.count - shown) more: ↓ shows them") },
                      screens[0])
        XCTAssertTrue(screens.last!.contains("more above: ↑"), screens.last!)
        XCTAssertFalse(screens.last!.contains("more: ↓"), screens.last!)
        // Past the end the overlay stays; another key closes it.
        XCTAssertEqual(state.overlay, .help(scroll: HelpPage.lastScroll(
            rows: viewerKeyBindings.count, room: HelpPage.room(rows: viewerKeyBindings.count, screenHeight: 14))))
        _ = viewerUpdate(&state, .key(.character("x")))
        XCTAssertNil(state.overlay)
    }
}

private extension ViewerState {
    /// The line above the status line, its trailing blanks left out.
    var footerLine: String {
        let lines = viewerRender(self).text.components(separatedBy: "\n")
        return lines[lines.count - 2]
    }
}
