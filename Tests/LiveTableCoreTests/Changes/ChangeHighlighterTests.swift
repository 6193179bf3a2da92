import GRDB
import XCTest
@testable import LiveTableCore

final class ChangeHighlighterTests: XCTestCase {
    let a: PlayerRow = (1, "Arthur", 100)
    let b: PlayerRow = (2, "Barbara", 90)
    let c: PlayerRow = (3, "Craig", 80)
    let d: PlayerRow = (4, "David", 70)

    let t0 = ContinuousClock.Instant.now

    func at(_ milliseconds: Int) -> ContinuousClock.Instant {
        t0 + .milliseconds(milliseconds)
    }

    /// A highlighter that took `[a, b, c]` at t0.
    func started(count: Int? = 3) -> ChangeHighlighter<Int64> {
        var highlighter = ChangeHighlighter<Int64>()
        highlighter.take(playerWindow([a, b, c], start: true, end: true, count: count), cause: .update, at: t0)
        return highlighter
    }

    let strongChange = CellHighlight(kind: .changed, level: .strong)
    let faintChange = CellHighlight(kind: .changed, level: .faint)

    // MARK: - What is highlighted

    func testFirstWindowHighlightsNothing() {
        var highlighter = ChangeHighlighter<Int64>()
        let diff = highlighter.take(playerWindow([a, b], start: true, end: true), cause: .update, at: t0)
        XCTAssertTrue(diff.isEmpty)
        XCTAssertNil(highlighter.highlight(row: 1, cell: 0))
        XCTAssertNil(highlighter.nextDeadline)
        XCTAssertFalse(highlighter.isHighlighting)
    }

    func testEqualWindowHighlightsNothing() {
        // A DatabasePool observation may deliver its first value twice.
        var highlighter = started()
        let diff = highlighter.take(playerWindow([a, b, c], start: true, end: true, count: 3), cause: .update, at: at(10))
        XCTAssertTrue(diff.isEmpty)
        XCTAssertFalse(highlighter.isHighlighting)
        XCTAssertNil(highlighter.nextDeadline)
    }

    func testChangedCellIsHighlightedAndOtherCellsAreNot() {
        var highlighter = started()
        highlighter.take(playerWindow([a, (2, "Barbara", 95), c], start: true, end: true), cause: .update, at: at(100))
        XCTAssertEqual(highlighter.highlight(row: 2, cell: HallOfFame.scoreCell), strongChange)
        XCTAssertNil(highlighter.highlight(row: 2, cell: HallOfFame.nameCell))
        XCTAssertNil(highlighter.highlight(row: 1, cell: HallOfFame.scoreCell))
        XCTAssertNil(highlighter.rowHighlight(row: 2))
    }

    func testRowThatMovedIsHighlightedInItsChangedCellOnly() {
        var highlighter = started()
        highlighter.take(playerWindow([(3, "Craig", 120), a, b], start: true, end: true), cause: .update, at: at(0))
        XCTAssertEqual(highlighter.highlight(row: 3, cell: HallOfFame.scoreCell), strongChange)
        XCTAssertNil(highlighter.highlight(row: 3, cell: HallOfFame.nameCell))
        XCTAssertNil(highlighter.highlight(row: 1, cell: HallOfFame.scoreCell))
        XCTAssertNil(highlighter.highlight(row: 2, cell: HallOfFame.scoreCell))
    }

    func testAddedRowHighlightsEveryCellAndTheRow() {
        var highlighter = started()
        highlighter.take(playerWindow([a, (9, "Xavier", 95), b, c], start: true, end: true), cause: .update, at: at(0))
        let added = CellHighlight(kind: .added, level: .strong)
        XCTAssertEqual(highlighter.highlight(row: 9, cell: 0), added)
        XCTAssertEqual(highlighter.highlight(row: 9, cell: 1), added)
        XCTAssertEqual(highlighter.highlight(row: 9, cell: 7), added)
        XCTAssertEqual(highlighter.rowHighlight(row: 9), added)
        XCTAssertNil(highlighter.rowHighlight(row: 2))
    }

