import XCTest
@testable import LiveTableCore

/// `count` players, by score: "P01" (score 1000), "P02" (990), ...
func makePlayers(_ count: Int) -> [Player] {
    (0..<count).map { offset in
        let index = offset + 1
        return makePlayer(Int64(index), "P" + (index < 10 ? "0" : "") + String(index), 1010 - 10 * index)
    }
}

final class UpdateSelectionTests: XCTestCase {
    /// Delivers a new value for the observed request, and returns the
    /// effects.
    @discardableResult
    private func deliver(_ players: [Player], to state: inout HallOfFameState) -> [HallOfFameEffect] {
        hallOfFameUpdate(&state, .hallOfFame(makeHallOfFame(players, request: state.observedRequest!), now: .now))
    }

    /// The window of 80x24 (57 rows each side) around a player.
    private func around(_ player: Player) -> WindowRequest {
        WindowRequest(ordering: .byScore, anchor: .player(player), before: 57, after: 57)
    }

    /// The screen row of the selection in the players pane.
    private func screenRow(_ state: HallOfFameState) -> Int? {
        state.selectedIndex.map { $0 - state.scrollTop }
    }

    func testSelectionStaysOnItsPlayerWhenTheOrderChanges() {
        var state = makeLoadedState()
        _ = press(.down, .down, in: &state)  // Craig, 950
        var refreshed = samplePlayers
        refreshed.remove(at: 2)
        let craig = makePlayer(3, "Craig", 10)
        refreshed.append(craig)
        deliver(refreshed, to: &state)
        XCTAssertEqual(state.selectedPlayer, craig)
        XCTAssertEqual(state.selectedIndex, 7)
    }

    func testScrollPositionDoesNotJumpWhenRowsAreInsertedOrDeletedAbove() {
        // 40x12: 4 rows in the players pane.
        var players = makePlayers(30)
        var state = makeLoadedState(players, width: 40, height: 12)
        for _ in 0..<10 { _ = press(.down, in: &state) }
        XCTAssertEqual(state.selectedPlayer, players[10])
        XCTAssertEqual(state.scrollTop, 7)
        XCTAssertEqual(screenRow(state), 3)

        // A new best player: the selection moves down one row in the list,
        // and stays on its screen row.
        players.insert(makePlayer(100, "Best", 5000), at: 0)
        deliver(players, to: &state)
        XCTAssertEqual(state.selectedPlayer, players[11])
        XCTAssertEqual(state.scrollTop, 8)
        XCTAssertEqual(screenRow(state), 3)

        // Five players above are deleted.
        players.removeFirst(5)
        deliver(players, to: &state)
        XCTAssertEqual(state.selectedIndex, 6)
        XCTAssertEqual(state.scrollTop, 3)
        XCTAssertEqual(screenRow(state), 3)

        // Rows below change: nothing moves.
        players.removeLast(10)
        deliver(players, to: &state)
        XCTAssertEqual(state.selectedIndex, 6)
        XCTAssertEqual(state.scrollTop, 3)
    }

    func testSelectionMovesUpTheScreenOnlyWhenTheListIsTooShort() {
        var players = makePlayers(30)
        var state = makeLoadedState(players, width: 40, height: 12)
        for _ in 0..<10 { _ = press(.down, in: &state) }
        XCTAssertEqual(screenRow(state), 3)
        players.removeFirst(9)
        deliver(players, to: &state)
        // Index 1 cannot be on screen row 3.
        XCTAssertEqual(state.selectedIndex, 1)
        XCTAssertEqual(state.scrollTop, 0)
        XCTAssertEqual(state.selectedPlayer, makePlayers(30)[10])
    }

