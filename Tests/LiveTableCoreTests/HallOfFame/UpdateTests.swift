import XCTest
@testable import LiveTableCore

// MARK: - Fixtures

/// A player with an id, as the database delivers them.
func makePlayer(_ id: Int64, _ name: String, _ score: Score) -> Player {
    Player(id: id, name: name, score: score)
}

/// A player with an id and an integer score.
func makePlayer(_ id: Int64, _ name: String, _ score: Int) -> Player {
    Player(id: id, name: name, score: score)
}

/// A Hall of Fame value built by hand: by default the whole table, answering
/// `request`.
func makeHallOfFame(
    _ players: [Player],
    request: WindowRequest,
    playerCount: Int? = nil,
    maxScore: Score?? = nil,
    firstRank: Int = 0,
    rankIsExact: Bool = true,
    reachesStart: Bool = true,
    reachesEnd: Bool = true) -> HallOfFame
{
    HallOfFame(
        playerCount: playerCount ?? players.count,
        maxScore: maxScore ?? players.map(\.score).max(),
        request: request, players: players, firstRank: firstRank,
        rankIsExact: rankIsExact, reachesStart: reachesStart, reachesEnd: reachesEnd)
}

/// Eight players, by score.
let samplePlayers = [
    makePlayer(1, "Arthur", 1200),
    makePlayer(2, "Barbara", 1100),
    makePlayer(3, "Craig", 950),
    makePlayer(4, "David", 800),
    makePlayer(5, "Elena", 640),
    makePlayer(6, "Frida", 500),
    makePlayer(7, "Gilbert", 230),
    makePlayer(8, "Henriette", 15),
]

/// A state after the first resize and the first value of the observation.
func makeLoadedState(
    _ players: [Player] = samplePlayers, width: Int = 80, height: Int = 24,
    configure: (inout HallOfFame) -> Void = { _ in }) -> HallOfFameState
{
    var state = HallOfFameState.initial(width: width, height: height)
    let effects = hallOfFameUpdate(&state, .resize(width: width, height: height))
    guard case let .observe(request) = effects.first else {
        XCTFail("first resize did not observe: \(effects)")
        return state
    }
    var value = makeHallOfFame(players, request: request)
    configure(&value)
    _ = hallOfFameUpdate(&state, .hallOfFame(value, now: .now))
    return state
}

/// Sends key presses, and returns the effects of each one.
func press(_ keys: Key..., in state: inout HallOfFameState) -> [[HallOfFameEffect]] {
    keys.map { hallOfFameUpdate(&state, .key($0)) }
}

/// Sends the characters of `text` as key presses, and returns all effects.
func type(_ text: String, in state: inout HallOfFameState) -> [HallOfFameEffect] {
    text.flatMap { hallOfFameUpdate(&state, .key(.character($0))) }
}

final class UpdateTests: XCTestCase {
    // MARK: - Start

    func testFirstResizeStartsTheObservationOnTheFirstRows() {
        var state = HallOfFameState.initial(width: 0, height: 0)
        let effects = hallOfFameUpdate(&state, .resize(width: 80, height: 24))
        // 19 rows in the players pane at 80x24; 3 pages each side: 57.
        XCTAssertEqual(state.pageRows, 19)
        XCTAssertEqual(effects, [
            .observe(WindowRequest(ordering: .byScore, anchor: .first, before: 0, after: 114)),
        ])
        XCTAssertEqual(state.observedRequest, WindowRequest(ordering: .byScore, anchor: .first, before: 0, after: 114))
        XCTAssertEqual(state.width, 80)
        XCTAssertEqual(state.height, 24)
        XCTAssertNil(state.hallOfFame)
    }

    func testInitialOrderingIsObserved() {
        var state = HallOfFameState.initial(width: 20, height: 5, ordering: .byName)
        XCTAssertEqual(hallOfFameUpdate(&state, .resize(width: 20, height: 5)), [
            .observe(WindowRequest(ordering: .byName, anchor: .first, before: 0, after: 48)),
        ])
    }

    func testFirstValueSelectsTheFirstPlayer() {
        let state = makeLoadedState()
        XCTAssertEqual(state.selectedPlayer, samplePlayers[0])
        XCTAssertEqual(state.selectedIndex, 0)
        XCTAssertEqual(state.scrollTop, 0)
        XCTAssertEqual(state.hallOfFame?.players, samplePlayers)
        XCTAssertEqual(state.mode, .browsing)
    }

