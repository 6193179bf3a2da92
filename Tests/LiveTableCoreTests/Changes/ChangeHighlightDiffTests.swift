import Foundation
import GRDB
import XCTest
@testable import LiveTableCore

/// A row of a test window: id, name, score.
typealias PlayerRow = (id: Int64, name: String, score: Int)

/// A window of players, as the Hall of Fame delivers them.
func playerWindow(
    _ rows: [PlayerRow], start: Bool = false, end: Bool = false, count: Int? = nil) -> WindowSnapshot<Int64>
{
    WindowSnapshot(
        rows: rows.map { .init(id: $0.id, cells: [$0.name.databaseValue, $0.score.databaseValue]) },
        reachesStart: start, reachesEnd: end, rowCount: count)
}

final class ChangeHighlightDiffTests: XCTestCase {
    let a: PlayerRow = (1, "Arthur", 100)
    let b: PlayerRow = (2, "Barbara", 90)
    let c: PlayerRow = (3, "Craig", 80)
    let d: PlayerRow = (4, "David", 70)
    let e: PlayerRow = (5, "Elena", 60)

    // MARK: - Identity, not position

    func testEqualWindowsHaveNoDifference() {
        let window = playerWindow([a, b, c], start: true, end: true, count: 3)
        let diff = WindowDiff(from: window, to: window, cause: .update)
        XCTAssertTrue(diff.isEmpty)
        XCTAssertEqual(diff, WindowDiff())
        XCTAssertEqual(diff.changeCount, 0)
    }

    func testRowThatMovedIsChangedInItsSortValueOnly() {
        // Barbara's score rises above Arthur's: she moves up, Arthur moves
        // down, and only her score changed.
        let old = playerWindow([a, b, c], start: true, end: true)
        let new = playerWindow([(2, "Barbara", 110), a, c], start: true, end: true)
        let diff = WindowDiff(from: old, to: new, cause: .update)
        XCTAssertEqual(diff.changedCells, [2: [1]])
        XCTAssertEqual(diff.addedRows, [])
        XCTAssertEqual(diff.departedRows, [])
    }

    func testRowsThatShiftedWithoutChangingAreNotChanged() {
        // A new first row shifts every row down by one position.
        let x: PlayerRow = (9, "Xavier", 200)
        let old = playerWindow([a, b, c], start: true, end: true)
        let new = playerWindow([x, a, b, c], start: true, end: true)
        let diff = WindowDiff(from: old, to: new, cause: .update)
        XCTAssertEqual(diff.changedCells, [:])
        XCTAssertEqual(diff.addedRows, [9])
    }

    func testEveryChangedCellIsReported() {
        let old = playerWindow([a, b, c], start: true, end: true)
        let new = playerWindow([a, (2, "Babs", 95), c], start: true, end: true)
        XCTAssertEqual(WindowDiff(from: old, to: new, cause: .update).changedCells, [2: [0, 1]])
    }

    // MARK: - Rows that arrive

    func testRowInsertedBetweenSteadyRowsIsAdded() {
        let x: PlayerRow = (9, "Xavier", 85)
        let old = playerWindow([a, b, c, d])
        let new = playerWindow([a, b, x, c])
        let diff = WindowDiff(from: old, to: new, cause: .update)
        XCTAssertEqual(diff.addedRows, [9])
        // David was pushed out at the edge: not departed.
        XCTAssertEqual(diff.departedRows, [])
        XCTAssertEqual(diff.changeCount, 1)
    }

    func testRowArrivingAtAnOpenEdgeIsNotAdded() {
        // Barbara was deleted: Elena, just below the window, slides in.
        let old = playerWindow([a, b, c, d], start: true)
        let new = playerWindow([a, c, d, e], start: true)
        let diff = WindowDiff(from: old, to: new, cause: .update)
        XCTAssertEqual(diff.addedRows, [])
        XCTAssertEqual(diff.departedRows, [2])
    }