    func testDeletedSelectionSelectsThePlayerNowAtItsPlace() {
        var state = makeLoadedState()
        _ = press(.down, .down, in: &state)  // Craig
        let craig = samplePlayers[2]
        let shown = state.hallOfFame
        var players = samplePlayers
        players.remove(at: 2)
        // The window of the first rows lacks Craig, who may have moved or
        // been deleted: it is set aside for the window around Craig, and
        // the database is asked which.
        XCTAssertEqual(deliver(players, to: &state), [.observe(around(craig)), .findDeletedPlayers([3])])
        XCTAssertEqual(state.hallOfFame, shown)
        XCTAssertEqual(state.selectedPlayer, craig)
        // Not in his own window either: deleted.
        XCTAssertEqual(deliver(players, to: &state), [])
        XCTAssertEqual(state.selectedPlayer, samplePlayers[3])  // David
        XCTAssertEqual(state.selectedIndex, 2)
        XCTAssertEqual(state.hallOfFame?.players, players)
    }

    func testDeletedLastPlayerSelectsTheNewLastPlayer() {
        var state = makeLoadedState()
        _ = press(.end, in: &state)
        XCTAssertEqual(deliver(samplePlayers, to: &state), [])
        XCTAssertEqual(state.selectedPlayer, samplePlayers[7])
        XCTAssertEqual(
            deliver(Array(samplePlayers.prefix(6)), to: &state),
            [.observe(around(samplePlayers[7])), .findDeletedPlayers([7, 8])])
        XCTAssertEqual(deliver(Array(samplePlayers.prefix(6)), to: &state), [])
        XCTAssertEqual(state.selectedPlayer, samplePlayers[5])
    }

    func testSelectedPlayerMovedOutOfTheWindowStaysSelectedOnItsScreenRow() {
        // 40x12: 4 rows in the players pane, windows of 24 rows each side.
        // The first 48 players of 100 are observed.
        let players = makePlayers(100)
        var state = makeLoadedState(Array(players.prefix(48)), width: 40, height: 12) { value in
            value.playerCount = 100
            value.reachesEnd = false
        }
        XCTAssertEqual(state.observedRequest, WindowRequest(ordering: .byScore, anchor: .first, before: 0, after: 48))
        for _ in 0..<10 { _ = press(.down, in: &state) }
        let selected = players[10]
        XCTAssertEqual(state.selectedPlayer, selected)
        XCTAssertEqual(screenRow(state), 3)
        let shown = state.hallOfFame
        let now = ContinuousClock.now

        // A new score sends the selected player to the end of the table,
        // out of the observed window: that value is set aside, and the
        // window is anchored on the player.
        let moved = makePlayer(selected.id!, selected.name, -5)
        var table = players
        table.remove(at: 10)
        table.append(moved)
        let firstRows = makeHallOfFame(
            Array(table.prefix(48)), request: state.observedRequest!, playerCount: 100,
            reachesEnd: false)
        let aroundSelected = WindowRequest(ordering: .byScore, anchor: .player(selected), before: 24, after: 24)
        // It left from within the window: moved, or deleted. The database
        // tells.
        XCTAssertEqual(
            hallOfFameUpdate(&state, .hallOfFame(firstRows, now: now)),
            [.observe(aroundSelected), .findDeletedPlayers([selected.id!])])
        XCTAssertEqual(state.hallOfFame, shown)
        XCTAssertEqual(state.selectedPlayer, selected)

        // The database follows the player by id to its new place.
        let lastRows = makeHallOfFame(
            Array(table.suffix(25)), request: aroundSelected, playerCount: 100,
            firstRank: 75, reachesStart: false)
        // Its new score is highlighted, and fades by the timer.
        XCTAssertEqual(
            hallOfFameUpdate(&state, .hallOfFame(lastRows, now: now)),
            [.highlightTimer(at: now + ChangeHighlighter<Int64>.strongDuration)])
        XCTAssertEqual(state.selectedPlayer, moved)
        XCTAssertEqual(state.selectedIndex, 24)
        XCTAssertEqual(screenRow(state), 3)

        // The player moves again, within its own window: still selected,
        // nothing more to observe, and the timer runs already.
        let back = makePlayer(selected.id!, selected.name, table[80].score)
        var rows = Array(table.suffix(25).dropLast())
        rows.insert(back, at: 6)
        XCTAssertEqual(hallOfFameUpdate(&state, .hallOfFame(makeHallOfFame(
            rows, request: aroundSelected, playerCount: 100, firstRank: 75, reachesStart: false), now: now)), [])
        XCTAssertEqual(state.selectedPlayer, back)
        XCTAssertEqual(state.selectedIndex, 6)
        XCTAssertEqual(screenRow(state), 3)
    }