    func testSameSizeAgainDoesNotRestartTheObservation() {
        var state = makeLoadedState()
        XCTAssertEqual(hallOfFameUpdate(&state, .resize(width: 80, height: 24)), [])
        XCTAssertEqual(hallOfFameUpdate(&state, .resize(width: 100, height: 20)), [])
    }

    // MARK: - Moving

    func testDownKeysMoveTheSelectionDown() {
        var state = makeLoadedState()
        XCTAssertEqual(press(.down, .character("j"), in: &state), [[], []])
        XCTAssertEqual(state.selectedPlayer, samplePlayers[2])
    }

    func testUpKeysMoveTheSelectionUp() {
        var state = makeLoadedState()
        _ = press(.down, .down, .down, in: &state)
        XCTAssertEqual(press(.up, .character("k"), in: &state), [[], []])
        XCTAssertEqual(state.selectedPlayer, samplePlayers[1])
    }

    func testSelectionStopsAtTheEndsOfTheTable() {
        var state = makeLoadedState()
        XCTAssertEqual(press(.up, in: &state), [[]])
        XCTAssertEqual(state.selectedPlayer, samplePlayers[0])
        for _ in 0..<20 { _ = press(.down, in: &state) }
        XCTAssertEqual(state.selectedPlayer, samplePlayers[7])
    }

    func testMovingScrollsOnlyWhenTheSelectionLeavesThePane() {
        // 40x12: 4 rows in the players pane.
        var state = makeLoadedState(width: 40, height: 12)
        XCTAssertEqual(state.pageRows, 4)
        var history: [Int] = []
        for _ in 0..<7 {
            _ = press(.down, in: &state)
            history.append(state.scrollTop)
        }
        XCTAssertEqual(history, [0, 0, 0, 1, 2, 3, 4])
        history = []
        for _ in 0..<7 {
            _ = press(.up, in: &state)
            history.append(state.scrollTop)
        }
        XCTAssertEqual(history, [4, 4, 4, 3, 2, 1, 0])
    }

    func testPageKeysMoveByAPageAndKeepTheScreenRow() {
        var state = makeLoadedState(width: 40, height: 12)
        _ = press(.down, in: &state)
        // The whole table is loaded: no other window is needed.
        XCTAssertEqual(press(.pageDown, in: &state), [[]])
        XCTAssertEqual(state.selectedIndex, 5)
        XCTAssertEqual(state.scrollTop, 4)
        XCTAssertEqual(press(.pageDown, in: &state), [[]])
        XCTAssertEqual(state.selectedIndex, 7)
        XCTAssertEqual(state.scrollTop, 4)
        XCTAssertEqual(press(.pageUp, in: &state), [[]])
        XCTAssertEqual(state.selectedIndex, 3)
        XCTAssertEqual(state.scrollTop, 0)
    }

    func testHomeAndEndJumpToTheFirstAndLastPlayers() {
        var state = makeLoadedState(width: 40, height: 12)
        let end = press(.end, in: &state)
        XCTAssertEqual(state.selectedPlayer, samplePlayers[7])
        XCTAssertEqual(state.scrollTop, 4)
        let home = press(.character("g"), in: &state)
        XCTAssertEqual(state.selectedPlayer, samplePlayers[0])
        XCTAssertEqual(state.scrollTop, 0)
        _ = press(.character("G"), in: &state)
        XCTAssertEqual(state.selectedPlayer, samplePlayers[7])
        _ = press(.home, in: &state)
        XCTAssertEqual(state.selectedPlayer, samplePlayers[0])
        XCTAssertEqual(end, [[.observe(WindowRequest(ordering: .byScore, anchor: .last, before: 48, after: 0))]])
        XCTAssertEqual(home, [[.observe(WindowRequest(ordering: .byScore, anchor: .first, before: 0, after: 48))]])
    }

    // MARK: - Writes

    func testInsertKeysInsertARandomPlayer() {
        var state = makeLoadedState()
        let before = state
        XCTAssertEqual(press(.character("n"), .character("+"), in: &state), [[.insertRandomPlayer], [.insertRandomPlayer]])
        // Nothing is applied before the observation delivers: the writes
        // are only pending.
        XCTAssertEqual(state.status.pendingWrites, 2)
        state.status.pendingWrites = 0
        XCTAssertEqual(state, before)
    }