    func testMostRecentChangeWinsOverArrival() {
        var highlighter = started()
        highlighter.take(playerWindow([a, (9, "Xavier", 95), b, c], start: true, end: true), cause: .update, at: at(0))
        highlighter.take(playerWindow([a, (9, "Xavier", 96), b, c], start: true, end: true), cause: .update, at: at(700))
        XCTAssertEqual(highlighter.highlight(row: 9, cell: 1), strongChange)
        XCTAssertEqual(highlighter.highlight(row: 9, cell: 0), CellHighlight(kind: .added, level: .faint))
        XCTAssertEqual(highlighter.rowHighlight(row: 9), CellHighlight(kind: .added, level: .faint))
    }

    func testNavigationDoesNotHighlightArrivingRows() {
        // A filter is cleared: Barbara comes back between Arthur and Craig.
        var highlighter = ChangeHighlighter<Int64>()
        highlighter.take(playerWindow([a, c], start: true, end: true), cause: .update, at: t0)
        let diff = highlighter.take(playerWindow([a, b, c, d], start: true, end: true), cause: .navigation, at: at(10))
        XCTAssertTrue(diff.isEmpty)
        XCTAssertNil(highlighter.highlight(row: 2, cell: 0))
        XCTAssertNil(highlighter.rowHighlight(row: 2))
        XCTAssertNil(highlighter.rowHighlight(row: 4))
        XCTAssertFalse(highlighter.isHighlighting)
    }

    func testHighlightsFollowRowsAcrossNavigation() {
        var highlighter = started()
        highlighter.take(playerWindow([a, (2, "Barbara", 91), (3, "Craig", 81)], start: true, end: true), cause: .update, at: at(0))
        // Scroll by one row: Barbara stays, Craig leaves.
        highlighter.take(playerWindow([a, (2, "Barbara", 91)], start: true), cause: .navigation, at: at(100))
        XCTAssertEqual(highlighter.highlight(row: 2, cell: 1), strongChange)
        // Craig's highlight was dropped with him: he comes back plain.
        highlighter.take(playerWindow([(2, "Barbara", 91), (3, "Craig", 81)], end: true), cause: .navigation, at: at(200))
        XCTAssertNil(highlighter.highlight(row: 3, cell: 1))
        XCTAssertEqual(highlighter.highlight(row: 2, cell: 1), strongChange)
    }

    // MARK: - Fading

    func testChangedCellFadesFromStrongToFaintToNothing() {
        var highlighter = started()
        highlighter.take(playerWindow([a, (2, "Barbara", 95), c], start: true, end: true), cause: .update, at: at(0))
        highlighter.advance(to: at(599))
        XCTAssertEqual(highlighter.highlight(row: 2, cell: 1), strongChange)
        highlighter.advance(to: at(600))
        XCTAssertEqual(highlighter.highlight(row: 2, cell: 1), faintChange)
        highlighter.advance(to: at(1999))
        XCTAssertEqual(highlighter.highlight(row: 2, cell: 1), faintChange)
        XCTAssertTrue(highlighter.isHighlighting)
        highlighter.advance(to: at(2000))
        XCTAssertNil(highlighter.highlight(row: 2, cell: 1))
        XCTAssertFalse(highlighter.isHighlighting)
    }

    func testNextDeadlineIsWhenALevelChangesThenNone() {
        var highlighter = started()
        highlighter.take(playerWindow([a, (2, "Barbara", 95), c], start: true, end: true), cause: .update, at: at(0))
        XCTAssertEqual(highlighter.nextDeadline, at(600))
        highlighter.advance(to: at(600))
        XCTAssertEqual(highlighter.nextDeadline, at(2000))
        highlighter.advance(to: at(2000))
        XCTAssertNil(highlighter.nextDeadline)
    }

