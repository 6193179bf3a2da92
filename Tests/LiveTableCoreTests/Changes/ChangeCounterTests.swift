import XCTest
@testable import LiveTableCore

final class ChangeCounterTests: XCTestCase {
    let a: PlayerRow = (1, "Arthur", 100)
    let b: PlayerRow = (2, "Barbara", 90)
    let c: PlayerRow = (3, "Craig", 80)

    func testCountsTheChangesOfEachDelivery() {
        var counter = ChangeCounter(since: playerWindow([a, b, c], start: true, end: true, count: 3))
        XCTAssertEqual(counter.changeCount, 0)
        // Barbara's score changes.
        counter.take(playerWindow([a, (2, "Barbara", 91), c], start: true, end: true, count: 3), cause: .update)
        XCTAssertEqual(counter.changeCount, 1)
        // Again, and a player arrives.
        counter.take(playerWindow([a, (2, "Barbara", 92), (9, "X", 85), c], start: true, end: true, count: 4), cause: .update)
        XCTAssertEqual(counter.changeCount, 3)
        // Craig is deleted.
        counter.take(playerWindow([a, (2, "Barbara", 92), (9, "X", 85)], start: true, end: true, count: 3), cause: .update)
        XCTAssertEqual(counter.changeCount, 4)
        // The same value again.
        counter.take(playerWindow([a, (2, "Barbara", 92), (9, "X", 85)], start: true, end: true, count: 3), cause: .update)
        XCTAssertEqual(counter.changeCount, 4)
        XCTAssertEqual(counter.rowCountChange, 0)
    }

    func testNavigationCountsOnlyChangedCells() {
        // A filter leaves Craig out while Barbara's score changes.
        var counter = ChangeCounter(since: playerWindow([a, b, c], start: true, end: true, count: 3))
        counter.take(playerWindow([a, (2, "Barbara", 91)], start: true, end: true, count: 3), cause: .navigation)
        XCTAssertEqual(counter.changeCount, 1)
    }

    func testRowCountChangeSinceThePause() {
        var counter = ChangeCounter(since: playerWindow([a], start: true, count: 100))
        counter.take(playerWindow([a], start: true, count: 140), cause: .update)
        XCTAssertEqual(counter.changeCount, 0)
        XCTAssertEqual(counter.rowCountChange, 40)
        counter.take(playerWindow([a], start: true, count: nil), cause: .update)
        XCTAssertEqual(counter.rowCountChange, 40)
    }

    func testPauseWithoutAWindowCountsFromTheFirstOne() {
        var counter = ChangeCounter<Int64>(since: nil)
        XCTAssertNil(counter.rowCountChange)
        counter.take(playerWindow([a], start: true, end: true, count: 1), cause: .update)
        XCTAssertEqual(counter.changeCount, 0)
        counter.take(playerWindow([(1, "Arthur", 1)], start: true, end: true, count: 2), cause: .update)
        XCTAssertEqual(counter.changeCount, 1)
        XCTAssertEqual(counter.rowCountChange, 1)
    }

    func testText() {
        var counter = ChangeCounter(since: playerWindow([a, b], start: true, end: true, count: 2))
        XCTAssertEqual(counter.text, "paused \u{2014} 0 changes")
        counter.take(playerWindow([a, (2, "Barbara", 1)], start: true, end: true, count: 2), cause: .update)
        XCTAssertEqual(counter.text, "paused \u{2014} 1 change")
        counter.take(playerWindow([a, (2, "Barbara", 2)], start: true, end: true, count: 2), cause: .update)
        XCTAssertEqual(counter.text, "paused \u{2014} 2 changes")
    }

    func testResumeHighlightsWhatChangedWhilePaused() {
        let t0 = ContinuousClock.Instant.now
        var highlighter = ChangeHighlighter<Int64>()
        highlighter.take(playerWindow([a, b, c], start: true, end: true, count: 3), cause: .update, at: t0)
        // Pause; two deliveries change Barbara, then Craig.
        var counter = ChangeCounter(since: highlighter.window)
        counter.take(playerWindow([a, (2, "Barbara", 91), c], start: true, end: true, count: 3), cause: .update)
        counter.take(playerWindow([a, (2, "Barbara", 91), (3, "Craig", 81)], start: true, end: true, count: 3), cause: .update)
        XCTAssertEqual(counter.changeCount, 2)
        // Nothing lit while paused.
        XCTAssertFalse(highlighter.isHighlighting)
        // Resume: the latest window against the frozen one.
        highlighter.take(counter.window!, cause: .update, at: t0 + .seconds(10))
        let strong = CellHighlight(kind: .changed, level: .strong)
        XCTAssertEqual(highlighter.highlight(row: 2, cell: 1), strong)
        XCTAssertEqual(highlighter.highlight(row: 3, cell: 1), strong)
        XCTAssertNil(highlighter.highlight(row: 1, cell: 1))
    }
}
