import XCTest
@testable import LiveTableCore

final class DemoScriptTests: XCTestCase {
    func testStepsFollowTheWalkthrough() {
        XCTAssertEqual(DemoScript.steps.map(\.caption), [
            "Refresh (r): an empty table gets 8 random players",
            "Insert a random player (n)",
            "Move down (j) and edit the player (e): type a name and a score, Enter saves",
            "Toggle the ordering (o): by name",
            "Refresh (r): new random scores, maybe a player more or less",
            "Delete the selected player (d)",
            "Stress test (s): 50 concurrent refreshes",
            "Delete all players (D), and confirm (y)",
        ])
        for step in DemoScript.steps {
            XCTAssertFalse(step.messages.isEmpty, step.caption)
            XCTAssertTrue(step.messages.allSatisfy { if case .key = $0 { return true } else { return false } })
        }
    }

    func testTableWithPlayersSkipsThePopulateStepAndAsksFirst() {
        XCTAssertEqual(DemoScript.steps(playerCount: 0), DemoScript.steps)
        XCTAssertNil(DemoScript.confirmation(path: "a.sqlite", playerCount: 0))
        for count in [1, 2, 1_000_000] {
            XCTAssertEqual(DemoScript.steps(playerCount: count), Array(DemoScript.steps.dropFirst()))
        }
        XCTAssertEqual(DemoScript.steps(playerCount: 5).first?.caption, "Insert a random player (n)")
        XCTAssertEqual(
            DemoScript.confirmation(path: "a.sqlite", playerCount: 1),
            "a.sqlite holds 1 player: the demo changes it, then deletes it. Play it? [y/N]")
        XCTAssertEqual(
            DemoScript.confirmation(path: "/tmp/b c.sqlite", playerCount: 12),
            "/tmp/b c.sqlite holds 12 players: the demo changes them, then deletes them all. Play it? [y/N]")
    }

    func testFirstStepPopulatesAnEmptyTable() {
        var state = makeLoadedState([])
        let effects = DemoScript.steps[0].messages.flatMap { hallOfFameUpdate(&state, $0) }
        XCTAssertEqual(effects, [.refresh])
    }

    func testStepsPerformTheirEffectsWithTheirCaptionShown() throws {
        // As the demo plays them: under the captions of `CaptionedProgram`.
        let database = try AppDatabase.inMemory()
        let program = MainActor.assumeIsolated { CaptionedProgram(HallOfFameProgram(database: database)) }
        func render(_ state: Captioned<HallOfFameState>) -> [String] {
            MainActor.assumeIsolated { program.render(state).lines }
        }
        var state = Captioned(makeLoadedState(width: 80, height: 24))
        var history: [[HallOfFameEffect]] = []
        for step in DemoScript.steps {
            XCTAssertEqual(MainActor.assumeIsolated { program.update(&state, .caption(step.caption)) }, [])
            XCTAssertEqual(render(state)[23].dropFirst().prefix(step.caption.count), Substring(step.caption))
            let effects = step.messages.flatMap { message in
                MainActor.assumeIsolated { program.update(&state, .base(message)) }
            }
            history.append(effects)
            // As the runtime does: each write ends, and says so.
            for effect in effects where effect.isWrite {
                _ = hallOfFameUpdate(&state.base, .writeFinished(effect, error: nil))
            }
            XCTAssertEqual(state.caption, step.caption)
        }
        XCTAssertEqual(MainActor.assumeIsolated { program.update(&state, .caption(nil)) }, [])
        XCTAssertNil(state.caption)
        XCTAssertEqual(render(state), hallOfFameRender(state.base).lines)

        let barbara = samplePlayers[1]
        XCTAssertEqual(history, [
            [.refresh],
            [.insertRandomPlayer],
            [.updatePlayer(Player(id: barbara.id, name: DemoScript.editedName, score: DemoScript.editedScore))],
            [.observe(WindowRequest(ordering: .byName, anchor: .player(barbara), before: 57, after: 57))],
            [.refresh],
            [.deletePlayer(id: barbara.id!)],
            [.stressTest],
            [.deleteAll],
        ])
        XCTAssertEqual(state.base.mode, .browsing)
        XCTAssertFalse(state.base.isQuitting)
    }
}
