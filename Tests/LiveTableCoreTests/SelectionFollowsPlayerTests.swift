import OpenCombine
import XCTest
@testable import LiveTableCore

/// The app's loop without a terminal: `update`'s effects run against a real
/// database, and the observation's values come back to `update` on the main
/// queue, as the runtime does.
private final class AppLoop {
    private(set) var state: AppState
    let appDatabase: AppDatabase
    /// The Hall of Fame values that `update` kept, in order.
    private(set) var takenValues: [HallOfFame] = []
    private var observation: AnyCancellable?
    private var writes: [AnyCancellable] = []
    /// Writes sent and not finished yet.
    private(set) var pendingWrites = 0

    init(_ appDatabase: AppDatabase, width: Int, height: Int) {
        self.appDatabase = appDatabase
        state = AppState.initial(width: width, height: height)
        send(.resize(width: width, height: height))
    }

    func send(_ message: Message) {
        let shown = state.hallOfFame
        let effects = update(&state, message)
        if case .hallOfFame = message, let value = state.hallOfFame, value != shown {
            takenValues.append(value)
        }
        for effect in effects {
            perform(effect)
        }
    }

    func press(_ keys: Key...) {
        for key in keys {
            send(.key(key))
        }
    }

    private func perform(_ effect: Effect) {
        switch effect {
        case let .observe(request):
            observation = appDatabase.observeHallOfFame(request).sink(
                receiveCompletion: { completion in
                    XCTFail("the observation ended: \(completion)")
                },
                receiveValue: { [unowned self] value in
                    send(.hallOfFame(value))
                })
        case .refresh:
            write(appDatabase.refresh())
        case let .updatePlayer(player):
            write(appDatabase.updatePlayer(player))
        default:
            XCTFail("unexpected effect \(effect)")
        }
    }

    private func write<P: Publisher>(_ publisher: P) {
        pendingWrites += 1
        writes.append(publisher.sink(
            receiveCompletion: { [unowned self] completion in
                pendingWrites -= 1
                if case let .failure(error) = completion {
                    XCTFail("write failed: \(error)")
                }
            },
            receiveValue: { _ in }))
    }
}

/// On a table larger than the observed window, the selection stays on its
/// player whatever its new score, and keeps its screen row.
final class SelectionFollowsPlayerTests: XCTestCase {
    func testRefreshesAndEditsKeepTheSelectionOnItsPlayer() throws {
        try forEachDatabaseKind(seed: 3) { appDatabase, kind in
            try appDatabase.writer.write { db in try appDatabase.insertRandomPlayers(db, count: 300) }
            // 40x12: 4 rows per page; the first window holds 48 players.
            let loop = AppLoop(appDatabase, width: 40, height: 12)
            waitUntil("the first value, \(kind)") { loop.state.hallOfFame != nil }
            XCTAssertEqual(loop.state.hallOfFame?.players.count, 48, "\(kind)")
            for _ in 0..<10 {
                loop.press(.down)
            }
            let id = try XCTUnwrap(loop.state.selectedPlayer?.id)
            XCTAssertEqual(loop.state.selectedIndex.map { $0 - loop.state.scrollTop }, 3, "\(kind)")

            /// Waits until the writes end and the screen shows the selected
            /// player as the database holds it; checks its screen row.
            func assertSelectionFollows(_ step: String, line: UInt = #line) throws -> Int {
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
