import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// The viewer's `viewerUpdate`, driven the way the app loop drives it: its
/// effects are performed against a file that the sqlite3 CLI writes, and
/// their results sent back as messages. A commit of another process is a
/// new value of the observed window.
final class ViewerUpdateTests: XCTestCase {
    var path: String!
    var database: SQLiteDataSource!
    /// The one viewer driver, counting in reads of 7 rows.
    var driver: ViewerDriver!

    override func setUpWithError() throws {
        path = try makeItemsFile(count: 100, extra: """
                CREATE TABLE other(x);
                """)
        database = try SQLiteDataSource.open(path: path)
    }

    // MARK: - Driving

    /// The state of the driven viewer.
    var state: ViewerState {
        get { driver.state }
        set { driver.state = newValue }
    }

    /// Opens `target` as the command line does, and sends the first resize.
    func start(_ target: ViewerTarget?, sort: String? = nil, descending: Bool = false, height: Int = 10) throws {
        driver = try ViewerDriver(path: path, target: target, sort: sort, descending: descending,
                                  height: height, countChunk: 7)
    }

    /// Sends a message, then performs its effects and sends their results,
    /// until no effect is left. Returns every effect.
    @discardableResult
    func send(_ message: ViewerMessage) throws -> [ViewerEffect] {
        try driver.send(message)
    }

    /// Another process commits `sql`; the observation delivers the window
    /// it observes again.
    func commit(_ sql: String) throws {
        try driver.commit(sql)
    }

    /// Types `text` as keys.
    func type(_ text: String) throws {
        for character in text {
            try send(.key(.character(character)))
        }
    }

    /// What the status line says, notice or error.
    var statusText: String? {
        switch state.message {
        case let .notice(text)?, let .error(text)?: return text
        case nil: return nil
        }
    }

    /// The selected row's values, as text.
    var selectedName: String? {
        guard let table = state.table, let index = table.selectedIndex else { return nil }
        return table.window?.rows[index][1].storage.value.map { "\($0)" }
    }

    // MARK: - Tests

    func testFirstResizeObservesTheFirstWindowAndCounts() throws {
        try start(.table("item"))
        let table = try XCTUnwrap(state.table)
        XCTAssertEqual(table.window?.rows.count, 18)  // 3 pages of 6 rows
        XCTAssertEqual(selectedName, "item 001")
        XCTAssertEqual(table.rowCount, 100)
        XCTAssertFalse(table.isCounting)
        XCTAssertTrue(table.isLive)
    }

    func testSelectionStaysOnItsRowAndItsPlaceWhenRowsComeBefore() throws {
        try start(.table("item"), sort: "price")
        for _ in 0..<30 { try send(.key(.down)) }
        XCTAssertEqual(selectedName, "item 031")
        let row = try XCTUnwrap(state.table?.selectedRow)
        XCTAssertEqual(row, 5)
        try commit("INSERT INTO item(name, price) VALUES ('cheap 1', 1), ('cheap 2', 2), ('cheap 3', 3)")
        XCTAssertEqual(selectedName, "item 031")
        XCTAssertEqual(state.table?.selectedRow, row)
        XCTAssertEqual(state.table?.rowCount, 103)
    }

    func testSelectionFollowsItsRowWhenItsSortValueChanges() throws {
        try start(.table("item"), sort: "price")
        for _ in 0..<10 { try send(.key(.down)) }
        XCTAssertEqual(selectedName, "item 011")
        try commit("UPDATE item SET price = 955 WHERE name = 'item 011'")
        XCTAssertEqual(selectedName, "item 011")
        let table = try XCTUnwrap(state.table)
        let index = try XCTUnwrap(table.selectedIndex)
        // Now between item 095 and item 096.
        XCTAssertEqual(table.window?.rows[index - 1][1], "item 095".databaseValue)
        XCTAssertEqual(table.window?.rows[index + 1][1], "item 096".databaseValue)
    }

