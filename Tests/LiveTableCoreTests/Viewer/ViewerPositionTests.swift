import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// The title's position ("row 30,000 of 50,000") beyond the 10,000 rows
/// that a window's fetch counts (`ViewerWindow.rankLimit`), on a file of
/// 50,000 items that the sqlite3 CLI made (`item 00001`…, price 10 to
/// 500,000, an index on price), with a 10-row terminal (pages of 6 rows,
/// windows of 18 to 30 rows).
final class ViewerPositionTests: XCTestCase {
    private static let rows = 50_000
    private var path: String!
    private var driver: ViewerDriver!

    override func setUpWithError() throws {
        path = try makeItemsFile(count: Self.rows)
    }

    private var title: String { driver.lines[0] }

    /// Opens the search prompt (`/`), types `text`, and presses Enter.
    private func search(_ text: String) throws {
        try driver.type("/" + text)
        try driver.send(.key(.enter))
    }

    private func countsOfRowsBefore(_ effects: [ViewerEffect]) -> [RowPosition] {
        effects.compactMap { effect in
            if case let .countRowsBefore(_, position) = effect { return position }
            return nil
        }
    }

    // MARK: - Through the driver (each effect performed on the file)

    func testSearchFarFromTheStartEndsAtTheExactPosition() throws {
        for sort in [nil, "price"] {
            driver = try ViewerDriver(path: path, table: "item", sort: sort, width: 80)
            // To the name column: from the key, or from the sort column.
            try driver.send(.key(sort == nil ? .right : .left))
            _ = driver.takeEffects()
            try search("item 30000")
            XCTAssertEqual(driver.selected(1), "item 30000".databaseValue)
            XCTAssertTrue(title.hasSuffix("row 30,000 of 50,000 · live"), title)
            // Counted once, in the background: the selection.
            XCTAssertEqual(countsOfRowsBefore(driver.takeEffects()).count, 1)
        }
    }

    func testWhatNoIndexReadsAsksForNoCountOfTheRowsBefore() throws {
        // A count of the rows before the selection would scan them all in
        // one read, a writer waiting: by name, which no index orders; a
        // view; a filter (by price, indexed: the filter alone forbids it);
        // a query.
        _ = try ForeignFile.sqlite3(path, "CREATE VIEW item_view AS SELECT id, name, price FROM item;")
        let cases: [(String, ViewerTarget, String?, filter: String?)] = [
            ("an unindexed order", .table("item"), "name", nil),
            ("a view", .table("item_view"), nil, nil),
            ("a filter", .table("item"), "price", "price > 0"),
            ("a query", .query("SELECT id, name, price FROM item"), nil, nil),
        ]
        for (label, target, sort, filter) in cases {
            driver = try ViewerDriver(path: path, target: target, sort: sort, width: 80)
            if let filter {
                try driver.type("f" + filter)
                try driver.send(.key(.enter))
            }
            // To the name column.
            for _ in 0..<3 {
                let column = try XCTUnwrap(driver.state.table?.currentColumn, label)
                guard column != 1 else { break }
                try driver.send(.key(column > 1 ? .left : .right))
            }
            XCTAssertEqual(driver.state.table?.currentColumn, 1, label)
            _ = driver.takeEffects()
            try search("item 30000")
            XCTAssertEqual(driver.selected(1), "item 30000".databaseValue, label)
            XCTAssertEqual(countsOfRowsBefore(driver.takeEffects()), [], label)
            XCTAssertFalse(title.contains("row 30,000"), "\(label): \(title)")
        }
    }

    func testEndThenPagesUpKeepTheExactPositionWithoutCounting() throws {
        driver = try ViewerDriver(path: path, table: "item", sort: "price", descending: true, width: 80)
        _ = driver.takeEffects()
        try driver.send(.key(.end))
        XCTAssertTrue(title.hasSuffix("row 50,000 of 50,000 · live"), title)
        for page in 1...10 {
            try driver.send(.key(.pageUp))
            XCTAssertTrue(title.hasSuffix("row \(grouped(50_000 - 6 * page)) of 50,000 · live"), "\(page): \(title)")
        }
        XCTAssertEqual(driver.selected(1), "item 00061".databaseValue)
        // Each window shares rows with the one before: the position is
        // carried over, never counted.
        XCTAssertEqual(countsOfRowsBefore(driver.takeEffects()), [])
    }

    func testPagesFromTheStartPastTheBoundStayExactWithoutCounting() throws {
        // Unindexed: the window's fetch counts nothing, not even near the
        // start; the position is carried over from the first window.
        driver = try ViewerDriver(path: path, table: "item", sort: "name", width: 80)
        _ = driver.takeEffects()
        for _ in 0..<20 { try driver.send(.key(.pageDown)) }
        XCTAssertTrue(title.hasSuffix("row 121 of 50,000 · live"), title)
        XCTAssertEqual(countsOfRowsBefore(driver.takeEffects()), [])
    }