    func testNextDeadlineIsTheEarliestOfSeveralChanges() {
        var highlighter = started()
        highlighter.take(playerWindow([a, (2, "Barbara", 95), c], start: true, end: true), cause: .update, at: at(0))
        highlighter.take(playerWindow([a, (2, "Barbara", 95), (3, "Craig", 85)], start: true, end: true), cause: .update, at: at(1000))
        // Barbara is faint until 2000, Craig strong until 1600.
        XCTAssertEqual(highlighter.nextDeadline, at(1600))
        highlighter.advance(to: at(1600))
        XCTAssertEqual(highlighter.nextDeadline, at(2000))
        highlighter.advance(to: at(2000))
        XCTAssertEqual(highlighter.nextDeadline, at(3000))
        XCTAssertNil(highlighter.highlight(row: 2, cell: 1))
        XCTAssertEqual(highlighter.highlight(row: 3, cell: 1), faintChange)
    }

    func testFadedHighlightsLeaveNothingBehind() {
        // Once everything has faded, the state is that of a highlighter
        // that saw no change: nothing is left to tick for.
        let changedWindow = playerWindow([a, (2, "Barbara", 95), c], start: true, end: true, count: 3)
        var changed = started()
        changed.take(changedWindow, cause: .update, at: at(0))
        changed.advance(to: at(5000))
        var quiet = ChangeHighlighter<Int64>()
        quiet.take(changedWindow, cause: .update, at: at(5000))
        XCTAssertEqual(changed, quiet)
    }

    func testRepeatedChangeRestartsTheFade() {
        var highlighter = started()
        highlighter.take(playerWindow([a, (2, "Barbara", 95), c], start: true, end: true), cause: .update, at: at(0))
        highlighter.take(playerWindow([a, (2, "Barbara", 96), c], start: true, end: true), cause: .update, at: at(1500))
        XCTAssertEqual(highlighter.highlight(row: 2, cell: 1), strongChange)
        XCTAssertEqual(highlighter.nextDeadline, at(2100))
        highlighter.advance(to: at(3000))
        XCTAssertEqual(highlighter.highlight(row: 2, cell: 1), faintChange)
    }

    func testClockNeverGoesBack() {
        var highlighter = started()
        highlighter.take(playerWindow([a, (2, "Barbara", 95), c], start: true, end: true), cause: .update, at: at(1000))
        highlighter.advance(to: at(500))
        XCTAssertEqual(highlighter.now, at(1000))
        XCTAssertEqual(highlighter.highlight(row: 2, cell: 1), strongChange)
    }

    // MARK: - Off switch

    func testDisabledHighlighterHighlightsAndCountsNothing() {
        var highlighter = ChangeHighlighter<Int64>(isEnabled: false)
        highlighter.take(playerWindow([a, b, c], start: true, end: true, count: 3), cause: .update, at: t0)
        let diff = highlighter.take(
            playerWindow([a, (2, "Barbara", 95), (9, "X", 85), c], start: true, end: true, count: 4),
            cause: .update, at: at(10))
        XCTAssertTrue(diff.isEmpty)
        XCTAssertNil(highlighter.highlight(row: 2, cell: 1))
        XCTAssertNil(highlighter.highlight(row: 9, cell: 1))
        XCTAssertNil(highlighter.nextDeadline)
        XCTAssertNil(highlighter.rowCountChange)
        highlighter.noteDeletions([1])
        XCTAssertEqual(highlighter.deletionsSinceLastLook, 0)
    }

