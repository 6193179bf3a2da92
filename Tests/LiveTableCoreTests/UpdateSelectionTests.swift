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
    /// Delivers a new value for the observed request.
    private func deliver(_ players: [Player], to state: inout AppState) {
        XCTAssertEqual(update(&state, .hallOfFame(makeHallOfFame(players, request: state.observedRequest!))), [])
    }

    /// The screen row of the selection in the players pane.
    private func screenRow(_ state: AppState) -> Int? {
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
        var players = samplePlayers
        players.remove(at: 2)
        deliver(players, to: &state)
        XCTAssertEqual(state.selectedPlayer, samplePlayers[3])  // David
        XCTAssertEqual(state.selectedIndex, 2)
    }

    func testDeletedLastPlayerSelectsTheNewLastPlayer() {
        var state = makeLoadedState()
        _ = press(.end, in: &state)
        _ = update(&state, .hallOfFame(makeHallOfFame(samplePlayers, request: state.observedRequest!)))
        XCTAssertEqual(state.selectedPlayer, samplePlayers[7])
        deliver(Array(samplePlayers.prefix(6)), to: &state)
        XCTAssertEqual(state.selectedPlayer, samplePlayers[5])
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
        XCTAssertEqual(update(&state, .hallOfFame(makeHallOfFame(Array(samplePlayers.prefix(2)), request: oldRequest))), [])
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