    func testACommitBeforeTheSelectionIsCountedAgain() throws {
        driver = try ViewerDriver(path: path, table: "item", sort: "price", width: 80)
        try driver.send(.key(.left))
        try search("item 40000")
        XCTAssertTrue(title.hasSuffix("row 40,000 of 50,000 · live"), title)
        _ = driver.takeEffects()
        try driver.commit("INSERT INTO item(name, price) VALUES ('cheap 1', 1), ('cheap 2', 2)")
        XCTAssertEqual(driver.selected(1), "item 40000".databaseValue)
        XCTAssertTrue(title.hasSuffix("row 40,002 of 50,002 · live"), title)
        XCTAssertEqual(countsOfRowsBefore(driver.takeEffects()).count, 1)
    }

    // MARK: - The update alone (the effects not performed)

    /// Searches `text` in the name column of `state` with the keys, and
    /// answers the search with `match`, as a data source would.
    private func search(_ text: String, answer match: RowPosition, in state: inout ViewerState) throws {
        var effects: [ViewerEffect] = []
        for key in [Key.left, .character("/")] + text.map(Key.character) + [.enter] {
            effects += viewerUpdate(&state, .key(key))
        }
        let search = try XCTUnwrap(effects.lazy.compactMap { effect -> RowSearch? in
            if case let .search(_, search) = effect { return search }
            return nil
        }.first)
        XCTAssertEqual(viewerUpdate(&state, .searched(RowSearchResult(search: search, match: match, wrapped: false))).count, 1)
    }

    /// After a search far away, the title shows the bound at once, then
    /// the exact position when the count of the rows before comes; a
    /// commit makes it an estimate, counted again after a pause, one count
    /// at a time.
    func testTheBoundAtOnceThenTheCountPacedAndEstimatedAfterACommit() throws {
        // The bound of the window's fetch, at once; the count asked for.
        var (state, viewed, match, window) = try searchFarAndCount()
        let before = try XCTUnwrap(state.table?.window?.positions.firstIndex(of: match))
        XCTAssertTrue(viewerRender(state).lines[0].hasSuffix("row \(grouped(10_001 + before))+ of 50,000 · live "),
                      viewerRender(state).lines[0])
        var effects = viewerUpdate(&state, .rowsBeforeCounted(viewed, match, 29_999, seconds: 0.02))
        XCTAssertEqual(effects, [.pauseCountingRowsBefore(seconds: ViewerPacing.rowsBefore.pause(afterReadingFor: 0.02))])
        XCTAssertTrue(viewerRender(state).lines[0].hasSuffix("row 30,000 of 50,000 · live "), viewerRender(state).lines[0])
        XCTAssertEqual(viewerUpdate(&state, .rowsBeforePauseEnded), [])

        // A commit: an estimate at once, and a count.
        effects = viewerUpdate(&state, .window(window, now: driver.now))
        XCTAssertTrue(effects.contains(.countRowsBefore(viewed, match)), "\(effects)")
        XCTAssertTrue(viewerRender(state).lines[0].contains("row ~30,000 of "), viewerRender(state).lines[0])
        // Commits while it counts: no other count, and the count is an
        // estimate; one more count after the pause.
        for _ in 0..<5 {
            effects = viewerUpdate(&state, .window(window, now: driver.now))
            XCTAssertEqual(countsOfRowsBefore(effects), [])
        }
        assertEstimatedThenCountedAgain(
            &state, viewed, match, after: .rowsBeforeCounted(viewed, match, 29_999, seconds: 0.02))
    }

    /// A search by price for item 30000, answered, and the window of its
    /// match, which asks for the count of the rows before it.
    private func searchFarAndCount() throws -> (ViewerState, ViewedSource, RowPosition, ViewerWindow) {
        driver = try ViewerDriver(path: path, table: "item", sort: "price", width: 80)
        var state = driver.state
        let viewed = try XCTUnwrap(state.table?.viewed)
        let match = RowPosition(key: [300_000.databaseValue, 30_000.databaseValue])
        try search("item 30000", answer: match, in: &state)
        let request = try XCTUnwrap(state.table?.observedRequest)
        let window = try driver.database.read { db in try ViewerWindow.fetch(db, viewed, request) }
        XCTAssertEqual(viewerUpdate(&state, .window(window, now: driver.now)), [.countRowsBefore(viewed, match)])
        return (state, viewed, match, window)
    }

    /// A count that says another process committed during it (SQLite's
    /// short reads saw two states of the file), though no window of that
    /// commit came meanwhile: an estimate, counted again after the pause.
    func testACountThatSawACommitIsAnEstimateCountedAgain() throws {
        var (state, viewed, match, _) = try searchFarAndCount()
        assertEstimatedThenCountedAgain(
            &state, viewed, match, after: .rowsBeforeCounted(viewed, match, 29_999, isExact: false, seconds: 0.02))
    }