    func testTurningOffClearsHighlightsAndTurningOnDoesNotFlash() {
        var highlighter = started()
        highlighter.take(playerWindow([a, (2, "Barbara", 95), c], start: true, end: true, count: 3), cause: .update, at: at(0))
        highlighter.isEnabled = false
        XCTAssertNil(highlighter.highlight(row: 2, cell: 1))
        XCTAssertNil(highlighter.nextDeadline)
        // Changes while off are not highlighted once it is on again.
        highlighter.take(playerWindow([a, (2, "Barbara", 96), c, d], start: true, end: true, count: 4), cause: .update, at: at(100))
        highlighter.isEnabled = true
        XCTAssertNil(highlighter.highlight(row: 2, cell: 1))
        XCTAssertNil(highlighter.highlight(row: 4, cell: 1))
        XCTAssertEqual(highlighter.rowCountChange, 0)
        // And later changes are.
        highlighter.take(playerWindow([a, (2, "Barbara", 97), c, d], start: true, end: true, count: 4), cause: .update, at: at(200))
        XCTAssertEqual(highlighter.highlight(row: 2, cell: 1), strongChange)
    }

    // MARK: - Counts since the last look

    func testRowCountChangeSinceTheLastLook() {
        var highlighter = started(count: 10)
        XCTAssertEqual(highlighter.rowCountChange, 0)
        highlighter.take(playerWindow([a, b, c], start: true, count: 13), cause: .update, at: at(10))
        XCTAssertEqual(highlighter.rowCountChange, 3)
        highlighter.markAsSeen()
        XCTAssertEqual(highlighter.rowCountChange, 0)
        highlighter.take(playerWindow([a, b, c], start: true, count: 12), cause: .update, at: at(20))
        XCTAssertEqual(highlighter.rowCountChange, -1)
        // A count being recounted keeps the last known one.
        highlighter.take(playerWindow([a, b, c], start: true, count: nil), cause: .update, at: at(30))
        XCTAssertEqual(highlighter.rowCountChange, -1)
    }

    func testRowCountChangeStartsAtTheFirstKnownCount() {
        var highlighter = started(count: nil)
        XCTAssertNil(highlighter.rowCountChange)
        highlighter.take(playerWindow([a, b, c], start: true, end: true, count: 3), cause: .update, at: at(10))
        XCTAssertEqual(highlighter.rowCountChange, 0)
    }

    func testDeletionsCountUntilTheLastLook() {
        var highlighter = started()
        let diff = highlighter.take(playerWindow([a, c], start: true, end: true, count: 2), cause: .update, at: at(10))
        XCTAssertEqual(diff.departedRows, [2])
        // The host asked the database: Barbara is gone.
        highlighter.noteDeletions(diff.departedRows)
        XCTAssertEqual(highlighter.deletionsSinceLastLook, 1)
        XCTAssertEqual(highlighter.rowCountChange, -1)
        highlighter.markAsSeen()
        XCTAssertEqual(highlighter.deletionsSinceLastLook, 0)
    }

    func testCountsAsText() {
        var highlighter = started(count: 10)
        XCTAssertNil(highlighter.rowCountChangeText)
        XCTAssertNil(highlighter.deletionsText)
        highlighter.take(playerWindow([a, b, c], start: true, count: 13), cause: .update, at: at(10))
        XCTAssertEqual(highlighter.rowCountChangeText, "+3")
        highlighter.take(playerWindow([a, b, c], start: true, count: 9), cause: .update, at: at(20))
        XCTAssertEqual(highlighter.rowCountChangeText, "\u{2212}1")
        highlighter.noteDeletions([7])
        XCTAssertEqual(highlighter.deletionsText, "1 row deleted")
        highlighter.noteDeletions([8, 9])
        XCTAssertEqual(highlighter.deletionsText, "3 rows deleted")
        highlighter.isEnabled = false
        XCTAssertNil(highlighter.rowCountChangeText)
        XCTAssertNil(highlighter.deletionsText)
    }

    func testResetForgetsTheWindowAndTheCounts() {
        var highlighter = started()
        highlighter.take(playerWindow([a, (2, "Barbara", 95), c], start: true, end: true, count: 4), cause: .update, at: at(0))
        highlighter.noteDeletions([7])
        highlighter.reset()
        XCTAssertNil(highlighter.window)
        XCTAssertNil(highlighter.highlight(row: 2, cell: 1))
        XCTAssertNil(highlighter.rowCountChange)
        XCTAssertEqual(highlighter.deletionsSinceLastLook, 0)
        // Another table: its first window highlights nothing.
        let diff = highlighter.take(playerWindow([(2, "Other", 1)], start: true, end: true, count: 1), cause: .update, at: at(10))
        XCTAssertTrue(diff.isEmpty)
        XCTAssertFalse(highlighter.isHighlighting)
    }