    func testValueOfAReplacedWindowIsIgnored() {
        var state = makeLoadedState(makePlayers(30), width: 40, height: 12)
        let oldRequest = state.observedRequest!
        _ = press(.end, in: &state)
        XCTAssertNotEqual(state.observedRequest, oldRequest)
        let shown = state
        XCTAssertEqual(hallOfFameUpdate(&state, .hallOfFame(makeHallOfFame(Array(makePlayers(30).suffix(3)), request: oldRequest), now: .now)), [])
        XCTAssertEqual(state, shown)
    }

    func testDeletedSelectionInANewWindowSelectsThePlayerThatSortsAtItsPlace() {
        var state = makeLoadedState()
        _ = press(.down, .down, in: &state)  // Craig
        _ = press(.character("o"), in: &state)
        // By name, without Craig: Arthur, Barbara, David, ...
        var byName = samplePlayers.sorted { $0.name < $1.name }
        byName.removeAll { $0.name == "Craig" }
        deliver(byName, to: &state)
        XCTAssertEqual(state.selectedPlayer, samplePlayers[3])  // David
        XCTAssertEqual(state.selectedIndex, 2)
    }

    func testToggledOrderingKeepsTheSelectedPlayerOnItsScreenRow() {
        let players = makePlayers(30)
        var state = makeLoadedState(players, width: 40, height: 12)
        for _ in 0..<10 { _ = press(.down, in: &state) }
        XCTAssertEqual(screenRow(state), 3)
        _ = press(.character("o"), in: &state)
        // Names that sort the other way round, so that the selected player
        // moves in the new ordering.
        let renamed = players.map { makePlayer($0.id!, "Q" + String(100 - Int($0.id!)), $0.score) }
        let byName = renamed.sorted { $0.name < $1.name }
        deliver(byName, to: &state)
        let selected = renamed[10]
        XCTAssertEqual(state.selectedPlayer, selected)
        XCTAssertEqual(state.selectedIndex, byName.firstIndex(of: selected))
        XCTAssertEqual(screenRow(state), 3)
    }

    func testValueOfTheReplacedOrderingIsIgnored() {
        var state = makeLoadedState()
        let before = state.hallOfFame
        let oldRequest = state.observedRequest!
        _ = press(.character("o"), in: &state)
        XCTAssertEqual(hallOfFameUpdate(&state, .hallOfFame(makeHallOfFame(Array(samplePlayers.prefix(2)), request: oldRequest), now: .now)), [])
        XCTAssertEqual(state.hallOfFame, before)
    }

    func testEmptyTableHasNoSelection() {
        var state = makeLoadedState()
        _ = press(.down, in: &state)
        deliver([], to: &state)
        XCTAssertNil(state.selectedPlayer)
        XCTAssertNil(state.selectedIndex)
        XCTAssertEqual(state.scrollTop, 0)
        // Populated again: the first player is selected.
        deliver(samplePlayers, to: &state)
        XCTAssertEqual(state.selectedPlayer, samplePlayers[0])
    }

    func testSelectionTracksTheLatestKeyOfItsPlayer() {
        var state = makeLoadedState()
        let renamed = makePlayer(1, "Arthur II", 1300)
        deliver([renamed] + samplePlayers.dropFirst(), to: &state)
        XCTAssertEqual(state.selectedPlayer, renamed)
        // The ordering toggle anchors on the new key.
        XCTAssertEqual(press(.character("o"), in: &state), [[
            .observe(WindowRequest(ordering: .byName, anchor: .player(renamed), before: 57, after: 57)),
        ]])
    }
}