    func testRowInsertedBeforeAWindowThatReachesTheStartIsAdded() {
        // A new best score enters the top of the Hall of Fame.
        let x: PlayerRow = (9, "Xavier", 500)
        let old = playerWindow([a, b, c], start: true)
        let new = playerWindow([x, a, b], start: true)
        let diff = WindowDiff(from: old, to: new, cause: .update)
        XCTAssertEqual(diff.addedRows, [9])
        XCTAssertEqual(diff.departedRows, [])
    }

    func testRowAppendedAfterAWindowThatReachesTheEndIsAdded() {
        // Following the end of a table: an appended row.
        let old = playerWindow([b, c, d], end: true)
        let new = playerWindow([c, d, e], end: true)
        let diff = WindowDiff(from: old, to: new, cause: .update)
        XCTAssertEqual(diff.addedRows, [5])
        // Barbara scrolled out at the top: not departed.
        XCTAssertEqual(diff.departedRows, [])
    }

    func testRowArrivingBeforeAWindowThatDoesNotReachTheStartIsNotAdded() {
        // A row inserted before the window pushes it down: the row above
        // slides in, the last one slides out.
        let old = playerWindow([b, c, d])
        let new = playerWindow([a, b, c])
        let diff = WindowDiff(from: old, to: new, cause: .update)
        XCTAssertTrue(diff.isEmpty)
    }

    func testRowsArrivingInAWindowThatWasTheWholeTableAreAdded() {
        let empty = playerWindow([], start: true, end: true, count: 0)
        let one = playerWindow([a], start: true, end: true, count: 1)
        XCTAssertEqual(WindowDiff(from: empty, to: one, cause: .update).addedRows, [1])
    }

    func testWithoutSteadyRowsOnlyAClosedRangeTellsNewRows() {
        // Every visible row changed (a stress test): the rows that arrive
        // may have been just below the window.
        let old = playerWindow([a, b, c], start: true)
        let new = playerWindow([(1, "Arthur", 99), (2, "Barbara", 89), (3, "Craig", 79)], start: true)
        let moved = playerWindow([(9, "Xavier", 99), (1, "Arthur", 98), (2, "Barbara", 89)], start: true)
        XCTAssertEqual(WindowDiff(from: old, to: new, cause: .update).changedCells, [1: [1], 2: [1], 3: [1]])
        let diff = WindowDiff(from: old, to: moved, cause: .update)
        XCTAssertEqual(diff.addedRows, [])
        XCTAssertEqual(diff.departedRows, [])
        XCTAssertEqual(diff.changedCells, [1: [1], 2: [1]])
    }

    // MARK: - Rows that leave

    func testRowDeletedBetweenSteadyRowsDeparts() {
        // Barbara was deleted, or her score fell below the window's: the
        // window can not tell, the host asks the database.
        let old = playerWindow([a, b, c, d])
        let new = playerWindow([a, c, d, e])
        let diff = WindowDiff(from: old, to: new, cause: .update)
        XCTAssertEqual(diff.departedRows, [2])
        XCTAssertEqual(diff.addedRows, [])
    }

    func testLastRowDeletedFromAWindowThatReachesTheEndDeparts() {
        let old = playerWindow([a, b, c], end: true)
        let new = playerWindow([a, b], end: true)
        XCTAssertEqual(WindowDiff(from: old, to: new, cause: .update).departedRows, [3])
    }

    func testRowMissingFromAWindowThatIsNowTheWholeTableDeparts() {
        // Every visible row changed, and the table now fits the window:
        // Craig, who was in it, is gone.
        let old = playerWindow([a, b, c], start: true)
        let new = playerWindow([(1, "Arthur", 99), (2, "Barbara", 89)], start: true, end: true)
        let diff = WindowDiff(from: old, to: new, cause: .update)
        XCTAssertEqual(diff.departedRows, [3])
        XCTAssertEqual(diff.changeCount, 3)
    }

