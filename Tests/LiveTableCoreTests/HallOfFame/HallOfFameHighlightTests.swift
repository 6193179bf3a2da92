import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// Change highlighting on the Hall of Fame: what `update` highlights, the
/// one timer that fades it, and how `render` draws it.
final class HallOfFameHighlightTests: XCTestCase {
    private let strong = ChangeHighlighter<Int64>.strongDuration
    private let fade = ChangeHighlighter<Int64>.fadeDuration

    /// Delivers a value of the observed window at `now`, and returns the
    /// effects.
    @discardableResult
    private func deliver(
        _ players: [Player], to state: inout HallOfFameState, at now: ContinuousClock.Instant) -> [HallOfFameEffect]
    {
        hallOfFameUpdate(&state, .hallOfFame(makeHallOfFame(players, request: state.observedRequest!), now: now))
    }

    /// The styles of the cells of `text`, where it first shows on the
    /// screen.
    private func styles(of text: String, in screen: Screen, file: StaticString = #filePath, line: UInt = #line) -> [CellStyle] {
        for y in 0..<screen.height {
            let cells = (0..<screen.width).map { screen[$0, y] }
            let characters = cells.map(\.text)
            let target = text.map(String.init)
            guard target.count <= characters.count else { continue }
            for x in 0...(characters.count - target.count) where Array(characters[x..<x + target.count]) == target {
                return cells[x..<x + target.count].map(\.style)
            }
        }
        XCTFail("\(text) is not on the screen:\n\(screen.text)", file: file, line: line)
        return []
    }

    /// The style of all `styles`, or nil when they differ.
    private func uniform(_ styles: [CellStyle]) -> CellStyle? {
        guard let first = styles.first, styles.allSatisfy({ $0 == first }) else { return nil }
        return first
    }

    /// Sample players, with Craig's score changed to `score`.
    private func craigScores(_ score: Int) -> [Player] {
        var players = samplePlayers
        players[2].score = Score(score)
        return players.sorted { $0.score > $1.score }
    }

    // MARK: - What is highlighted

    func testChangedScoreIsHighlightedNotTheRowsItMovedPast() {
        var state = makeLoadedState()
        let now = ContinuousClock.now
        // Craig's new score moves him from third to first: Arthur and
        // Barbara move down a row, and are not changed.
        let effects = deliver(craigScores(2000), to: &state, at: now)
        XCTAssertEqual(effects, [.highlightTimer(at: now + strong)])
        let highlighter = state.highlighter
        XCTAssertEqual(highlighter.highlight(row: 3, cell: HallOfFame.scoreCell), CellHighlight(kind: .changed, level: .strong))
        XCTAssertNil(highlighter.highlight(row: 3, cell: HallOfFame.nameCell))
        XCTAssertNil(highlighter.rowHighlight(row: 3))
        for id: Int64 in [1, 2, 4, 5, 6, 7, 8] {
            XCTAssertNil(highlighter.highlight(row: id, cell: HallOfFame.nameCell), "\(id)")
            XCTAssertNil(highlighter.highlight(row: id, cell: HallOfFame.scoreCell), "\(id)")
        }

        let screen = hallOfFameRender(state)
        let changed = CellStyle(color: .changed, bold: true, reverse: true)
        XCTAssertEqual(styles(of: "2000", in: screen), Array(repeating: changed, count: 4))
        XCTAssertEqual(uniform(styles(of: "Craig", in: screen)), CellStyle.plain)
        XCTAssertEqual(uniform(styles(of: "1100", in: screen)), CellStyle.plain)
        // Arthur stays selected, unchanged.
        XCTAssertEqual(uniform(styles(of: "1200", in: screen)), CellStyle(color: .selection, bold: true, reverse: true))
    }

    func testNewPlayerIsABandAndCountsInTheTitleUntilTheNextKey() throws {
        var state = makeLoadedState()
        let now = ContinuousClock.now
        let players = (samplePlayers + [makePlayer(9, "Ivan", 700)]).sorted { $0.score > $1.score }
        deliver(players, to: &state, at: now)
        let added = CellHighlight(kind: .added, level: .strong)
        XCTAssertEqual(state.highlighter.rowHighlight(row: 9), added)
        XCTAssertEqual(state.highlighter.highlight(row: 9, cell: HallOfFame.nameCell), added)

        var screen = hallOfFameRender(state)
        XCTAssertTrue(screen.lines[0].hasPrefix(" Hall of Fame — by score  +1 "), screen.lines[0])
        // The whole row, from border to border.
        let row = try XCTUnwrap(screen.lines.firstIndex { $0.contains("Ivan") })
        let band = (1..<59).map { screen[$0, row].style }
        XCTAssertEqual(uniform(band), CellStyle.plain.highlighted(added))

        _ = press(.character("j"), in: &state)
        screen = hallOfFameRender(state)
        XCTAssertFalse(screen.lines[0].contains("+1"), screen.lines[0])
    }