    /// `counted`, a count that is only an estimate (a commit came during
    /// it): `~` in the title and a pause, then one more count, exact, and
    /// none after it.
    private func assertEstimatedThenCountedAgain(
        _ state: inout ViewerState, _ viewed: ViewedSource, _ match: RowPosition, after counted: ViewerMessage,
        file: StaticString = #filePath, line: UInt = #line)
    {
        XCTAssertEqual(viewerUpdate(&state, counted), [.pauseCountingRowsBefore(
            seconds: ViewerPacing.rowsBefore.pause(afterReadingFor: 0.02, burstReads: 1))], file: file, line: line)
        XCTAssertTrue(viewerRender(state).lines[0].contains("row ~30,000 of "), viewerRender(state).lines[0],
                      file: file, line: line)
        XCTAssertEqual(viewerUpdate(&state, .rowsBeforePauseEnded), [.countRowsBefore(viewed, match)],
                       file: file, line: line)
        _ = viewerUpdate(&state, .rowsBeforeCounted(viewed, match, 29_999, seconds: 0.02))
        XCTAssertTrue(viewerRender(state).lines[0].contains("row 30,000 of "), viewerRender(state).lines[0],
                      file: file, line: line)
        XCTAssertEqual(viewerUpdate(&state, .rowsBeforePauseEnded), [], file: file, line: line)
    }

    /// A search far away while the count of the rows before the last
    /// match reads: that count's answer would be thrown away (its row has
    /// left the window), so the new match is counted at once, in its
    /// place (the read slot abandons the old read), and no pause follows
    /// the abandoned one.
    func testACountWhoseRowLeftTheWindowIsReplacedAtOnce() throws {
        var (state, viewed, _, _) = try searchFarAndCount()
        let far = RowPosition(key: [400_000.databaseValue, 40_000.databaseValue])
        try search("item 40000", answer: far, in: &state)
        let request = try XCTUnwrap(state.table?.observedRequest)
        let window = try driver.database.read { db in try ViewerWindow.fetch(db, viewed, request) }
        XCTAssertEqual(viewerUpdate(&state, .window(window, now: driver.now)), [.countRowsBefore(viewed, far)])
        // Its answer: exact, and the pause of one quiet count.
        XCTAssertEqual(viewerUpdate(&state, .rowsBeforeCounted(viewed, far, 39_999, seconds: 0.02)),
                       [.pauseCountingRowsBefore(seconds: ViewerPacing.rowsBefore.pause(afterReadingFor: 0.02))])
        XCTAssertTrue(viewerRender(state).lines[0].contains("row 40,000 of "), viewerRender(state).lines[0])
        XCTAssertEqual(viewerUpdate(&state, .rowsBeforePauseEnded), [])
    }

    /// Space while the rows before the selection are counted: the count
    /// stops (the screen is frozen, its answer would not show), and the
    /// resume counts again, whether windows came while paused or not.
    func testPausingStopsTheCountAndResumingCountsAgain() throws {
        for windowWhilePaused in [false, true] {
            var (state, viewed, match, window) = try searchFarAndCount()
            XCTAssertEqual(viewerUpdate(&state, .key(.character(" "))), [.stop(.rowsBefore)], "\(windowWhilePaused)")
            if windowWhilePaused {
                // A commit's window, kept for the resume.
                XCTAssertEqual(viewerUpdate(&state, .window(window, now: driver.now)), [])
            }
            XCTAssertEqual(viewerUpdate(&state, .key(.character(" "))), [.resume])
            let effects = viewerUpdate(&state, .resumed(now: driver.now))
            XCTAssertEqual(countsOfRowsBefore(effects), [match], "\(windowWhilePaused): \(effects)")
            // Quiet while it read: exact.
            _ = viewerUpdate(&state, .rowsBeforeCounted(viewed, match, 29_999, seconds: 0.02))
            XCTAssertTrue(viewerRender(state).lines[0].contains("row 30,000 of "), viewerRender(state).lines[0])
        }
    }

    /// A count of the rows of another order (a sort came meanwhile) is
    /// dropped; one that failed leaves the bound.
    func testACountOfAnotherOrderIsDroppedAndAFailureLeavesTheBound() throws {
        var (state, viewed, match, window) = try searchFarAndCount()
        let before = try XCTUnwrap(state.table?.window?.positions.firstIndex(of: match))
        var other = viewed
        other.ordering = try RowOrdering(viewed.source, sortColumn: "price", descending: true)
        _ = viewerUpdate(&state, .rowsBeforeCounted(other, match, 20_000))
        XCTAssertEqual(state.table?.selectedRowNumber?.isExact, false)
        XCTAssertEqual(viewerUpdate(&state, .rowsBeforePauseEnded), [])
        XCTAssertEqual(countsOfRowsBefore(viewerUpdate(&state, .window(window, now: driver.now))), [match])
        XCTAssertEqual(viewerUpdate(&state, .rowsBeforeCountFailed(seconds: 5)),
                       [.pauseCountingRowsBefore(seconds: 45)])
        XCTAssertTrue(viewerRender(state).lines[0].contains("row \(grouped(10_001 + before))+ of "), viewerRender(state).lines[0])
    }
}
