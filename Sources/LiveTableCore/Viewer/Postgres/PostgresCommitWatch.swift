import Foundation
import PostgresClient
import Synchronization

/// Tells when a PostgreSQL cluster committed, for the live windows of the
/// viewer: on a connection of its own, it reads a commit token every
/// `interval` seconds and signals when it moved.
///
/// Stock PostgreSQL pushes nothing to a read-only, unprivileged client
/// (LISTEN needs the writer's NOTIFY, logical decoding the REPLICATION
/// attribute; issue 19). What any role may call, on a primary, is the
/// cluster's snapshot (`pg_current_snapshot()`, `txid_current_snapshot()`
/// before PostgreSQL 13): "xmin:xmax:running ids", where `xmax` follows the
/// last transaction that ended. It changes when a transaction that wrote
/// ends, once its commit is visible (its id leaves the running list, or
/// `xmax` passes it), and for nothing else: not for the other writes to
/// the log, the pruning of pages by readers (the viewer's own window reads
/// too), checkpoints, vacuum, the background writer's record of the
/// running transactions, each of which would cost a window read and an
/// exact count of the rows. On a hot standby, the snapshot lists no
/// running ids (recovery keeps them in `subxip`, which the function does
/// not show), so a commit need not change it: the token is the replay
/// position (`pg_last_wal_replay_lsn()`), which moves once the commit it
/// replays is visible. One statement per poll, no table read, so the
/// server's cost is about that of `SELECT 1`.
///
/// - A role or an engine without the snapshot function: the position of
///   the log (`pg_current_wal_insert_lsn()`), which moves with every write
///   (a window read that finds nothing new), and before the commit it
///   records is visible: the poll after a move signals once more, for a
///   read made between the two.
/// - Without either (CockroachDB, or a role they were revoked from): the
///   watch signals at every poll, and the windows are read again each
///   time; the liveness note says so ("re-read every 0.05 s: no commit
///   token").
/// - With a channel (`--listen CHANNEL`), the connection also runs
///   `LISTEN channel`, and a notification signals at once, without poll
///   delay, for a writer that NOTIFYs.
/// - A lost connection (server restarted, `idle_session_timeout`,
///   `pg_terminate_backend`, network), or a poll the server has not
///   answered in 20 intervals (at least 1 s: a frozen network path,
///   `CommitPoll`), is reported (`Event.lost`, the
///   screen's `not live`), and the watch connects again with backoff,
///   from 0.1 s doubling to 2 s, to whichever host libpq picks from a
///   multi-host string; once connected, it signals.
///
/// One watch serves all the window subscriptions of a data source: the
/// connection opens with the first observer, and closes a moment after the
/// last one left (`linger`), so that a window replaced at each scroll does
/// not reconnect.
///
/// For example:
///
/// ```swift
/// let watch = PostgresCommitWatch(
///     connectionString: "postgres://viewer@db/tracks",
///     settings: ["application_name": "livetable"])
/// let observer = watch.observe { event in
///     if event == .changed { print("read the window again") }
/// }
/// // later: observer.cancel()
/// ```
// The poll lives on a thread of its own, and its events are delivered on `queue`.
public final class PostgresCommitWatch: Sendable {
    /// What the watch tells its observers.
    public enum Event: Sendable, Equatable {
        /// Something may have committed: read again. Sent when the token
        /// moved, when a notification came, once the connection is made
        /// (and made again), and at every poll without a token.
        case changed
        /// The connection is lost, or could not be made: the screen is not
        /// live until the next `.changed`. One line, no password.
        case lost(PostgresError)
        /// How commits are seen, for the title: sent when it changes, and
        /// at once to a new observer when known.
        case liveness(ViewerLiveness)
    }

    /// Seconds between two polls.
    public let interval: TimeInterval
    /// The channel of `LISTEN`, if any.
    public let channel: String?
    /// How long the connection stays open after the last observer left.
    let linger: TimeInterval

    private let connectionString: String
    private let settings: [String: String]
    private let queue = DispatchQueue(label: "livetable.postgres.commits", qos: .userInitiated)
    private let state = Mutex(State())