    func testDeletingMorePlayersThanTheWindowShowsCountsThemAll() {
        // 5,008 players, of which the window shows 8: Delete all deletes them all.
        var state = makeLoadedState { $0.playerCount = 5_008 }
        let effects = hallOfFameUpdate(
            &state, .hallOfFame(makeHallOfFame([], request: state.observedRequest!, playerCount: 0), now: .now))
        XCTAssertEqual(effects, [.findDeletedPlayers(samplePlayers.compactMap(\.id))])
        _ = hallOfFameUpdate(&state, .deletedPlayersFound(samplePlayers.compactMap(\.id)))
        let status = hallOfFameRender(state).lines[23]
        XCTAssertTrue(status.hasPrefix(" 5,008 players deleted "), status)
    }

    func testTheHelpSaysThatRefreshingInsertsAndDeletesPlayers() {
        let refresh = keyBindings.first { $0.actions.values.contains(.refresh) }?.description ?? ""
        XCTAssertTrue(refresh.contains("add") && refresh.contains("delete"), refresh)
        let stress = keyBindings.first { $0.actions.values.contains(.stressTest) }?.description ?? ""
        XCTAssertTrue(stress.contains("refreshes"), stress)
    }

    func testDeletedPlayersAreLookedUpThenNotedInTheStatusLine() {
        var state = makeLoadedState()
        let now = ContinuousClock.now
        let remaining = samplePlayers.filter { $0.id != 4 && $0.id != 6 }
        let effects = deliver(remaining, to: &state, at: now)
        // David and Frida left from within the window: deleted, or moved
        // out by a new score. The database tells.
        XCTAssertEqual(effects, [.findDeletedPlayers([4, 6])])
        XCTAssertEqual(hallOfFameUpdate(&state, .deletedPlayersFound([4, 6])), [])
        var screen = hallOfFameRender(state)
        XCTAssertEqual(screen.lines[23], " 2 players deleted" + String(repeating: " ", count: 62))
        XCTAssertTrue(screen.lines[0].hasPrefix(" Hall of Fame — by score  \u{2212}2 "), screen.lines[0])

        // The next key is a new look.
        _ = press(.character("j"), in: &state)
        screen = hallOfFameRender(state)
        XCTAssertFalse(screen.lines[23].contains("deleted"), screen.lines[23])
        XCTAssertFalse(screen.lines[0].contains("\u{2212}2"), screen.lines[0])
    }

    func testDeletionOfTheSelectedPlayerIsLookedUp() {
        var state = makeLoadedState()
        let request = state.observedRequest!
        // Arthur, selected, is deleted: the value is set aside, the window
        // anchored on him, and he is looked up.
        let effects = deliver(Array(samplePlayers.dropFirst()), to: &state, at: .now)
        XCTAssertEqual(effects, [
            .observe(WindowRequest(ordering: .byScore, anchor: .player(samplePlayers[0]), before: 57, after: 57)),
            .findDeletedPlayers([1]),
        ])
        XCTAssertNotEqual(state.observedRequest, request)
        _ = hallOfFameUpdate(&state, .deletedPlayersFound([1]))
        XCTAssertEqual(hallOfFameRender(state).lines[23], " 1 player deleted" + String(repeating: " ", count: 63))
    }

    func testFailedDeletionLookupIsAnError() {
        var state = makeLoadedState()
        _ = hallOfFameUpdate(&state, .deletedPlayersFound([], error: "disk I/O error"))
        XCTAssertEqual(state.status.error, "Deleted players unknown: disk I/O error")
        XCTAssertEqual(state.highlighter.deletionsSinceLastLook, 0)
    }

