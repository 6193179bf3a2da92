import Foundation
import OpenCombine
import OpenCombineDispatch
import ReactiveGRDB

/// The Hall of Fame screen, as the app loop runs it: `HallOfFameState`,
/// `update(_:_:)`, `hallOfFameRender(_:)`, and the effects performed against an
/// `AppDatabase`.
/// Each effect becomes a publisher whose output comes back as messages; a write's changes come back
/// through the observation. Nothing is applied to the state optimistically.
///
/// `Launch.swift` (Sources/livetable) starts one, in code that is compiled.
package struct HallOfFameProgram: AppProgram {
    let database: AppDatabase
    let polling: CommitPolling

    /// The observation of a window of players: by default the app's own,
    /// `AppDatabase.observeHallOfFame(_:scheduling:)`. The benchmark puts
    /// the demo apps' observation here, to compare it on the same path.
    package var observation: (WindowRequest) -> DatabasePublishers.Value<HallOfFame>

    package init(database: AppDatabase, polling: CommitPolling = CommitPolling()) {
        self.database = database
        self.polling = polling
        self.observation = { request in database.observeHallOfFame(request) }
    }

    // MARK: - AppProgram

    /// Watches the changes of other processes, before the first
    /// observation starts so that it misses none. When they are polled,
    /// says so with `.externalChangesPolled`.
    package func start() -> [AppCommand<HallOfFameMessage, HallOfFameSlot>] {
        [.observe(slot: .externalChanges, watchExternalChanges())]
    }

    package func update(_ state: inout HallOfFameState, _ message: HallOfFameMessage) -> [HallOfFameEffect] {
        hallOfFameUpdate(&state, message)
    }

    package func render(_ state: HallOfFameState) -> Screen {
        hallOfFameRender(state)
    }

    /// Draws the state with `caption` on the left of its status line, as
    /// `hallOfFameRender(_:)` draws it: an error comes first, and the
    /// stress test's progress keeps its place on the right.
    package func render(_ state: HallOfFameState, caption: String) -> Screen {
        var state = state
        state.status.caption = caption
        return hallOfFameRender(state)
    }

    /// The publisher that performs `effect` against the database, or the
    /// host's part (suspend, quit).
    package func command(for effect: HallOfFameEffect) -> AppCommand<HallOfFameMessage, HallOfFameSlot> {
        switch effect {
        case let .observe(request):
            // One observation at a time: a new window replaces the old one.
            return .observe(slot: .hallOfFame, observation(request)
                // Stamped as it arrives: `update` reads no clock.
                .map { HallOfFameMessage.hallOfFame($0, now: .now) }
                .catch { error in Just(HallOfFameMessage.observationFailed(error.oneLineDescription)) }
                .eraseToAnyPublisher())
        case .insertRandomPlayer:
            return write(database.insertRandomPlayer(), for: effect)
        case let .updatePlayer(player):
            return write(database.updatePlayer(player), for: effect)
        case let .deletePlayer(id):
            return deletingWrite(database.deletePlayer(id: id), for: effect)
        case .deleteAll:
            return deletingWrite(database.deleteAll(), for: effect)
        case .refresh:
            return deletingWrite(database.refresh(), for: effect)
        case .stressTest:
            return .perform(stressTest())
        case let .highlightTimer(deadline):
            // One timer: the slot cancels the previous one.
            return .timer(slot: .highlightTimer, at: deadline, message: HallOfFameMessage.highlightTick)
        case let .findDeletedPlayers(ids):
            return .perform(database.writer.rx
                .read { db in try HallOfFame.deletedPlayerIDs(db, among: ids) }
                .map { HallOfFameMessage.deletedPlayersFound($0) }
                .catch { error in Just(HallOfFameMessage.deletedPlayersFound([], error: error.oneLineDescription)) }
                .eraseToAnyPublisher())
        case .suspend:
            return .suspend
        case .quit:
            return .quit
        }
    }

    // MARK: - Effects

    /// A write whose changes come back through the observation: its end,
    /// and its error, come back as `.writeFinished`, which ends the
    /// "writing…" of the status line and closes the edit form after a save.
    /// `before`: the messages its output sends first.
    private func write<Output>(
        _ publisher: DatabasePublishers.Write<Output>, for effect: HallOfFameEffect,
        before: @escaping (Output) -> [HallOfFameMessage] = { _ in [] }) -> AppCommand<HallOfFameMessage, HallOfFameSlot>
    {
        .perform(publisher
            .map { output in before(output) + [HallOfFameMessage.writeFinished(effect, error: nil)] }
            .catch { error in Just([HallOfFameMessage.writeFinished(effect, error: error.oneLineDescription)]) }
            .flatMap { Publishers.Sequence<[HallOfFameMessage], Never>(sequence: $0) }
            .eraseToAnyPublisher())
    }

    /// A write that deletes players: how many, then its end, as `write`.
    private func deletingWrite(_ publisher: DatabasePublishers.Write<Int>, for effect: HallOfFameEffect) -> AppCommand<HallOfFameMessage, HallOfFameSlot> {
        write(publisher, for: effect) { deleted in deleted > 0 ? [.playersDeleted(deleted)] : [] }
    }

    /// The stress test's progress, the players its refreshes deleted, then
    /// its result.
    private func stressTest() -> AnyPublisher<HallOfFameMessage, Never> {
        let start = Date()
        let none = StressTestProgress(completed: 0, failed: 0, total: 0)
        return database.stressTest()
            // Each progress with the players deleted since the one before.
            .scan((progress: none, deleted: 0)) { last, progress in (progress, progress.deleted - last.progress.deleted) }
            .flatMap { step -> Publishers.Sequence<[HallOfFameMessage], Never> in
                let progress = step.progress
                let ended = progress.completed + progress.failed
                var messages = step.deleted > 0 ? [HallOfFameMessage.playersDeleted(step.deleted)] : []
                messages.append(.stressProgress(completed: ended, total: progress.total))
                if progress.isFinished {
                    messages.append(.stressFinished(
                        total: progress.total, failed: progress.failed,
                        seconds: Date().timeIntervalSince(start), firstError: progress.firstError))
                }
                return Publishers.Sequence(sequence: messages)
            }
            .eraseToAnyPublisher()
    }

    /// Watches the writes of other processes until cancelled. It sends no
    /// message, unless the database is polled: asked for, or because the
    /// file system or inotify's limits require it.
    private func watchExternalChanges() -> AnyPublisher<HallOfFameMessage, Never> {
        let database = self.database
        let polling = self.polling
        return Deferred { () -> AnyPublisher<HallOfFameMessage, Never> in
            // nonisolated(unsafe): the subject is subscribed to, and sent
            // its messages, on the main queue only.
            nonisolated(unsafe) let fallback = PassthroughSubject<HallOfFameMessage, Never>()
            let path = database.writer.path
            let watch = database.observeExternalChanges(polling: polling, onPollingFallback: { reason in
                DispatchQueue.main.async {
                    fallback.send(.externalChangesPolled(note: polling.note(path: path, reason: reason), reason: reason))
                }
            })
            // Asked for: said at once, even on a local file, where
            // ReactiveGRDB reports nothing.
            let asked = polling.interval == nil ? []
                : [HallOfFameMessage.externalChangesPolled(note: polling.note(path: path, reason: nil), reason: nil)]
            return fallback
                .prepend(asked)
                .handleEvents(receiveCancel: { watch.cancel() })
                .eraseToAnyPublisher()
        }
        .eraseToAnyPublisher()
    }
}

/// The Hall of Fame's long-lived subscriptions, each replaced by the next
/// in its slot.
package enum HallOfFameSlot: Hashable, Sendable {
    case externalChanges
    case hallOfFame
    case highlightTimer
}