    func testDeletedSelectionMovesToTheNextRow() throws {
        try start(.table("item"))
        for _ in 0..<3 { try send(.key(.down)) }
        try commit("DELETE FROM item WHERE name = 'item 004'")
        XCTAssertEqual(selectedName, "item 005")
        XCTAssertEqual(state.table?.selectedRow, 3)
    }

    func testEndAndHomeJumpThenKeepTheRow() throws {
        try start(.table("item"))
        try send(.key(.end))
        XCTAssertEqual(selectedName, "item 100")
        XCTAssertEqual(state.table?.selectedRow, 5)
        try commit("INSERT INTO item(name, price) VALUES ('new', 0)")
        XCTAssertEqual(selectedName, "item 100")
        try send(.key(.character("g")))
        XCTAssertEqual(selectedName, "item 001")
        try send(.key(.pageDown))
        XCTAssertEqual(selectedName, "item 007")
    }

    func testRowCountIsCoalescedOneCountAtATime() throws {
        try start(.table("item"))
        var table = try XCTUnwrap(state.table)
        let window = try XCTUnwrap(table.window)
        let value = ViewerWindow(viewed: table.viewed, window: window, selection: nil)
        // Two commits: one count starts, the second only marks it stale.
        XCTAssertEqual(viewerUpdate(&state, .window(value)), [.count(table.viewed.source)])
        XCTAssertEqual(viewerUpdate(&state, .window(value)), [])
        table = try XCTUnwrap(state.table)
        XCTAssertTrue(table.isCounting)
        XCTAssertTrue(table.countIsStale)
        XCTAssertTrue(viewerRender(state).text.contains("row 1 of ~100 · live"))
        // Its result is shown, and one more count follows its pause.
        XCTAssertEqual(viewerUpdate(&state, .counted(101, isExact: true, seconds: 0.02)),
                       [.pauseCounting(seconds: ViewerPacing.count.pause(afterReadingFor: 0.02))])
        XCTAssertTrue(viewerRender(state).text.contains("row 1 of ~101 · live"))
        XCTAssertEqual(viewerUpdate(&state, .countPauseEnded), [.count(table.viewed.source)])
        // The count after a pause that a commit came during: the second of a burst.
        XCTAssertEqual(viewerUpdate(&state, .counted(102)),
                       [.pauseCounting(seconds: ViewerPacing.count.pause(afterReadingFor: 0, burstReads: 2))])
        // Exact and quiet: no `~` during the pause, and none after it.
        XCTAssertTrue(viewerRender(state).text.contains("row 1 of 102 · live"))
        XCTAssertEqual(viewerUpdate(&state, .countPauseEnded), [])
        XCTAssertFalse(try XCTUnwrap(state.table).isCounting)
        XCTAssertTrue(viewerRender(state).text.contains("row 1 of 102 · live"))
    }

    func testACheapCountAfterEachCommitOfABusyWriterPausesLongerAndLonger() throws {
        // A writer that commits every 33 ms, a count of 0.1 ms: a commit
        // during each pause. The count ran after every other commit.
        try start(.table("item"))
        let table = try XCTUnwrap(state.table)
        let window = try XCTUnwrap(table.window)
        let value = ViewerWindow(viewed: table.viewed, window: window, selection: nil)
        XCTAssertEqual(viewerUpdate(&state, .window(value)), [.count(table.viewed.source)])
        var pauses: [Double] = []
        for _ in 0..<6 {
            let effects = viewerUpdate(&state, .counted(100, isExact: true, seconds: 0.0001))
            guard case let .pauseCounting(seconds) = effects.first else { return XCTFail("\(effects)") }
            pauses.append(seconds)
            XCTAssertEqual(viewerUpdate(&state, .window(value)), [])
            XCTAssertEqual(viewerUpdate(&state, .countPauseEnded), [.count(table.viewed.source)])
        }
        XCTAssertEqual(pauses, [0.05, 0.1, 0.2, 0.4, 0.8, 1])
    }

