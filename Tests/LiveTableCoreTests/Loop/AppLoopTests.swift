import GRDB
import OpenCombine
import OpenCombineDispatch
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// The app loop: one draw per burst of messages, the latest value of an
/// observation rather than a backlog, effects performed against the
/// database, write errors back as messages, suspend and quit handed to the
/// host. XCTest runs the tests on the main thread, where the loop runs.
final class AppLoopTests: XCTestCase {
    // MARK: - Bursts

    func testMessagesSentTogetherAreDrawnOnce() {
        MainActor.assumeIsolated {
            let (loop, host) = makeProbe()
            loop.send(contentsOf: [.note("a"), .note("b"), .note("c")])
            XCTAssertEqual(loop.state, [.note("a"), .note("b"), .note("c")])
            XCTAssertEqual(host.draws, 1)
            loop.send(.note("d"))
            XCTAssertEqual(host.draws, 2)
        }
    }

    func testSubscriptionMessagesThatLeaveTheScreenEqualDrawNothing() {
        MainActor.assumeIsolated {
            let subject = PassthroughSubject<Int, Never>()
            let host = RecordingHost()
            let loop = AppLoop(program: LatestValueProgram(values: subject.eraseToAnyPublisher()), state: 0)
            loop.start(host: host)
            addTeardownBlock { withExtendedLifetime(host) { } }
            subject.send(1)
            waitUntil("the first value") { host.draws == 1 }
            // The same value again (a commit to another table): no draw.
            subject.send(1)
            spinMainRunLoop()
            XCTAssertEqual(host.draws, 1)
            subject.send(2)
            waitUntil("a new value") { host.draws == 2 }
            // The host's messages (a resize after a stop) always draw.
            loop.send(2)
            XCTAssertEqual(host.draws, 3)
        }
    }

    func testMessagesOfAnEffectThatDeliversAtOnceJoinTheBurst() {
        MainActor.assumeIsolated {
            let (loop, host) = makeProbe()
            let operations = loop.operationsInFlight
            loop.send(.perform(["x", "y"]))
            XCTAssertEqual(loop.state, [.perform(["x", "y"]), .note("x"), .note("y")])
            XCTAssertEqual(host.draws, 1)
            XCTAssertEqual(loop.operationsInFlight, operations, "a completed operation is not kept")
        }
    }

    func testValuesDeliveredTogetherAreOneBurstOfTheLatestValue() {
        MainActor.assumeIsolated {
            let (loop, host) = makeProbe()
            let subject = PassthroughSubject<ProbeMessage, Never>()
            loop.program.subjects.list.append(subject)
            loop.send(.observe(0))
            XCTAssertEqual(host.draws, 1)

            // Three values delivered before the main queue runs the loop
            // again, and a write's message in between: the write's message
            // is handled, and the latest value only, in one draw.
            subject.send(.value(1))
            subject.send(.value(2))
            loop.program.pendingNotes.send(.note("written"))
            subject.send(.value(3))
            XCTAssertEqual(host.draws, 1, "nothing handled before the main queue runs the loop")
            waitUntil("the burst") { host.draws == 2 }
            XCTAssertEqual(loop.state, [.observe(0), .note("written"), .value(3)])
            spinMainRunLoop()
            XCTAssertEqual(host.draws, 2, "one draw for the burst")
        }
    }

    func testMessagesWaitingBeforeAKeyAreHandledFirst() {
        MainActor.assumeIsolated {
            let (loop, host) = makeProbe()
            let subject = PassthroughSubject<ProbeMessage, Never>()
            loop.program.subjects.list.append(subject)
            loop.send(.observe(0))
            subject.send(.value(1))
            loop.send(.note("key"))
            XCTAssertEqual(loop.state, [.observe(0), .value(1), .note("key")])
            XCTAssertEqual(host.draws, 2)
            spinMainRunLoop()
            XCTAssertEqual(host.draws, 2, "nothing left for the scheduled turn")
        }
    }