    func testRowPushedOutAtAnOpenEdgeDoesNotDepart() {
        let x: PlayerRow = (9, "Xavier", 95)
        let old = playerWindow([a, b, c], start: true)
        let new = playerWindow([a, x, b], start: true)
        let diff = WindowDiff(from: old, to: new, cause: .update)
        XCTAssertEqual(diff.departedRows, [])
        XCTAssertEqual(diff.addedRows, [9])
    }

    // MARK: - Navigation

    func testNavigationNeitherAddsNorDepartsButReportsChangedCells() {
        // Page down while Barbara's score changed.
        let old = playerWindow([a, b, c], start: true)
        let new = playerWindow([(2, "Barbara", 91), c, d, e], end: true)
        let diff = WindowDiff(from: old, to: new, cause: .navigation)
        XCTAssertEqual(diff.changedCells, [2: [1]])
        XCTAssertEqual(diff.addedRows, [])
        XCTAssertEqual(diff.departedRows, [])
    }

    func testFilterIsANavigation() {
        // A filter keeps Arthur and Craig; clearing it brings back Barbara
        // and David, which are neither deleted nor new.
        let all = playerWindow([a, b, c, d], start: true, end: true)
        let filtered = playerWindow([a, c], start: true, end: true)
        XCTAssertTrue(WindowDiff(from: all, to: filtered, cause: .navigation).isEmpty)
        XCTAssertTrue(WindowDiff(from: filtered, to: all, cause: .navigation).isEmpty)
        // Had the same windows been updates, rows would have departed and arrived.
        XCTAssertEqual(WindowDiff(from: all, to: filtered, cause: .update).departedRows, [2, 4])
        XCTAssertEqual(WindowDiff(from: filtered, to: all, cause: .update).addedRows, [2, 4])
    }

    func testReorderingIsNoChange() {
        // The same players by name after by score.
        let old = playerWindow([a, b, c], start: true, end: true)
        let new = playerWindow([c, b, a], start: true, end: true)
        XCTAssertTrue(WindowDiff(from: old, to: new, cause: .navigation).isEmpty)
    }

    // MARK: - Untrusted values

    func testValuesCompareAsStored() {
        func changed(_ old: DatabaseValue, _ new: DatabaseValue) -> Bool {
            let before = WindowSnapshot<Int64>(rows: [.init(id: 1, cells: [old])], reachesStart: true, reachesEnd: true, rowCount: 1)
            let after = WindowSnapshot<Int64>(rows: [.init(id: 1, cells: [new])], reachesStart: true, reachesEnd: true, rowCount: 1)
            return WindowDiff(from: before, to: after, cause: .update).changedCells == [1: [0]]
        }
        // Shown differently, hence changed.
        XCTAssertTrue(changed(1.databaseValue, (1.0).databaseValue))
        XCTAssertTrue(changed(1.databaseValue, "1".databaseValue))
        XCTAssertTrue(changed((0.0).databaseValue, (-0.0).databaseValue))
        XCTAssertTrue(changed("é".databaseValue, "e\u{301}".databaseValue))
        XCTAssertTrue(changed(Data([0, 1]).databaseValue, Data([0, 2]).databaseValue))
        XCTAssertTrue(changed(Data().databaseValue, "".databaseValue))
        XCTAssertTrue(changed(.null, 0.databaseValue))
        // The same.
        XCTAssertFalse(changed(.null, .null))
        XCTAssertFalse(changed(Double.nan.databaseValue, Double.nan.databaseValue))
        XCTAssertFalse(changed(Double.infinity.databaseValue, Double.infinity.databaseValue))
        XCTAssertFalse(changed(Data([0, 255]).databaseValue, Data([0, 255]).databaseValue))
        XCTAssertFalse(changed("\u{1b}[2J".databaseValue, "\u{1b}[2J".databaseValue))
        XCTAssertFalse(changed(Int64.min.databaseValue, Int64.min.databaseValue))
    }

