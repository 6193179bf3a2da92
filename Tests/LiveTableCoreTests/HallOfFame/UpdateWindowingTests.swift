import XCTest
@testable import LiveTableCore

/// A table of a million players, of which the app only sees windows.
private enum BigTable {
    static let count = 1_000_000

    static func player(rank: Int) -> Player {
        makePlayer(Int64(rank + 1), "Player \(rank)", count - rank)
    }

    /// The window answering `request` that starts at `firstRank`.
    static func window(_ request: WindowRequest, firstRank: Int, rows: Int, rankIsExact: Bool = true) -> HallOfFame {
        let ranks = max(0, firstRank)..<min(count, firstRank + rows)
        return makeHallOfFame(
            ranks.map(player(rank:)), request: request, playerCount: count, maxScore: Score(count),
            firstRank: ranks.lowerBound, rankIsExact: rankIsExact,
            reachesStart: ranks.lowerBound == 0, reachesEnd: ranks.upperBound == count)
    }

    /// The window of `request` as the database computes it.
    static func answer(_ request: WindowRequest) -> HallOfFame {
        switch request.anchor {
        case .first:
            return window(request, firstRank: 0, rows: request.after)
        case .last:
            return window(request, firstRank: count - request.before - request.after, rows: request.before + request.after)
        case let .player(player):
            let rank = count - player.score.integerValue!
            let firstRank = max(0, rank - request.before)
            return window(request, firstRank: firstRank, rows: rank - firstRank + request.after)
        }
    }
}

final class UpdateWindowingTests: XCTestCase {
    /// 80x24 (19 rows per page, windows of 57 rows each side), showing the
    /// first rows of the big table.
    private func makeState() -> HallOfFameState {
        var state = HallOfFameState.initial(width: 80, height: 24)
        let effects = hallOfFameUpdate(&state, .resize(width: 80, height: 24))
        XCTAssertEqual(effects, [.observe(WindowRequest(ordering: .byScore, anchor: .first, before: 0, after: 114))])
        deliverAnswer(to: &state)
        return state
    }

    private func deliverAnswer(to state: inout HallOfFameState) {
        XCTAssertEqual(hallOfFameUpdate(&state, .hallOfFame(BigTable.answer(state.observedRequest!), now: .now)), [])
    }

    private func around(rank: Int, ordering: Ordering = .byScore) -> HallOfFameEffect {
        .observe(WindowRequest(
            ordering: ordering, anchor: .player(BigTable.player(rank: rank)), before: 57, after: 57))
    }

    func testMovingWithinTheWindowObservesNothing() {
        var state = makeState()
        var effects: [[HallOfFameEffect]] = []
        for _ in 0..<94 { effects += press(.down, in: &state) }
        XCTAssertEqual(effects, Array(repeating: [], count: 94))
        XCTAssertEqual(state.selectedPlayer, BigTable.player(rank: 94))
    }

    func testMovingNearTheEndOfTheWindowObservesAroundTheSelection() {
        var state = makeState()
        for _ in 0..<94 { _ = press(.down, in: &state) }
        // Rank 95 is less than a page away from the window end (114).
        XCTAssertEqual(press(.down, .down, in: &state), [[around(rank: 95)], [around(rank: 96)]])
        XCTAssertEqual(state.selectedIndex, 96)
        XCTAssertEqual(state.scrollTop, 78)

        // The new window keeps the selection on its player and screen row.
        deliverAnswer(to: &state)
        XCTAssertEqual(state.hallOfFame?.firstRank, 39)
        XCTAssertEqual(state.selectedPlayer, BigTable.player(rank: 96))
        XCTAssertEqual(state.selectedIndex, 57)
        XCTAssertEqual(state.scrollTop, 39)
        // And moving goes on, locally.
        XCTAssertEqual(press(.down, in: &state), [[]])
    }

    func testMovingNearTheStartOfTheWindowObservesAroundTheSelection() {
        var state = makeState()
        // End, then up: the window of the last rows does not reach the start.
        XCTAssertEqual(press(.end, in: &state), [[
            .observe(WindowRequest(ordering: .byScore, anchor: .last, before: 114, after: 0)),
        ]])
        deliverAnswer(to: &state)
        XCTAssertEqual(state.selectedIndex, 113)
        var effects: [[HallOfFameEffect]] = []
        for _ in 0..<95 { effects += press(.up, in: &state) }
        let last = BigTable.count - 114
        XCTAssertEqual(effects, Array(repeating: [], count: 94) + [[around(rank: last + 18)]])
    }