    func testAWindowThatChangedNoCellMeasuresNoColumnAgain() throws {
        try start(.table("item"))
        let table = try XCTUnwrap(state.table)
        let window = try XCTUnwrap(table.window)
        let same = ViewerWindow(viewed: table.viewed, window: window, selection: nil)
        let kept = ColumnInputs.keptCount.withLock { $0 }
        _ = viewerUpdate(&state, .window(same))
        XCTAssertEqual(ColumnInputs.keptCount.withLock { $0 }, kept, "every cell as it was")
        var changed = window
        changed.rows[0][1] = "a much longer name than any other".databaseValue
        _ = viewerUpdate(&state, .window(ViewerWindow(viewed: table.viewed, window: changed, selection: nil)))
        XCTAssertEqual(ColumnInputs.keptCount.withLock { $0 }, kept + 1)
        XCTAssertEqual(state.table?.seenWidths["name"], 33)
    }

    func testCommitToAnotherTableOfAWholeTableWindowNeitherCountsNorChangesTheState() throws {
        // 3 pages of 46 rows: the 100 rows are all in the window.
        try start(.table("item"), height: 50)
        let before = state
        XCTAssertEqual(before.table?.window?.reachesEnd, true)
        let effects = try driver.commit("INSERT INTO other VALUES (1);")
        XCTAssertFalse(effects.contains { if case .count = $0 { true } else { false } }, "\(effects)")
        XCTAssertEqual(state, before, "equal states draw nothing")
        // A commit to the table itself is still counted and shown.
        try driver.commit("INSERT INTO item(name) VALUES ('item 101');")
        XCTAssertEqual(state.table?.rowCount, 101)
    }

    func testACommitToAWindowHoldingEveryRowTakesTheCountFromTheWindow() throws {
        // A query's groups: a count would run the whole GROUP BY again.
        try start(.query("SELECT price / 250 AS bucket, count(*) AS n FROM item GROUP BY bucket"), height: 50)
        XCTAssertEqual(state.table?.rowCount, 5)
        let effects = try driver.commit("INSERT INTO item(name, price) VALUES ('item 101', 5000);")
        XCTAssertFalse(effects.contains { if case .count = $0 { true } else { false } }, "\(effects)")
        XCTAssertEqual(state.table?.rowCount, 6)
        XCTAssertTrue(viewerRender(state).text.contains("of 6 · live"), viewerRender(state).text)
    }

    func testCommitDuringThePauseAfterACountCountsAgainAfterIt() throws {
        try start(.table("item"))
        let table = try XCTUnwrap(state.table)
        let value = ViewerWindow(viewed: table.viewed, window: try XCTUnwrap(table.window), selection: nil)
        XCTAssertEqual(viewerUpdate(&state, .window(value)), [.count(table.viewed.source)])
        XCTAssertEqual(viewerUpdate(&state, .counted(100, isExact: true, seconds: 0.1)), [.pauseCounting(seconds: 9.9)])
        // A commit during the pause: no count yet, but the count is stale.
        XCTAssertEqual(viewerUpdate(&state, .window(value)), [])
        XCTAssertTrue(viewerRender(state).text.contains("row 1 of ~100 · live"))
        XCTAssertEqual(viewerUpdate(&state, .countPauseEnded), [.count(table.viewed.source)])
    }

    func testCountThatSawACommitIsShownAsAnEstimateAndCountedAgain() throws {
        try start(.table("item"))
        let table = try XCTUnwrap(state.table)
        let value = ViewerWindow(viewed: table.viewed, window: try XCTUnwrap(table.window), selection: nil)
        XCTAssertEqual(viewerUpdate(&state, .window(value)), [.count(table.viewed.source)])
        _ = viewerUpdate(&state, .counted(104, isExact: false, seconds: 0.001))
        XCTAssertTrue(viewerRender(state).text.contains("row 1 of ~104 · live"))
        XCTAssertEqual(viewerUpdate(&state, .countPauseEnded), [.count(table.viewed.source)])
        _ = viewerUpdate(&state, .counted(105, isExact: true, seconds: 0.001))
        XCTAssertEqual(viewerUpdate(&state, .countPauseEnded), [])
        XCTAssertTrue(viewerRender(state).text.contains("row 1 of 105 · live"))
    }