    func testAReplacedObservationDeliversNothing() {
        MainActor.assumeIsolated {
            let (loop, _) = makeProbe()
            let first = PassthroughSubject<ProbeMessage, Never>()
            let second = PassthroughSubject<ProbeMessage, Never>()
            loop.program.subjects.list += [first, second]
            loop.send(.observe(0))
            // The second observation replaces the first one in the burst
            // where the first one's value waits: the value is dropped.
            loop.program.pendingNotes.send(.observe(1))
            first.send(.value(1))
            waitUntil("the replacement") { loop.state.last == .observe(1) }
            first.send(.value(2))
            second.send(.value(10))
            waitUntil("the second observation's value") { loop.state.last == .value(10) }
            XCTAssertEqual(loop.state, [.observe(0), .observe(1), .value(10)])
        }
    }

    func testObservationsInTwoSlotsRunSideBySide() {
        MainActor.assumeIsolated {
            let (loop, _) = makeProbe()
            let values = PassthroughSubject<ProbeMessage, Never>()
            let others = PassthroughSubject<ProbeMessage, Never>()
            let replacement = PassthroughSubject<ProbeMessage, Never>()
            loop.program.subjects.list += [values, others, replacement]
            loop.send(.observe(0))
            loop.send(.observe(1, in: .others))
            // Each slot keeps its latest value: neither replaces the other.
            values.send(.value(1))
            others.send(.value(10))
            waitUntil("both values") { loop.state.count == 4 }
            XCTAssertEqual(loop.state, [.observe(0), .observe(1, in: .others), .value(1), .value(10)])
            // A new observation in one slot replaces that slot's only.
            loop.send(.observe(2))
            values.send(.value(2))
            others.send(.value(11))
            waitUntil("the other slot's value") { loop.state.last == .value(11) }
            XCTAssertEqual(loop.state.suffix(2), [.observe(2), .value(11)])
        }
    }

    // MARK: - Host

    func testSuspendAndQuitReachTheHost() {
        MainActor.assumeIsolated {
            let (loop, host) = makeProbe()
            let subject = PassthroughSubject<ProbeMessage, Never>()
            loop.program.subjects.list.append(subject)
            loop.send(.observe(0))
            loop.send(.suspend)
            XCTAssertEqual(host.events, ["draw", "suspend", "draw"])

            loop.send(.quit)
            XCTAssertEqual(host.events, ["draw", "suspend", "draw", "quit"], "no draw once quit")
            XCTAssertTrue(host.wasStoppedAtQuit, "the loop stops before the host quits")
            // A stopped loop handles nothing, and its subscriptions are
            // cancelled.
            subject.send(.value(1))
            loop.send(.note("late"))
            spinMainRunLoop()
            XCTAssertEqual(loop.state, [.observe(0), .suspend, .quit])
            XCTAssertEqual(host.events.count, 4)
        }
    }

    func testActionRunsOnceTheStateMeetsItsCondition() {
        MainActor.assumeIsolated {
            let (loop, _) = makeProbe()
            var runs: [Int] = []
            loop.when({ $0.count >= 2 }) { runs.append(loop.state.count) }
            XCTAssertEqual(runs, [])
            loop.send(.note("a"))
            XCTAssertEqual(runs, [])
            loop.send(.note("b"))
            XCTAssertEqual(runs, [2])
            loop.send(.note("c"))
            XCTAssertEqual(runs, [2], "once")
            loop.when({ $0.count >= 2 }) { runs.append(-1) }
            XCTAssertEqual(runs, [2, -1], "at once when the condition holds")
        }
    }

    // MARK: - The Hall of Fame