    func testPageDownObservesAroundTheNewSelection() {
        var state = makeState()
        XCTAssertEqual(press(.pageDown, in: &state), [[around(rank: 19)]])
        XCTAssertEqual(state.selectedIndex, 19)
        XCTAssertEqual(state.scrollTop, 19)
        deliverAnswer(to: &state)
        XCTAssertEqual(state.selectedIndex, 19)
        XCTAssertEqual(state.scrollTop, 19)
        XCTAssertEqual(press(.pageDown, .pageUp, in: &state), [[around(rank: 38)], [around(rank: 19)]])
    }

    func testHomeWaitsForTheFirstRows() {
        var state = makeState()
        _ = press(.end, in: &state)
        deliverAnswer(to: &state)
        let selected = state.selectedPlayer
        XCTAssertEqual(press(.home, .character("g"), in: &state), [
            [.observe(WindowRequest(ordering: .byScore, anchor: .first, before: 0, after: 114))],
            [],  // the same request is not sent twice
        ])
        XCTAssertEqual(state.selectedPlayer, selected)
        XCTAssertEqual(state.pendingJump, .first)
        deliverAnswer(to: &state)
        XCTAssertEqual(state.selectedPlayer, BigTable.player(rank: 0))
        XCTAssertEqual(state.scrollTop, 0)
        XCTAssertNil(state.pendingJump)
    }

    func testEndWaitsForTheLastRows() {
        var state = makeState()
        XCTAssertEqual(press(.end, .character("G"), in: &state), [
            [.observe(WindowRequest(ordering: .byScore, anchor: .last, before: 114, after: 0))],
            [],
        ])
        XCTAssertEqual(state.selectedPlayer, BigTable.player(rank: 0))
        XCTAssertEqual(state.pendingJump, .last)
        deliverAnswer(to: &state)
        XCTAssertEqual(state.selectedPlayer, BigTable.player(rank: BigTable.count - 1))
        // The last player on the last row of the pane.
        XCTAssertEqual(state.selectedIndex, 113)
        XCTAssertEqual(state.scrollTop, 95)
        XCTAssertNil(state.pendingJump)
    }

    func testMovingCancelsAPendingJump() {
        var state = makeState()
        _ = press(.end, .down, in: &state)
        XCTAssertNil(state.pendingJump)
        // The selected player (rank 1) is not in the last rows: they are
        // set aside, and the window is anchored on the selection.
        XCTAssertEqual(hallOfFameUpdate(&state, .hallOfFame(BigTable.answer(state.observedRequest!), now: .now)), [around(rank: 1)])
        XCTAssertEqual(state.hallOfFame?.firstRank, 0)
        deliverAnswer(to: &state)
        XCTAssertEqual(state.selectedPlayer, BigTable.player(rank: 1))
        XCTAssertEqual(state.selectedIndex, 1)
        XCTAssertEqual(state.scrollTop, 0)
    }

    func testOrderingToggleObservesAroundTheSelectionInTheOtherOrdering() {
        var state = makeState()
        _ = press(.down, .down, in: &state)
        XCTAssertEqual(press(.character("o"), in: &state), [[around(rank: 2, ordering: .byName)]])
        XCTAssertEqual(press(.character("o"), in: &state), [[around(rank: 2, ordering: .byScore)]])
    }

    func testTallerTerminalObservesALargerWindow() {
        var state = makeState()
        _ = press(.down, in: &state)
        // 80x40: 35 rows per page, more than the window of 114 rows can page.
        XCTAssertEqual(hallOfFameUpdate(&state, .resize(width: 80, height: 40)), [
            .observe(WindowRequest(ordering: .byScore, anchor: .player(BigTable.player(rank: 1)), before: 105, after: 105)),
        ])
        // Smaller again: the larger window will do.
        XCTAssertEqual(hallOfFameUpdate(&state, .resize(width: 80, height: 30)), [])
        XCTAssertEqual(hallOfFameUpdate(&state, .resize(width: 80, height: 10)), [])
    }

    func testIdenticalRequestsAreNotSentTwiceInARow() {
        var state = makeState()
        var effects: [HallOfFameEffect] = []
        for key in [Key.end, .end, .home, .home, .end, .character("G")] {
            effects += hallOfFameUpdate(&state, .key(key))
        }
        let first = WindowRequest(ordering: .byScore, anchor: .first, before: 0, after: 114)
        let last = WindowRequest(ordering: .byScore, anchor: .last, before: 114, after: 0)
        XCTAssertEqual(effects, [.observe(last), .observe(first), .observe(last)])
    }
}