    func testOwnNavigationHighlightsNothing() {
        // 40x12: 4 rows per page, a window of 48 rows out of 100.
        var state = makeLoadedState(makePlayers(100), width: 40, height: 12) { value in
            value.players = Array(value.players.prefix(48))
            value.playerCount = 100
            value.reachesEnd = false
        }
        let now = ContinuousClock.now
        // End: the last rows, which are all new in the window.
        let effects = press(.end, in: &state)[0]
        guard case let .observe(request) = effects.first else { return XCTFail("\(effects)") }
        XCTAssertEqual(effects, [.observe(request)])
        let lastRows = makeHallOfFame(
            Array(makePlayers(100).suffix(48)), request: request, playerCount: 100,
            firstRank: 52, reachesStart: false)
        XCTAssertEqual(hallOfFameUpdate(&state, .hallOfFame(lastRows, now: now)), [])
        XCTAssertFalse(state.highlighter.isHighlighting)

        // The other ordering: the same players, by name.
        let byName = press(.character("o"), in: &state)[0]
        guard case let .observe(nameRequest) = byName.first else { return XCTFail("\(byName)") }
        let players = makePlayers(100).sorted { $0.name < $1.name }
        let around = makeHallOfFame(
            Array(players.suffix(30)), request: nameRequest, playerCount: 100, firstRank: 70, reachesStart: false)
        XCTAssertEqual(hallOfFameUpdate(&state, .hallOfFame(around, now: now + .milliseconds(10))), [])
        XCTAssertFalse(state.highlighter.isHighlighting)
        XCTAssertFalse(hallOfFameRender(state).lines[0].contains("+"), hallOfFameRender(state).lines[0])
    }

    // MARK: - Fading and the timer

    func testHighlightFadesByTheTimerWhichStopsWithIt() {
        var state = makeLoadedState()
        let now = ContinuousClock.now
        XCTAssertEqual(deliver(craigScores(2000), to: &state, at: now), [.highlightTimer(at: now + strong)])
        XCTAssertEqual(state.highlightTimer, now + strong)

        // Another change before the deadline: the running timer is kept.
        XCTAssertEqual(deliver(craigScores(2000).map { player in
            var player = player
            if player.id == 8 { player.score = 16 }
            return player
        }, to: &state, at: now + .milliseconds(100)), [])

        // Strong, then faint (underlined), then gone.
        let changedStrong = CellStyle(color: .changed, bold: true, reverse: true)
        let changedFaint = CellStyle(color: .changed, bold: true, underline: true)
        XCTAssertEqual(uniform(styles(of: "2000", in: hallOfFameRender(state))), changedStrong)

        // A timer that fires a little early is set again for the same time.
        XCTAssertEqual(hallOfFameUpdate(&state, .highlightTick(now + .milliseconds(590))), [.highlightTimer(at: now + strong)])
        XCTAssertEqual(uniform(styles(of: "2000", in: hallOfFameRender(state))), changedStrong)

        XCTAssertEqual(hallOfFameUpdate(&state, .highlightTick(now + strong)), [.highlightTimer(at: now + .milliseconds(700))])
        XCTAssertEqual(uniform(styles(of: "2000", in: hallOfFameRender(state))), changedFaint)
        XCTAssertEqual(uniform(styles(of: "16", in: hallOfFameRender(state))), changedStrong)

        XCTAssertEqual(hallOfFameUpdate(&state, .highlightTick(now + .milliseconds(700))), [.highlightTimer(at: now + fade)])
        XCTAssertEqual(hallOfFameUpdate(&state, .highlightTick(now + fade)), [.highlightTimer(at: now + .milliseconds(2100))])
        XCTAssertEqual(uniform(styles(of: "2000", in: hallOfFameRender(state))), CellStyle.plain)
        XCTAssertEqual(uniform(styles(of: "16", in: hallOfFameRender(state))), CellStyle(color: .changed, bold: true, underline: true))

        // The last fade: no timer any longer, and none is asked for.
        XCTAssertEqual(hallOfFameUpdate(&state, .highlightTick(now + .milliseconds(2100))), [])
        XCTAssertNil(state.highlightTimer)
        XCTAssertNil(state.highlighter.nextDeadline)
        XCTAssertEqual(uniform(styles(of: "16", in: hallOfFameRender(state))), CellStyle.plain)
        XCTAssertEqual(press(.character("j"), in: &state), [[]])
    }