    func testKeyEffectsRunAgainstTheDatabase() throws {
        try MainActor.assumeIsolated {
            let appDatabase = try AppDatabase.inMemory(seed: 1)
            try appDatabase.createRandomPlayersIfEmpty()
            let (loop, host) = makeHallOfFame(appDatabase)
            waitUntil("the first value") { loop.state.hallOfFame?.playerCount == 8 }

            loop.send(.key(.character("n")))
            XCTAssertEqual(loop.operationsInFlight, 1, "the insert runs")
            waitUntil("the inserted player") { loop.state.hallOfFame?.playerCount == 9 }
            XCTAssertEqual(try appDatabase.writer.read(AppDatabase.playerCount), 9)
            waitUntil("the end of the insert") { loop.operationsInFlight == 0 }

            let selected = try XCTUnwrap(loop.state.selectedPlayer?.id)
            loop.send(.key(.character("d")))
            waitUntil("the deleted player") { loop.state.hallOfFame?.playerCount == 8 }
            XCTAssertNil(try appDatabase.writer.read { db in try Player.fetchOne(db, key: selected) })
            XCTAssertEqual(host.events.filter { $0 != "draw" }, [])
        }
    }

    func testWriteErrorComesBackAsAMessage() throws {
        try MainActor.assumeIsolated {
            let appDatabase = try AppDatabase.inMemory(seed: 1)
            try appDatabase.createRandomPlayersIfEmpty()
            try appDatabase.writer.write { db in
                try db.execute(sql: """
                    CREATE TRIGGER refuseInserts BEFORE INSERT ON player
                    BEGIN SELECT RAISE(ABORT, 'no room for another player'); END
                    """)
            }
            let (loop, host) = makeHallOfFame(appDatabase)
            waitUntil("the first value") { loop.state.hallOfFame != nil }
            let drawsBefore = host.draws

            loop.send(.key(.character("n")))
            waitUntil("the error") { loop.state.status.error != nil }
            let error = try XCTUnwrap(loop.state.status.error)
            XCTAssertTrue(error.hasPrefix("Write failed: "), error)
            XCTAssertTrue(error.contains("no room for another player"), error)
            XCTAssertFalse(error.contains("\n"), error)
            XCTAssertEqual(host.draws, drawsBefore + 2, "drawn after the key, and after the error")
            XCTAssertEqual(loop.operationsInFlight, 0)
            XCTAssertEqual(try appDatabase.writer.read(AppDatabase.playerCount), 8)
        }
    }

    func testCtrlZAndQuitKeysReachTheHost() throws {
        try MainActor.assumeIsolated {
            let appDatabase = try AppDatabase.inMemory(seed: 1)
            let (loop, host) = makeHallOfFame(appDatabase)
            loop.send(.key(.control("z")))
            XCTAssertEqual(host.events.filter { $0 != "draw" }, ["suspend"])
            loop.send(.key(.character("q")))
            XCTAssertEqual(host.events.filter { $0 != "draw" }, ["suspend", "quit"])
            XCTAssertTrue(host.wasStoppedAtQuit)
        }
    }

    func testStressTestEndsInTheStateAndWakesItsWaiter() throws {
        try MainActor.assumeIsolated {
            let appDatabase = try AppDatabase.inMemory(seed: 1)
            try appDatabase.createRandomPlayersIfEmpty()
            let (loop, _) = makeHallOfFame(appDatabase)
            waitUntil("the first value") { loop.state.hallOfFame != nil }
            loop.send(.key(.character("s")))
            XCTAssertTrue(loop.state.isStressTestRunning)
            var woken = false
            loop.when({ !$0.isStressTestRunning }) { woken = true }
            XCTAssertFalse(woken)
            waitUntil("the end of the stress test", timeout: 30) { woken }
            guard case let .finished(total, failed, _) = loop.state.status.stressTest else {
                return XCTFail("\(String(describing: loop.state.status.stressTest))")
            }
            XCTAssertEqual(total, AppDatabase.stressTestRefreshes)
            XCTAssertEqual(failed, 0)
            // The lookups of players that left the window end too.
            waitUntil("no operation in flight") { loop.operationsInFlight == 0 }
        }
    }

    // MARK: - Support

    @MainActor
    private func makeProbe() -> (AppLoop<ProbeProgram>, RecordingHost) {
        let host = RecordingHost()
        let loop = AppLoop(program: ProbeProgram(), state: [])
        host.loop = { [unowned loop] in loop.isStopped }
        loop.start(host: host)
        addTeardownBlock { withExtendedLifetime(host) { } }
        return (loop, host)
    }