    func testCellsThatOneWindowLacksAreChanged() {
        let old = WindowSnapshot<Int64>(rows: [.init(id: 1, cells: [1.databaseValue])], reachesStart: true, reachesEnd: true, rowCount: 1)
        let new = WindowSnapshot<Int64>(rows: [.init(id: 1, cells: [1.databaseValue, 2.databaseValue])], reachesStart: true, reachesEnd: true, rowCount: 1)
        XCTAssertEqual(WindowDiff(from: old, to: new, cause: .update).changedCells, [1: [1]])
        XCTAssertEqual(WindowDiff(from: new, to: old, cause: .update).changedCells, [1: [1]])
    }

    func testDuplicateIDsCountOnce() {
        let old = playerWindow([a, b, b, c], start: true, end: true)
        let new = playerWindow([a, (9, "X", 95), (9, "X", 95), c], start: true, end: true)
        let diff = WindowDiff(from: old, to: new, cause: .update)
        XCTAssertEqual(diff.addedRows, [9])
        XCTAssertEqual(diff.departedRows, [2])
    }

    func testStoredKeysAreEqualOnlyWhenStoredIdentically() {
        let keys: Set<StoredKey> = [
            StoredKey([1.databaseValue]),
            StoredKey([(1.0).databaseValue]),
            StoredKey(["1".databaseValue]),
            StoredKey(["é".databaseValue]),
            StoredKey(["e\u{301}".databaseValue]),
            StoredKey([.null]),
            StoredKey([.null, .null]),
            StoredKey([Double.nan.databaseValue]),
        ]
        XCTAssertEqual(keys.count, 8)
        XCTAssertTrue(keys.contains(StoredKey(["é".databaseValue])))
        XCTAssertTrue(keys.contains(StoredKey([Double.nan.databaseValue])))
        XCTAssertEqual(StoredKey(["a".databaseValue, 2.databaseValue]), StoredKey(["a".databaseValue, 2.databaseValue]))
        XCTAssertNotEqual(StoredKey(["é".databaseValue]), StoredKey(["e\u{301}".databaseValue]))
    }

    func testRowsIdentifiedByStoredKeys() {
        // A WITHOUT ROWID table whose primary key holds two spellings of "é".
        func row(_ key: String, _ value: Int) -> WindowSnapshot<StoredKey>.Row {
            .init(id: StoredKey([key.databaseValue]), cells: [key.databaseValue, value.databaseValue])
        }
        let old = WindowSnapshot(rows: [row("é", 1), row("e\u{301}", 2)], reachesStart: true, reachesEnd: true, rowCount: 2)
        let new = WindowSnapshot(rows: [row("é", 1), row("e\u{301}", 3)], reachesStart: true, reachesEnd: true, rowCount: 2)
        XCTAssertEqual(
            WindowDiff(from: old, to: new, cause: .update).changedCells,
            [StoredKey(["e\u{301}".databaseValue]): [1]])
    }

    // MARK: - Large windows

    func testLargeWindowsAreComparedByIdentity() {
        // 100,000 rows; one updated, one inserted, one deleted, the rest
        // shifted by one position.
        let rows: [PlayerRow] = (0..<100_000).map { (Int64($0), "p\($0)", 1_000_000 - $0) }
        var newRows = rows
        newRows[70_000].score += 1
        newRows.remove(at: 60_000)
        newRows.insert((-1, "new", 1_000_000 - 30_000), at: 30_000)
        let diff = WindowDiff(
            from: playerWindow(rows, start: true, end: true),
            to: playerWindow(newRows, start: true, end: true), cause: .update)
        XCTAssertEqual(diff.changedCells, [70_000: [1]])
        XCTAssertEqual(diff.addedRows, [-1])
        XCTAssertEqual(diff.departedRows, [60_000])
    }
}