    /// The server gone a moment (sessions terminated, the password changed
    /// then set back): once the rows are read again, the status line no
    /// longer says why they could not be, nor why the count failed
    /// meanwhile, without a key; the rows are counted again.
    func testStatusLineFollowsTheSourceOnceLiveAgain() throws {
        try start(.table("item"))
        let table = try XCTUnwrap(state.table)
        let value = ViewerWindow(viewed: table.viewed, window: try XCTUnwrap(table.window), selection: nil)
        XCTAssertEqual(viewerUpdate(&state, .window(value)), [.count(table.viewed.source)])
        let terminated = "shop: terminating connection due to administrator command"
        XCTAssertEqual(viewerUpdate(&state, .windowFailed(terminated, .transient)), [])
        _ = viewerUpdate(&state, .countFailed("shop: password authentication failed for user \"viewer\""))
        XCTAssertTrue(viewerRender(state).text.contains("password authentication failed"))
        XCTAssertTrue(viewerRender(state).text.contains("not live"))

        _ = viewerUpdate(&state, .window(value))
        XCTAssertTrue(viewerRender(state).text.contains("row 1 of ~100 · live"), viewerRender(state).text)
        XCTAssertNil(state.message)
        XCTAssertEqual(viewerUpdate(&state, .countPauseEnded), [.count(table.viewed.source)])
    }

    /// A hundredth of the time, and a pause of 20 s at most: the count of
    /// a huge table lags that long at most.
    func testCountingTakesAtMostAHundredthOfTheTime() {
        XCTAssertEqual(ViewerPacing.count.pause(afterReadingFor: 0.1), 9.9, accuracy: 1e-9)
        XCTAssertEqual(ViewerPacing.count.pause(afterReadingFor: 0.5), 20)
        XCTAssertEqual(ViewerPacing.count.pause(afterReadingFor: 0.011), 1.089, accuracy: 1e-9)
        XCTAssertEqual(ViewerPacing.count.pause(afterReadingFor: 0.0001), 0.05)
        XCTAssertEqual(ViewerPacing.count.pause(afterReadingFor: -1), 0.05)
    }

    func testCountInShortReadsIsExactWhenQuiet() throws {
        _ = try ForeignFile.sqlite3(path, "DELETE FROM item WHERE id % 3 = 0; INSERT INTO item(id, name) VALUES (-5, 'low'), (9000, 'high')")
        let source = try database.read { db in RowSource.table(try TableSchema.named("item", in: db), dialect: .sqlite) }
        let expected = try database.read { db in try source.exactRowCount(db) }
        XCTAssertEqual(expected, 69)
        for chunk in [1, 7, 69, 70, 1000] {
            var reads = 1
            let count = try source.countRows(in: database.backgroundReader, chunk: chunk, betweenReads: { reads += 1 })
            XCTAssertEqual(count, .exact(expected), "chunk \(chunk)")
            XCTAssertEqual(reads, expected / chunk + 1, "one read per chunk, and one that finds the end")
        }
        let empty = try database.read { db in RowSource.table(try TableSchema.named("other", in: db), dialect: .sqlite) }
        XCTAssertEqual(try empty.countRows(in: database.backgroundReader, chunk: 7), .exact(0))
    }