    // MARK: - Hall of Fame and styles

    func testHallOfFameSnapshotIdentifiesPlayersByID() {
        let request = WindowRequest(ordering: .byScore, anchor: .first, before: 0, after: 10)
        let hallOfFame = HallOfFame(
            playerCount: 7, maxScore: 100, request: request,
            players: [
                Player(id: 1, name: "Arthur", score: 100),
                Player(id: nil, name: "Ghost", score: 90),
                Player(id: 3, name: "Craig", score: .text("abc")),
            ],
            firstRank: 0, rankIsExact: true, reachesStart: true, reachesEnd: false)
        let snapshot = hallOfFame.changeSnapshot
        XCTAssertEqual(snapshot.rows.map(\.id), [1, 3])
        XCTAssertEqual(snapshot.rows[1].cells[HallOfFame.nameCell], "Craig".databaseValue)
        XCTAssertTrue(snapshot.rows[1].cells[HallOfFame.scoreCell].isStoredIdentically(to: "abc".databaseValue))
        XCTAssertTrue(snapshot.reachesStart)
        XCTAssertFalse(snapshot.reachesEnd)
        XCTAssertEqual(snapshot.rowCount, 7)
    }

    func testDeletedPlayerIDsAreThoseTheTableNoLongerHolds() throws {
        try forEachDatabaseKind { appDatabase, kind in
            let ids: [Int64] = try appDatabase.writer.write { db in
                try db.execute(sql: "DELETE FROM player")
                var players = (0..<3).map { Player(name: "P\($0)", score: $0) }
                for index in players.indices { try players[index].insert(db) }
                return players.compactMap(\.id)
            }
            try appDatabase.writer.write { db in
                try db.execute(sql: "DELETE FROM player WHERE id = ?", arguments: [ids[1]])
            }
            let deleted = try appDatabase.writer.read { db in
                try HallOfFame.deletedPlayerIDs(db, among: ids + [-5])
            }
            XCTAssertEqual(deleted, [ids[1], -5], "\(kind)")
            // More ids than one statement takes.
            let many = try appDatabase.writer.read { db in
                try HallOfFame.deletedPlayerIDs(db, among: [ids[0]] + (10_000..<11_200).map(Int64.init))
            }
            XCTAssertEqual(many.count, 1200, "\(kind)")
            XCTAssertFalse(many.contains(ids[0]), "\(kind)")
            XCTAssertEqual(try appDatabase.writer.read { db in try HallOfFame.deletedPlayerIDs(db, among: []) }, [])
        }
    }

    func testHighlightedStyles() {
        let added = CellHighlight(kind: .added, level: .strong)
        XCTAssertEqual(CellStyle.plain.highlighted(nil), .plain)
        XCTAssertEqual(CellStyle.plain.highlighted(strongChange), CellStyle(color: .changed, bold: true, reverse: true))
        XCTAssertEqual(CellStyle.plain.highlighted(faintChange), CellStyle(color: .changed, bold: true, reverse: false, underline: true))
        XCTAssertEqual(CellStyle.plain.highlighted(added), CellStyle(color: .added, bold: true, reverse: true))
        // In the reversed bar of the selection, a strong highlight is a
        // plain cell: it shows without colours too.
        let selection = CellStyle(color: .selection, bold: true, reverse: true)
        XCTAssertEqual(selection.highlighted(strongChange), CellStyle(color: .changed, bold: true, reverse: false))
        XCTAssertEqual(selection.highlighted(faintChange), CellStyle(color: .changed, bold: true, reverse: true, underline: true))
    }
}
