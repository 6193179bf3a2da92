import OpenCombine
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// The app's loop with a host that draws nothing, and a program that
/// records the Hall of Fame values that `update` took.
@MainActor
private final class TestApp: AppHost {
    let loop: AppLoop<RecordingProgram>
    let appDatabase: AppDatabase
    private let taken = TakenValues()

    init(_ appDatabase: AppDatabase, width: Int, height: Int) {
        self.appDatabase = appDatabase
        loop = AppLoop(
            program: RecordingProgram(base: HallOfFameProgram(database: appDatabase), taken: taken),
            state: .initial(width: width, height: height))
        loop.start(host: self)
        loop.send(.resize(width: width, height: height))
    }

    var state: HallOfFameState { loop.state }
    /// The Hall of Fame values that `update` kept, in order.
    var takenValues: [HallOfFame] { taken.values }
    /// Writes sent and not finished yet.
    var pendingWrites: Int { loop.operationsInFlight }

    func press(_ keys: Key...) {
        for key in keys {
            loop.send(.key(key))
        }
    }

    func draw(_ screen: Screen) { }
    func suspend() { XCTFail("unexpected suspend") }
    func quit() { XCTFail("unexpected quit") }
}

private final class TakenValues {
    var values: [HallOfFame] = []
}

/// The Hall of Fame program, which notes each value that `update` takes.
private struct RecordingProgram: AppProgram {
    let base: HallOfFameProgram
    let taken: TakenValues

    func start() -> [AppCommand<HallOfFameMessage, HallOfFameSlot>] { base.start() }

    func update(_ state: inout HallOfFameState, _ message: HallOfFameMessage) -> [HallOfFameEffect] {
        let shown = state.hallOfFame
        let effects = base.update(&state, message)
        if case .observationFailed = message {
            XCTFail("the observation ended: \(message)")
        }
        if case .writeFinished(_, error: .some) = message {
            XCTFail("write failed: \(message)")
        }
        if case .hallOfFame = message, let value = state.hallOfFame, value != shown {
            taken.values.append(value)
        }
        return effects
    }

    func render(_ state: HallOfFameState) -> Screen { base.render(state) }

    func command(for effect: HallOfFameEffect) -> AppCommand<HallOfFameMessage, HallOfFameSlot> {
        switch effect {
        case .observe, .refresh, .updatePlayer, .highlightTimer, .findDeletedPlayers:
            // Change highlighting: refreshes move players out of the window.
            return base.command(for: effect)
        default:
            XCTFail("unexpected effect \(effect)")
            return base.command(for: effect)
        }
    }
}

/// On a table larger than the observed window, the selection stays on its
/// player whatever its new score, and keeps its screen row.
final class SelectionFollowsPlayerTests: XCTestCase {
    func testRefreshesAndEditsKeepTheSelectionOnItsPlayer() throws {
        // XCTest runs tests on the main thread.
        try MainActor.assumeIsolated { try refreshesAndEditsKeepTheSelectionOnItsPlayer() }
    }

    @MainActor
    private func refreshesAndEditsKeepTheSelectionOnItsPlayer() throws {
        try forEachDatabaseKind(seed: 3) { appDatabase, kind in
            try appDatabase.writer.write { db in try appDatabase.insertRandomPlayers(db, count: 300) }
            // 40x12: 4 rows per page; the first window holds 48 players.
            let loop = TestApp(appDatabase, width: 40, height: 12)
            waitUntil("the first value, \(kind)") { loop.state.hallOfFame != nil }
            XCTAssertEqual(loop.state.hallOfFame?.players.count, 48, "\(kind)")
            for _ in 0..<10 {
                loop.press(.down)
            }
            let id = try XCTUnwrap(loop.state.selectedPlayer?.id)
            XCTAssertEqual(loop.state.selectedIndex.map { $0 - loop.state.scrollTop }, 3, "\(kind)")

            /// Waits until the writes end and the screen shows the selected
            /// player as the database holds it; checks its screen row.
            @MainActor func assertSelectionFollows(_ step: String, line: UInt = #line) throws -> Int {
                waitUntil("\(step) written, \(kind)", line: line) { loop.pendingWrites == 0 }
                let (player, rank) = try appDatabase.writer.read { db -> (Player?, Int) in
                    let player = try Player.fetchOne(db, key: id)
                    let sorted = try Player.order(
                        Player.Columns.score.desc, Player.Columns.name, Player.Columns.id).fetchAll(db)
                    return (player, sorted.firstIndex { $0.id == id } ?? -1)
                }
                let current = try XCTUnwrap(player, "the seeded refreshes do not delete the player, \(kind)", line: line)
                waitUntil("\(step) shown, \(kind)", line: line) {
                    loop.state.selectedPlayer == current && loop.state.hallOfFame?.players.contains(current) == true
                }
                let state = loop.state
                let index = try XCTUnwrap(state.selectedIndex, line: line)
                XCTAssertEqual(state.hallOfFame!.firstRank + index, rank, "\(step), \(kind)", line: line)
                // The selected row stays on the fourth row of the pane,
                // unless the player is among the first three.
                XCTAssertEqual(index - state.scrollTop, min(3, rank), "\(step), \(kind)", line: line)
                return rank
            }

            var ranks: [Int] = []
            for refresh in 1...4 {
                loop.press(.character("r"))
                ranks.append(try assertSelectionFollows("refresh \(refresh)"))
            }
            // An edit of the score sends the player to the end of the table.
            loop.press(.character("e"), .tab, .control("u"))
            for character in "-1000" {
                loop.press(.character(character))
            }
            loop.press(.enter)
            ranks.append(try assertSelectionFollows("edit"))
            XCTAssertEqual(ranks.last, try appDatabase.writer.read(AppDatabase.playerCount) - 1, "\(kind)")

            // The player left the first window more than once: the test
            // covers moves out of the observed window.
            XCTAssertGreaterThan(ranks.filter { $0 >= 48 }.count, 1, "\(ranks), \(kind)")
            // Every value the app took holds the selected player.
            XCTAssertTrue(loop.takenValues.allSatisfy { $0.players.contains { $0.id == id } }, "\(kind)")
        }
    }
}