    @MainActor
    private func makeHallOfFame(_ appDatabase: AppDatabase) -> (AppLoop<HallOfFameProgram>, RecordingHost) {
        let host = RecordingHost()
        let loop = AppLoop(program: HallOfFameProgram(database: appDatabase), state: .initial(width: 80, height: 24))
        host.loop = { [unowned loop] in loop.isStopped }
        loop.start(host: host)
        loop.send(.resize(width: 80, height: 24))
        addTeardownBlock { withExtendedLifetime((host, loop)) { loop.stop() } }
        return (loop, host)
    }

    /// Lets the main queue run what it has.
    private func spinMainRunLoop() {
        for _ in 0..<5 {
            _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.01))
        }
    }
}

// MARK: - A host that records

/// A host that draws nothing, as Bubble Tea's `nilRenderer`, and records
/// what the loop asked.
@MainActor
private final class RecordingHost: AppHost {
    var events: [String] = []
    var draws: Int { events.filter { $0 == "draw" }.count }
    /// Whether the loop had stopped when it asked to quit.
    var wasStoppedAtQuit = false
    var loop: () -> Bool = { false }

    func draw(_ screen: Screen) { events.append("draw") }
    func suspend() { events.append("suspend") }
    func quit() {
        wasStoppedAtQuit = loop()
        events.append("quit")
    }
}

// MARK: - A program that records

private enum ProbeMessage: Equatable {
    /// Observe the publisher at this index of `publishers`, in this slot.
    case observe(Int, in: ProbeSlot = .values)
    /// Perform a publisher that sends these notes at once.
    case perform([String])
    case note(String)
    case value(Int)
    case suspend
    case quit
}

private final class Subjects {
    var list: [PassthroughSubject<ProbeMessage, Never>] = []
}

/// The probe's observation slots.
private enum ProbeSlot: Hashable {
    case values
    case others
}

private enum ProbeEffect {
    case observe(Int, ProbeSlot)
    case perform([String])
    case suspend
    case quit
}

/// A program whose state is every message it handled, in order.
private struct ProbeProgram: AppProgram {
    /// The publishers that `.observe(index)` observes.
    let subjects = Subjects()
    /// Messages of a long-running operation, as a write's error.
    let pendingNotes = PassthroughSubject<ProbeMessage, Never>()

    func start() -> [AppCommand<ProbeMessage, ProbeSlot>] {
        [.perform(pendingNotes.eraseToAnyPublisher())]
    }

    func update(_ state: inout [ProbeMessage], _ message: ProbeMessage) -> [ProbeEffect] {
        state.append(message)
        switch message {
        case let .observe(index, slot): return [.observe(index, slot)]
        case let .perform(notes): return [.perform(notes)]
        case .suspend: return [.suspend]
        case .quit: return [.quit]
        case .note, .value: return []
        }
    }

    func render(_ state: [ProbeMessage]) -> Screen {
        Screen(width: 1, height: 1)
    }

    func command(for effect: ProbeEffect) -> AppCommand<ProbeMessage, ProbeSlot> {
        switch effect {
        case let .observe(index, slot):
            return .observe(slot: slot, subjects.list[index].eraseToAnyPublisher())
        case let .perform(notes):
            return .perform(Publishers.Sequence(sequence: notes.map(ProbeMessage.note)).eraseToAnyPublisher())
        case .suspend:
            return .suspend
        case .quit:
            return .quit
        }
    }
}


/// A program whose state is the latest value of a publisher, and whose
/// equal states draw equal screens.
private struct LatestValueProgram: AppProgram {
    let values: AnyPublisher<Int, Never>

    func start() -> [AppCommand<Int, Int>] {
        [.observe(slot: 0, values)]
    }

    func update(_ state: inout Int, _ message: Int) -> [Never] {
        state = message
        return []
    }

    func render(_ state: Int) -> Screen {
        Screen(width: 1, height: 1)
    }

    func command(for effect: Never) -> AppCommand<Int, Int> {}

    var comparesDrawnStates: Bool { true }

    func drawsSameScreen(_ state: Int, as drawn: Int) -> Bool {
        state == drawn
    }
}