    func testDeleteKeyRemovesSelectedPlayer() {
        var state = makeLoadedState()
        _ = press(.down, in: &state)
        let before = state
        XCTAssertEqual(press(.character("d"), .delete, in: &state), [[.deletePlayer(id: 2)], [.deletePlayer(id: 2)]])
        XCTAssertEqual(state.status.pendingWrites, 2)
        state.status.pendingWrites = 0
        XCTAssertEqual(state, before)
    }

    func testDeleteKeyWithoutSelectionDoesNothing() {
        var state = makeLoadedState([])
        XCTAssertEqual(press(.character("d"), .delete, in: &state), [[], []])
    }

    func testRefreshKeyRefreshes() {
        var state = makeLoadedState()
        XCTAssertEqual(press(.character("r"), in: &state), [[.refresh]])
    }

    // MARK: - Delete all

    func testDeleteAllAsksForConfirmationThenDeletesAll() {
        var state = makeLoadedState()
        XCTAssertEqual(press(.character("D"), in: &state), [[]])
        XCTAssertEqual(state.mode, .confirmingDeleteAll)
        // Other keys wait for an answer.
        XCTAssertEqual(press(.character("d"), .character("q"), .down, in: &state), [[], [], []])
        XCTAssertEqual(state.mode, .confirmingDeleteAll)
        XCTAssertFalse(state.isQuitting)
        XCTAssertEqual(press(.character("y"), in: &state), [[.deleteAll]])
        XCTAssertEqual(state.mode, .browsing)
        XCTAssertEqual(state.selectedPlayer, samplePlayers[0])
    }

    func testDeleteAllCanBeDeclined() {
        for key in [Key.character("n"), .character("N"), .escape] {
            var state = makeLoadedState()
            XCTAssertEqual(press(.character("D"), key, in: &state), [[], []])
            XCTAssertEqual(state.mode, .browsing)
            XCTAssertFalse(state.isQuitting)
        }
        var state = makeLoadedState()
        XCTAssertEqual(press(.character("D"), .character("Y"), in: &state), [[], [.deleteAll]])
    }

    func testDeleteAllOnAnEmptyTableDoesNotAsk() {
        var state = makeLoadedState([])
        XCTAssertEqual(press(.character("D"), in: &state), [[]])
        XCTAssertEqual(state.mode, .browsing)
    }

    // MARK: - Stress test

    func testStressTestShowsProgressAndResult() {
        var state = makeLoadedState()
        XCTAssertEqual(press(.character("s"), in: &state), [[.stressTest]])
        XCTAssertEqual(state.status.stressTest, .running(completed: 0, total: 50))
        // Ignored while it runs.
        XCTAssertEqual(press(.character("s"), in: &state), [[]])
        XCTAssertEqual(hallOfFameUpdate(&state, .stressProgress(completed: 12, total: 50)), [])
        XCTAssertEqual(state.status.stressTest, .running(completed: 12, total: 50))
        XCTAssertTrue(state.isStressTestRunning)
        XCTAssertEqual(hallOfFameUpdate(&state, .stressFinished(total: 50, failed: 1, seconds: 2.5)), [])
        XCTAssertEqual(state.status.stressTest, .finished(total: 50, failed: 1, seconds: 2.5))
        XCTAssertFalse(state.isStressTestRunning)
        // A late progress does not revive it.
        XCTAssertEqual(hallOfFameUpdate(&state, .stressProgress(completed: 50, total: 50)), [])
        XCTAssertEqual(state.status.stressTest, .finished(total: 50, failed: 1, seconds: 2.5))
        XCTAssertEqual(press(.character("s"), in: &state), [[.stressTest]])
        XCTAssertEqual(state.status.stressTest, .running(completed: 0, total: 50))
    }

    // MARK: - Ordering