    func testMonochromeHighlightIsReverseThenBoldUnderline() {
        var state = makeLoadedState()
        state.useColor = false
        let now = ContinuousClock.now
        deliver(craigScores(2000), to: &state, at: now)
        XCTAssertEqual(uniform(styles(of: "2000", in: hallOfFameRender(state))), CellStyle(bold: true, reverse: true))
        _ = hallOfFameUpdate(&state, .highlightTick(now + strong))
        XCTAssertEqual(uniform(styles(of: "2000", in: hallOfFameRender(state))), CellStyle(bold: true, underline: true))
        _ = hallOfFameUpdate(&state, .highlightTick(now + fade))
        XCTAssertEqual(uniform(styles(of: "2000", in: hallOfFameRender(state))), CellStyle.plain)
    }

    // MARK: - The key

    func testHighlightKeyTurnsItOffAndOn() {
        var state = makeLoadedState()
        let now = ContinuousClock.now
        deliver(craigScores(2000), to: &state, at: now)
        XCTAssertNotNil(state.highlighter.highlight(row: 3, cell: HallOfFame.scoreCell))

        // Off: the highlight goes, and its timer with it.
        XCTAssertEqual(press(.character("H"), in: &state), [[.highlightTimer(at: nil)]])
        XCTAssertNil(state.highlighter.highlight(row: 3, cell: HallOfFame.scoreCell))
        XCTAssertEqual(uniform(styles(of: "2000", in: hallOfFameRender(state))), CellStyle.plain)
        // Changes meanwhile are not highlighted, nor counted.
        XCTAssertEqual(deliver(craigScores(3000) + [makePlayer(9, "Ivan", 1)], to: &state, at: now + .milliseconds(100)), [])
        XCTAssertEqual(uniform(styles(of: "3000", in: hallOfFameRender(state))), CellStyle.plain)
        XCTAssertFalse(hallOfFameRender(state).lines[0].contains("+1"))

        // On again: the next change is.
        XCTAssertEqual(press(.character("H"), in: &state), [[]])
        XCTAssertEqual(
            deliver(craigScores(4000) + [makePlayer(9, "Ivan", 1)], to: &state, at: now + .milliseconds(200)),
            [.highlightTimer(at: now + .milliseconds(200) + strong)])
        XCTAssertEqual(uniform(styles(of: "4000", in: hallOfFameRender(state))), CellStyle(color: .changed, bold: true, reverse: true))
    }

    // MARK: - On the app loop

    func testTheLoopHighlightsAChangeFadesItAndNotesADeletion() throws {
        try MainActor.assumeIsolated {
            try forEachDatabaseKind(seed: 1) { appDatabase, kind in
                try appDatabase.createRandomPlayersIfEmpty()
                let host = ScreenHost()
                let loop = AppLoop(program: HallOfFameProgram(database: appDatabase), state: .initial(width: 80, height: 24))
                loop.start(host: host)
                loop.send(.resize(width: 80, height: 24))
                defer { withExtendedLifetime(host) { loop.stop() } }
                waitUntil("the first value, \(kind)") { loop.state.hallOfFame != nil }
                let players = try XCTUnwrap(loop.state.hallOfFame?.players)

                // Another connection's write: a new score for the last
                // player, the highest, and a deletion.
                let changed = try XCTUnwrap(players.last?.id)
                let deleted = try XCTUnwrap(players[1].id)
                try appDatabase.writer.write { db in
                    try db.execute(sql: "UPDATE player SET score = 1000000 WHERE id = ?", arguments: [changed])
                    try db.execute(sql: "DELETE FROM player WHERE id = ?", arguments: [deleted])
                }
                waitUntil("the new score highlighted, \(kind)") {
                    loop.state.highlighter.highlight(row: changed, cell: HallOfFame.scoreCell) != nil
                }
                XCTAssertNotNil(loop.state.highlightTimer, "\(kind)")
                waitUntil("the deletion noted, \(kind)") { loop.state.highlighter.deletionsSinceLastLook == 1 }
                XCTAssertEqual(host.screen?.lines[23].hasPrefix(" 1 player deleted"), true, "\(kind)")

                // The timer fades it, and runs no longer.
                waitUntil("the highlight faded, \(kind)", timeout: 10) { !loop.state.highlighter.isHighlighting }
                XCTAssertNil(loop.state.highlightTimer, "\(kind)")
                XCTAssertNil(loop.state.highlighter.highlight(row: changed, cell: HallOfFame.scoreCell), "\(kind)")
            }
        }
    }
}

/// A host that keeps the last screen.
@MainActor
private final class ScreenHost: AppHost {
    var screen: Screen?
    func draw(_ screen: Screen) { self.screen = screen }
    func suspend() { XCTFail("unexpected suspend") }
    func quit() { XCTFail("unexpected quit") }
}
