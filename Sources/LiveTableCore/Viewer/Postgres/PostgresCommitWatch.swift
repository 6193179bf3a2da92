import Foundation
import PostgresClient
import Synchronization

/// Tells when a PostgreSQL cluster committed: on a connection of its own, it
/// reads a commit token every `interval` and signals when it moved.
///
/// Stock PostgreSQL pushes nothing to a read-only, unprivileged client
/// (LISTEN needs the writer's NOTIFY, logical decoding the REPLICATION
/// attribute; issue 19). What any role may call on a primary is the
/// cluster's snapshot (`pg_current_snapshot()`, `txid_current_snapshot()`
/// before 13): "xmin:xmax:running ids". It changes when a transaction that
/// wrote ends, once its commit is visible, and for nothing else: not for
/// other log writes, page pruning by readers (the viewer's own too),
/// checkpoints or vacuum, each of which would cost a window read and an
/// exact count. On a hot standby the snapshot lists no running ids, so the
/// token is the replay position (`pg_last_wal_replay_lsn()`), which moves
/// once the replayed commit is visible. One statement per poll, no table
/// read: about the cost of `SELECT 1`.
///
/// - Without the snapshot function: the log position
///   (`pg_current_wal_insert_lsn()`), which moves with every write and
///   before the commit is visible: the poll after a move signals once more.
/// - Without either (CockroachDB, a revoked role): a signal at every poll,
///   said in the title ("re-read every 0.05 s: no commit token").
/// - `--listen CHANNEL`: a NOTIFY signals at once, without poll delay.
/// - A lost connection, or a poll unanswered for 20 intervals (at least 1 s:
///   a frozen path), is `Event.lost` (`not live`); the watch reconnects
///   with backoff from 0.1 s to 2 s, and signals once connected.
///
/// One watch serves all the window subscriptions of a data source; its
/// connection closes `linger` after the last observer left, so that a window
/// replaced at each scroll does not reconnect. The poll runs on a thread of
/// its own; events are delivered on `queue`.
package final class PostgresCommitWatch: Sendable {
    package enum Event: Sendable, Equatable {
        /// The token moved, a notification came, the connection was made
        /// (again), or a poll without a token: read again.
        case changed
        /// Not live until the next `.changed`.
        case lost(PostgresError)
        /// Sent when it changes, and at once to a new observer.
        case liveness(ViewerLiveness)
    }

    package let interval: TimeInterval
    package let channel: String?
        /// After the last observer left.
    let linger: TimeInterval

    private let connectionString: String
    private let settings: [String: String]
    private let queue = DispatchQueue(label: "livetable.postgres.commits", qos: .userInitiated)
    private let state = Mutex(State())

    private struct State {
        var observers: [Int: (handler: @Sendable (Event) -> Void, passive: Bool)] = [:]
        var nextObserverID = 0
        var lastLiveness: ViewerLiveness?
        var poll: CommitPoll?
        /// Events still on their way from a stopped poll are dropped.
        var pollGeneration = 0

        var hasActiveObservers: Bool {
            observers.values.contains { !$0.passive }
        }
    }

    /// Another session's commit is on screen in about 45 ms on average.
    package static let defaultInterval: TimeInterval = 0.05

    package convenience init(
        connectionString: String, settings: [String: String],
        interval: TimeInterval = PostgresCommitWatch.defaultInterval, listen channel: String? = nil)
    {
        self.init(connectionString: connectionString, settings: settings,
                  interval: interval, listen: channel, linger: 0.5)
    }

    /// The poll's first connection waits for it (a data source's first screen).
    private let startGate: PostgresFirstScreenGate?

    init(connectionString: String, settings: [String: String],
         interval: TimeInterval, listen channel: String?, linger: TimeInterval,
         startGate: PostgresFirstScreenGate? = nil)
    {
        self.startGate = startGate
        self.connectionString = connectionString
        self.settings = settings
        self.interval = max(0.001, interval)
        self.channel = channel
        self.linger = linger
    }

    deinit {
        state.withLock { $0.poll }?.stop()
    }

    // MARK: - Observers

    package final class Observer: Sendable {
        private let cancelBody: @Sendable () -> Void
        private let isCancelled = Mutex(false)

        init(cancel: @escaping @Sendable () -> Void) {
            cancelBody = cancel
        }

        deinit {
            cancel()
        }

        package func cancel() {
            let first = isCancelled.withLock { cancelled -> Bool in
                defer { cancelled = true }
                return !cancelled
            }
            if first { cancelBody() }
        }
    }

    /// On the watch's queue: `onEvent` must not block the other observers.
    /// A `passive` observer neither starts nor keeps the poll (the title's
    /// note, with nothing to say while no window shows).
    package func observe(passive: Bool = false, _ onEvent: @escaping @Sendable (Event) -> Void) -> Observer {
        let (id, liveness, startsPoll) = state.withLock { state -> (Int, ViewerLiveness?, CommitPoll?) in
            let id = state.nextObserverID
            state.nextObserverID += 1
            state.observers[id] = (onEvent, passive)
            guard !passive, state.poll == nil else { return (id, state.lastLiveness, nil) }
            let generation = state.nextObserverID
            let poll = CommitPoll(
                connectionString: connectionString, settings: settings,
                interval: interval, channel: channel, startGate: startGate) { [weak self] event in
                    guard let self else { return }
                    queue.async { self.send(event, generation: generation) }
                }
            state.poll = poll
            state.pollGeneration = generation
            return (id, state.lastLiveness, poll)
        }
        queue.async {
            if let liveness { onEvent(.liveness(liveness)) }
        }
        startsPoll?.start()
        return Observer { [weak self] in self?.removeObserver(id) }
    }

    package var isPolling: Bool {
        state.withLock { $0.poll != nil }
    }

    private func removeObserver(_ id: Int) {
        let isLast = state.withLock { state in
            state.observers[id] = nil
            return !state.hasActiveObservers
        }
        guard isLast else { return }
        queue.asyncAfter(deadline: .now() + linger) { [weak self] in
            guard let self else { return }
            let stopped = state.withLock { state -> CommitPoll? in
                guard !state.hasActiveObservers else { return nil }
                defer { state.poll = nil; state.lastLiveness = nil }
                return state.poll
            }
            stopped?.stop()
        }
    }

    private func send(_ event: Event, generation: Int) {
        let handlers = state.withLock { state -> [@Sendable (Event) -> Void] in
            guard state.poll != nil, generation == state.pollGeneration else { return [] }
            if case let .liveness(liveness) = event {
                guard liveness != state.lastLiveness else { return [] }
                state.lastLiveness = liveness
            }
            return state.observers.sorted { $0.key < $1.key }.map(\.value.handler)
        }
        for handler in handlers { handler(event) }
    }

    // MARK: - Notes

    /// "polled every 0.05 s", "on standby, polled every 0.05 s", "re-read
    /// every 0.05 s: no commit token"; "+ LISTEN tracks" with a channel.
    package static func note(interval: TimeInterval, standby: Bool, token: Bool, channel: String?) -> String {
        let seconds = String(format: "%g", interval)
        var note = token
            ? (standby ? "on standby, " : "") + "polled every \(seconds) s"
            : "re-read every \(seconds) s: no commit token"
        if let channel { note += " + LISTEN \(channel)" }
        return note
    }
}