    func testOrderingKeyTogglesTheOrderingAndReanchorsOnTheSelectedPlayer() {
        var state = makeLoadedState()
        _ = press(.down, .down, in: &state)  // Craig
        XCTAssertEqual(press(.character("o"), in: &state), [[
            .observe(WindowRequest(ordering: .byName, anchor: .player(samplePlayers[2]), before: 57, after: 57)),
        ]])
        XCTAssertEqual(state.ordering, .byName)
        XCTAssertEqual(press(.character("o"), in: &state), [[
            .observe(WindowRequest(ordering: .byScore, anchor: .player(samplePlayers[2]), before: 57, after: 57)),
        ]])
        XCTAssertEqual(state.ordering, .byScore)
    }

    func testOrderingKeyOnAnEmptyTableObservesTheFirstRows() {
        var state = makeLoadedState([])
        XCTAssertEqual(press(.character("o"), in: &state), [[
            .observe(WindowRequest(ordering: .byName, anchor: .first, before: 0, after: 114)),
        ]])
    }

    // MARK: - Help

    func testHelpKeyOpensTheOverlayAndAnyKeyClosesIt() {
        for key in [Key.character("q"), .escape, .character("x"), .enter, .down] {
            var state = makeLoadedState()
            XCTAssertEqual(press(.character("?"), in: &state), [[]])
            XCTAssertEqual(state.mode, .help(scroll: 0))
            XCTAssertEqual(press(key, in: &state), [[]])
            XCTAssertEqual(state.mode, .browsing)
            XCTAssertFalse(state.isQuitting)
            XCTAssertEqual(state.selectedPlayer, samplePlayers[0])
        }
    }

    /// On a screen too short for every key, the moving keys scroll the help.
    func testTheMovingKeysScrollAHelpTooTallForTheScreen() {
        var state = makeLoadedState(width: 80, height: 10)
        _ = press(.character("?"), in: &state)
        _ = press(.down, in: &state)
        XCTAssertEqual(state.mode, .help(scroll: 1))
        _ = press(.end, in: &state)
        let last = HelpPage.lastScroll(rows: keyBindings.count, room: HelpPage.room(rows: keyBindings.count, screenHeight: 10))
        XCTAssertEqual(state.mode, .help(scroll: last))
        XCTAssertTrue(hallOfFameRender(state).text.contains("q, Ctrl-C"))
        _ = press(.character("x"), in: &state)
        XCTAssertEqual(state.mode, .browsing)
        XCTAssertEqual(state.selectedPlayer, samplePlayers[0])
    }

    // MARK: - Quit

    func testQuitKeysQuit() {
        for key in [Key.character("q"), .control("c")] {
            var state = makeLoadedState()
            XCTAssertEqual(press(key, in: &state), [[.quit]])
            XCTAssertTrue(state.isQuitting)
        }
    }

    func testEscDoesNotQuit() {
        var state = makeLoadedState()
        XCTAssertEqual(press(.escape, in: &state), [[]])
        XCTAssertFalse(state.isQuitting)
    }

    func testControlCQuitsFromEveryMode() {
        for opening in [Key.character("?"), .character("e"), .character("D")] {
            var state = makeLoadedState()
            XCTAssertEqual(press(opening, .control("c"), in: &state), [[], [.quit]])
            XCTAssertTrue(state.isQuitting)
        }
    }

    func testControlZSuspendsFromEveryModeAndKeepsIt() {
        for opening in [Key.character("?"), .character("e"), .character("D")] {
            var state = makeLoadedState()
            _ = press(opening, in: &state)
            let opened = state
            XCTAssertEqual(press(.control("z"), in: &state), [[.suspend]], "\(opening)")
            // The overlay, form or question is there on resume.
            XCTAssertEqual(state, opened, "\(opening)")
        }
        var state = makeLoadedState()
        let before = state
        XCTAssertEqual(press(.control("z"), in: &state), [[.suspend]])
        XCTAssertEqual(state, before)
    }

    func testUnboundKeysDoNothing() {
        var state = makeLoadedState()
        let before = state
        XCTAssertEqual(press(.character("x"), .left, .right, .tab, .backspace, .control("a"), in: &state), [[], [], [], [], [], []])
        XCTAssertEqual(state, before)
    }

    // MARK: - Errors and captions