    /// The observers, and the poll that runs for them.
    private struct State {
        var observers: [Int: (handler: @Sendable (Event) -> Void, passive: Bool)] = [:]
        var nextObserverID = 0
        var lastLiveness: ViewerLiveness?
        var poll: CommitPoll?
        /// Which poll is the current one: the events of a poll stopped, still
        /// on their way, are dropped.
        var pollGeneration = 0

        var hasActiveObservers: Bool {
            observers.values.contains { !$0.passive }
        }
    }

    /// The default interval between polls: 50 ms, so that another
    /// session's commit is on screen in about 45 ms on average.
    public static let defaultInterval: TimeInterval = 0.05

    /// Creates a watch; it connects when observed.
    ///
    /// For example:
    ///
    /// ```swift
    /// let watch = PostgresCommitWatch(
    ///     connectionString: "host=db dbname=tracks", settings: [:],
    ///     interval: 0.1, listen: "tracks")
    /// ```
    ///
    /// - parameter connectionString: The viewer's connection string.
    /// - parameter settings: The viewer's libpq settings
    ///   (`application_name`, the read-only session's `options`…).
    /// - parameter interval: Seconds between polls (`--poll`).
    /// - parameter channel: A channel to LISTEN to (`--listen`), or nil.
    public convenience init(
        connectionString: String, settings: [String: String],
        interval: TimeInterval = PostgresCommitWatch.defaultInterval, listen channel: String? = nil)
    {
        self.init(connectionString: connectionString, settings: settings,
                  interval: interval, listen: channel, linger: 0.5)
    }

    init(connectionString: String, settings: [String: String],
         interval: TimeInterval, listen channel: String?, linger: TimeInterval)
    {
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

    /// A registration of `observe(_:)`: `cancel()` removes it.
    public final class Observer: Sendable {
        private let cancelBody: @Sendable () -> Void
        private let isCancelled = Mutex(false)

        init(cancel: @escaping @Sendable () -> Void) {
            cancelBody = cancel
        }

        deinit {
            cancel()
        }

        /// Stops the events; the watch's connection closes a moment after
        /// its last observer is cancelled.
        public func cancel() {
            let first = isCancelled.withLock { cancelled -> Bool in
                defer { cancelled = true }
                return !cancelled
            }
            if first { cancelBody() }
        }
    }

    /// Calls `onEvent` with each event, on the watch's queue, until the
    /// returned observer is cancelled. The first observer starts the poll.
    ///
    /// For example:
    ///
    /// ```swift
    /// let observer = watch.observe { event in print(event) }
    /// ```
    ///
    /// - parameter passive: True for an observer that neither starts nor
    ///   keeps the poll, and hears it only while others do (the title's
    ///   note, which has nothing to say while no window shows).
    /// - important: `onEvent` must not block: it holds up the other
    ///   observers' events, delivered on the same queue.
    public func observe(passive: Bool = false, _ onEvent: @escaping @Sendable (Event) -> Void) -> Observer {
        let (id, liveness, startsPoll) = state.withLock { state -> (Int, ViewerLiveness?, CommitPoll?) in
            let id = state.nextObserverID
            state.nextObserverID += 1
            state.observers[id] = (onEvent, passive)
            guard !passive, state.poll == nil else { return (id, state.lastLiveness, nil) }
            let generation = state.nextObserverID
            let poll = CommitPoll(
                connectionString: connectionString, settings: settings,
                interval: interval, channel: channel) { [weak self] event in
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

    /// Whether the poll runs (its connection open, or being made again).
    public var isPolling: Bool {
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

    /// Sends `event` of the poll `generation` to every observer, on
    /// `queue`.
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

    /// The title's note of a watch: "polled every 0.05 s", "on standby,
    /// polled every 0.05 s", "re-read every 0.05 s: no commit token",
    /// followed by "+ LISTEN tracks" with a channel.
    ///
    /// For example:
    ///
    /// ```swift
    /// PostgresCommitWatch.note(interval: 0.05, standby: false, token: true, channel: "tracks")
    /// // polled every 0.05 s + LISTEN tracks
    /// ```
    public static func note(interval: TimeInterval, standby: Bool, token: Bool, channel: String?) -> String {
        let seconds = String(format: "%g", interval)
        var note = token
            ? (standby ? "on standby, " : "") + "polled every \(seconds) s"
            : "re-read every \(seconds) s: no commit token"
        if let channel { note += " + LISTEN \(channel)" }
        return note
    }
}