    func testCountInShortReadsIsAnEstimateWhenAnotherProcessCommitsMeanwhile() throws {
        let source = try database.read { db in RowSource.table(try TableSchema.named("item", in: db), dialect: .sqlite) }
        var committed = false
        let count = try source.countRows(in: database.backgroundReader, chunk: 30, betweenReads: {
            guard !committed else { return }
            committed = true
            _ = try ForeignFile.sqlite3(path, "INSERT INTO item(name) VALUES ('new')")
        })
        XCTAssertEqual(count, .estimated(101))
        XCTAssertEqual(try source.countRows(in: database.backgroundReader, chunk: 30), .exact(101))
    }

    func testAddedColumnIsReadAgain() throws {
        try start(.table("item"))
        try commit("ALTER TABLE item ADD COLUMN color TEXT DEFAULT 'red'")
        XCTAssertEqual(state.table?.viewed.source.columnNames, ["id", "name", "price", "color"])
        XCTAssertEqual(state.table?.window?.rows.first?.last, "red".databaseValue)
        XCTAssertEqual(state.message, .notice("item changed: columns read again"))
    }

    func testDroppedTableGoesBackToThePickerAndSaysSo() throws {
        try start(.table("item"))
        try commit("DROP TABLE item")
        XCTAssertNil(state.table)
        XCTAssertEqual(state.picker.entries?.map(\.name), ["other"])
        XCTAssertEqual(state.message, .error(#"no table or view "item": the file has "other""#))
    }

    func testDroppedSortColumnGoesBackToThePicker() throws {
        try start(.table("item"), sort: "price")
        try commit("DROP INDEX item_price; ALTER TABLE item DROP COLUMN price")
        XCTAssertNil(state.table)
        XCTAssertEqual(state.message, .error(#"no column "price" in "item": its columns are "id", "name""#))
    }

    func testPickerOpensTheSelectedTableAndTGoesBack() throws {
        try start(nil)
        XCTAssertEqual(state.picker.entries?.map(\.name), ["item", "other"])
        XCTAssertEqual(state.picker.entries?.map(\.count), [.exact(100), .exact(0)])
        try send(.key(.character("j")))
        try send(.key(.enter))
        XCTAssertEqual(state.table?.viewed.source.name, "other")
        XCTAssertEqual(try send(.key(.character("t"))).first, .stop(.window))
        XCTAssertNil(state.table)
        try send(.key(.character("k")))
        try send(.key(.enter))
        XCTAssertEqual(selectedName, "item 001")
    }

    func testOpenThatEndsAfterLeavingIsDropped() throws {
        try start(.table("item"))
        let viewed = try XCTUnwrap(state.table?.viewed)
        // A read fails: the schema is read again, and `t` is pressed before it ends.
        XCTAssertEqual(viewerUpdate(&state, .windowFailed("corrupt", .other)), [.open(.table("item"), sortColumn: nil, descending: false)])
        XCTAssertEqual(viewerUpdate(&state, .key(.character("t"))), ViewerRead.allCases.map(ViewerEffect.stop) + [.listTables])
        XCTAssertEqual(viewerUpdate(&state, .opened(viewed)), [])
        XCTAssertNil(state.table)
        XCTAssertEqual(viewerUpdate(&state, .openFailed("late", .missingSource)), [])
        XCTAssertNil(state.message)
    }

    func testEnterShowsTheWholeRowAndEscapeClosesIt() throws {
        try start(.table("item"))
        try send(.key(.enter))
        XCTAssertEqual(state.overlay, .row(scroll: 0))
        try send(.key(.down))
        // Three lines fit: nothing to scroll.
        XCTAssertEqual(state.overlay, .row(scroll: 0))
        try send(.key(.escape))
        XCTAssertNil(state.overlay)
        // Nothing left to close: Esc never quits.
        XCTAssertEqual(try send(.key(.escape)), [])
    }

    func testOnlyQuitAndSuspendActOnATooSmallScreen() throws {
        try start(.table("item"))
        try send(.resize(width: 19, height: 5))
        for key in [Key.down, .end, .enter, .character("t"), .character("?")] {
            XCTAssertEqual(try send(.key(key)), [], "\(key)")
        }
        XCTAssertEqual(selectedName, "item 001")
        XCTAssertNil(state.overlay)
        XCTAssertEqual(try send(.key(.character("q"))), [.quit])
    }

    func testPollingFallbackIsSaidOnceAndStaysInTheTitle() throws {
        try start(.table("item"))
        XCTAssertEqual(try send(.liveness(note: "polled every 0.1 s: no inotify", reason: "no inotify watch left")), [])
        XCTAssertEqual(state.message, .notice("other processes' commits are polled: no inotify watch left"))
        XCTAssertEqual(state.liveness, "polled every 0.1 s: no inotify")
        try send(.key(.down))
        XCTAssertNil(state.message)
        try send(.liveness(note: "polled every 0.1 s: no inotify", reason: "no inotify watch left"))
        XCTAssertNil(state.message)
        XCTAssertEqual(state.liveness, "polled every 0.1 s: no inotify")
    }

    func testFileGoneIsLookedForEverySecondAndReopenedOnTheSameRow() throws {
        try start(.table("item"), sort: "price")
        try send(.key(.character("j")))
        try send(.key(.character("j")))
        let viewed = try XCTUnwrap(state.table?.viewed)
        let reopen: [ViewerEffect] = [.stop(.window), .stop(.rowsBefore), .open(.table("item"), sortColumn: "price", descending: false)]
        // The watch finds another file at the path, or none: opened again at once.
        XCTAssertEqual(viewerUpdate(&state, .windowFailed("the database file was deleted", .fileReplaced)), reopen)
        XCTAssertEqual(state.table?.isLive, false)
        // No file there yet (a remount under way): looked for again in a second.
        XCTAssertEqual(viewerUpdate(&state, .openFailed("no such file", .fileReplaced)), [.retryOpen(after: 1)])
        XCTAssertEqual(state.message, .error("no such file"))
        XCTAssertEqual(viewerUpdate(&state, .retryOpen), reopen)
        // There: the same row, and the status line says so.
        try send(.opened(viewed))
        XCTAssertEqual(state.message, .notice("file replaced: reopened"))
        XCTAssertEqual(selectedName, "item 003")
        XCTAssertEqual(state.table?.isLive, true)
        // Left meanwhile: nothing to look for.
        try send(.key(.character("t")))
        XCTAssertEqual(viewerUpdate(&state, .retryOpen), [])
    }

    func testCommitsOtherMachinesCanNotSeeAreNeverSaidLive() throws {
        try start(.table("item"))
        let reason = "WAL on a FUSE file system (fuse): other machines' commits can't be seen"
        XCTAssertEqual(try send(.commitsUnseen(note: "WAL on fuse", reason: reason)), [])
        XCTAssertEqual(state.message, .error(reason))
        XCTAssertEqual(state.liveness, "WAL on fuse")
        XCTAssertTrue(viewerRender(state).lines[0].hasSuffix("row 1 of 100 · not live · WAL on fuse "), viewerRender(state).lines[0])
        // Said once; the title all along.
        try send(.key(.down))
        try send(.commitsUnseen(note: "WAL on fuse", reason: reason))
        XCTAssertNil(state.message)
        XCTAssertTrue(viewerRender(state).lines[0].contains("· not live · WAL on fuse"), viewerRender(state).lines[0])
    }

    func testPollingAskedForIsInTheTitleWithoutANotice() throws {
        try start(.table("item"))
        XCTAssertEqual(try send(.liveness(note: "polled every 0.5 s", reason: nil)), [])
        XCTAssertNil(state.message)
        XCTAssertEqual(state.liveness, "polled every 0.5 s")
    }

    func testControlKeysActEverywhere() throws {
        try start(.table("item"))
        try send(.key(.character("?")))
        XCTAssertEqual(state.overlay, .help(scroll: 0))
        XCTAssertEqual(try send(.key(.control("z"))), [.suspend])
        XCTAssertEqual(try send(.key(.control("c"))), [.quit])
    }
}