    func testStatusLineSaysWritingUntilEveryWriteHasEnded() {
        var state = makeLoadedState(width: 60, height: 10)
        XCTAssertEqual(press(.character("n"), .character("d"), in: &state), [[.insertRandomPlayer], [.deletePlayer(id: 1)]])
        XCTAssertEqual(state.status.pendingWrites, 2)
        XCTAssertEqual(hallOfFameRender(state).lines[9], "                                                   writing… ")
        _ = hallOfFameUpdate(&state, .writeFinished(.insertRandomPlayer, error: nil))
        XCTAssertTrue(hallOfFameRender(state).lines[9].contains("writing…"))
        _ = hallOfFameUpdate(&state, .writeFinished(.deletePlayer(id: 1), error: nil))
        XCTAssertEqual(state.status.pendingWrites, 0)
        XCTAssertFalse(hallOfFameRender(state).lines[9].contains("writing…"))
    }

    func testStressTestFailuresSayWhy() {
        var state = makeLoadedState(width: 80, height: 24)
        _ = press(.character("s"), in: &state)
        _ = hallOfFameUpdate(&state, .stressFinished(total: 50, failed: 1, seconds: 5.1, firstError: "SQLite error 5: database is locked"))
        XCTAssertEqual(state.status.error, "Stress test refresh failed: SQLite error 5: database is locked")
        XCTAssertTrue(hallOfFameRender(state).lines[23].hasPrefix(" Stress test refresh failed: SQLite error…"), hallOfFameRender(state).lines[23])
    }

    func testKeysDoNotActUnseenWhileTheTerminalIsTooSmall() {
        var state = makeLoadedState()
        _ = hallOfFameUpdate(&state, .resize(width: 20, height: 5))
        let before = state
        XCTAssertEqual(
            press(.character("d"), .character("n"), .character("D"), .character("e"), .enter, .character("?"), .down, .character("o"), in: &state),
            [[], [], [], [], [], [], [], []])
        XCTAssertEqual(state, before)
        // Quitting and suspending still work.
        XCTAssertEqual(press(.control("z"), in: &state), [[.suspend]])
        XCTAssertEqual(press(.character("q"), in: &state), [[.quit]])
    }

    func testWriteFailureIsShownUntilTheNextKey() {
        var state = makeLoadedState()
        XCTAssertEqual(hallOfFameUpdate(&state, .writeFinished(.insertRandomPlayer, error: "database is locked")), [])
        XCTAssertEqual(state.status.error, "Write failed: database is locked")
        _ = press(.down, in: &state)
        XCTAssertNil(state.status.error)
    }

    func testPolledExternalChangesAreShownAndObservationGoesOn() {
        var state = makeLoadedState()
        let request = state.observedRequest
        XCTAssertEqual(hallOfFameUpdate(&state, .externalChangesPolled(note: "polled every 0.1 s: fuse", reason: "FUSE file system (fuse)")), [])
        XCTAssertEqual(state.status.error, "Changes of other processes are polled: FUSE file system (fuse)")
        XCTAssertEqual(state.status.polling, "polled every 0.1 s: fuse")
        XCTAssertEqual(state.observedRequest, request)
        _ = press(.down, in: &state)
        XCTAssertNil(state.status.error)
        XCTAssertEqual(state.status.polling, "polled every 0.1 s: fuse", "the note stays")
    }

    func testObservationFailureIsShownAndRefreshObservesAgain() {
        var state = makeLoadedState()
        let request = state.observedRequest
        XCTAssertEqual(hallOfFameUpdate(&state, .observationFailed("disk I/O error")), [])
        XCTAssertEqual(state.status.error, "Observation failed: disk I/O error")
        XCTAssertNil(state.observedRequest)
        XCTAssertEqual(press(.character("r"), in: &state), [[
            .refresh,
            .observe(WindowRequest(ordering: .byScore, anchor: .player(samplePlayers[0]), before: 57, after: 57)),
        ]])
        XCTAssertNotEqual(state.observedRequest, request)
        XCTAssertEqual(press(.character("r"), in: &state), [[.refresh]])
    }

    func testResizeAfterObservationFailureObservesAgain() {
        var state = makeLoadedState()
        _ = hallOfFameUpdate(&state, .observationFailed("disk I/O error"))
        XCTAssertEqual(hallOfFameUpdate(&state, .resize(width: 80, height: 24)), [
            .observe(WindowRequest(ordering: .byScore, anchor: .player(samplePlayers[0]), before: 57, after: 57)),
        ])
    }
}
