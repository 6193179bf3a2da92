import Foundation
import PostgresClient

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
///   `CommitPollDeadline`), is reported (`Event.lost`, the
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
// @unchecked Sendable: `observers`, `lastLiveness`, `poll` and
// `nextObserverID` are only accessed with `lock` held; the poll itself
// lives on `queue`.
public final class PostgresCommitWatch: @unchecked Sendable {
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
    private let lock = NSLock()
    private var observers: [Int: (handler: @Sendable (Event) -> Void, passive: Bool)] = [:]
    private var nextObserverID = 0
    private var lastLiveness: ViewerLiveness?
    private var poll: CommitPoll?

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
        let poll = self.poll
        queue.async { poll?.stop() }
    }

    // MARK: - Observers

    /// A registration of `observe(_:)`: `cancel()` removes it.
    public final class Observer: Sendable {
        private let cancelBody: @Sendable () -> Void
        private let isCancelled = LockedValue(false)

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
    /// - important: `onEvent` must not block: it holds up the poll.
    public func observe(passive: Bool = false, _ onEvent: @escaping @Sendable (Event) -> Void) -> Observer {
        let (id, liveness, startsPoll) = lock.withLock { () -> (Int, ViewerLiveness?, CommitPoll?) in
            let id = nextObserverID
            nextObserverID += 1
            observers[id] = (onEvent, passive)
            guard !passive, poll == nil else { return (id, lastLiveness, nil) }
            let poll = CommitPoll(
                connectionString: connectionString, settings: settings,
                interval: interval, channel: channel) { [weak self] event in self?.send(event) }
            self.poll = poll
            return (id, lastLiveness, poll)
        }
        queue.async {
            if let liveness { onEvent(.liveness(liveness)) }
            startsPoll?.start(on: self.queue)
        }
        return Observer { [weak self] in self?.removeObserver(id) }
    }

    /// Whether the poll runs (its connection open, or being made again).
    public var isPolling: Bool {
        lock.withLock { poll != nil }
    }

    private var hasActiveObservers: Bool {
        observers.values.contains { !$0.passive }
    }

    private func removeObserver(_ id: Int) {
        let isLast = lock.withLock {
            observers[id] = nil
            return !hasActiveObservers
        }
        guard isLast else { return }
        queue.asyncAfter(deadline: .now() + linger) { [weak self] in
            guard let self else { return }
            let stopped = lock.withLock { () -> CommitPoll? in
                guard !hasActiveObservers else { return nil }
                defer { poll = nil; lastLiveness = nil }
                return poll
            }
            stopped?.stop()
        }
    }

    /// Sends `event` to every observer; called on `queue` by the poll.
    private func send(_ event: Event) {
        let handlers = lock.withLock { () -> [@Sendable (Event) -> Void] in
            if case let .liveness(liveness) = event {
                guard liveness != lastLiveness else { return [] }
                lastLiveness = liveness
            }
            return observers.sorted { $0.key < $1.key }.map(\.value.handler)
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

// MARK: - The poll

/// The connection of a watch and its timer, confined to the watch's queue.
// @unchecked Sendable: made under the watch's lock, then used on the
// watch's serial queue only.
private final class CommitPoll: @unchecked Sendable {
    /// What the poll reads at each tick: the best token the server
    /// offers the role, chosen at each connection (`mode(of:)`).
    enum TokenQuery: Equatable {
        /// The snapshot of a primary, with the function of its version:
        /// it changes when a commit becomes visible, never for a write to
        /// the log that commits nothing.
        case snapshot(function: String)
        /// `pg_current_wal_insert_lsn()`, for a role or an engine without
        /// the snapshot function. It moves as a commit's record is
        /// written, before the commit is flushed and made visible: the
        /// poll after a move signals again (`hasLogMoved`).
        case logPosition
        /// `pg_last_wal_replay_lsn()`, and whether recovery goes on: a
        /// standby promoted keeps the session, and its replay position
        /// stops moving.
        case standby
        /// No token: every tick is a change. `SELECT 1` still tells when
        /// the connection is lost.
        case noToken(reason: String)

        var statement: String {
            switch self {
            case let .snapshot(function): "SELECT \(function)"
            case .logPosition: "SELECT pg_current_wal_insert_lsn()"
            case .standby: "SELECT pg_last_wal_replay_lsn(), pg_is_in_recovery()"
            case .noToken: "SELECT 1"
            }
        }
    }

    private let connectionString: String
    private let settings: [String: String]
    private let interval: TimeInterval
    private let channel: String?
    private let send: (PostgresCommitWatch.Event) -> Void
    /// Cuts a poll the server does not answer (a frozen network path).
    private let deadline: CommitPollDeadline

    private var queue: DispatchQueue?
    private var timer: DispatchSourceTimer?
    private var connection: PostgresConnection?
    private var notificationSource: DispatchSourceRead?
    private var mode = TokenQuery.noToken(reason: "not connected")
    private var token: String?
    /// Whether the log position moved at the last poll (`.logPosition`).
    private var hasLogMoved = false
    /// Whether `.lost` was sent since the last connection.
    private var isLost = false
    private var backoff: TimeInterval = 0
    private var nextAttempt = DispatchTime.now()
    private var isStopped = false

    /// The first pause before connecting again, and the longest.
    static let backoffRange: ClosedRange<TimeInterval> = 0.1...2

    init(connectionString: String, settings: [String: String], interval: TimeInterval,
         channel: String?, send: @escaping (PostgresCommitWatch.Event) -> Void)
    {
        self.connectionString = connectionString
        self.settings = settings
        self.interval = interval
        self.channel = channel
        self.send = send
        deadline = CommitPollDeadline(interval: interval)
    }

    /// Connects, and polls every interval. Runs on `queue`.
    func start(on queue: DispatchQueue) {
        guard !isStopped, timer == nil else { return }
        self.queue = queue
        let timer = DispatchSource.makeTimerSource(queue: queue)
        // A leeway of a tenth of the interval lets the kernel group the
        // wake-ups with others': the idle cost of the poll.
        timer.schedule(
            deadline: .now() + interval, repeating: interval,
            leeway: .microseconds(max(500, Int(interval * 100_000))))
        timer.setEventHandler { [weak self] in self?.tick() }
        self.timer = timer
        deadline.start()
        connect()
        timer.resume()
    }

    /// Closes the connection; the poll does not start again.
    func stop() {
        isStopped = true
        timer?.cancel()
        timer = nil
        deadline.stop()
        disconnect()
    }

    private func tick() {
        guard !isStopped else { return }
        guard connection != nil else {
            if DispatchTime.now() >= nextAttempt { connect() }
            return
        }
        readToken()
    }

    // MARK: Connection

    private func connect() {
        do {
            let connection = try PostgresConnection(connectionString, settings: settings)
            self.connection = connection
            try chooseMode(on: connection)
            if let channel {
                _ = try connection.execute("LISTEN \(Self.channelIdentifier(channel))")
                listen(on: connection)
            }
            backoff = 0
            isLost = false
            readToken(connecting: true)
        } catch {
            lose(error)
        }
    }

    /// The best token of the server, each tried once as the poll runs it:
    /// on a standby its replay position; on a primary its snapshot, else
    /// its log position, else none. A function missing (an engine that
    /// speaks the protocol) or not permitted (EXECUTE revoked) is a query
    /// error, and the next is tried; the reason of `.noToken` is the
    /// snapshot's, the token to grant.
    private static func mode(of connection: PostgresConnection) throws -> TokenQuery {
        do {
            let result = try connection.execute("SELECT pg_is_in_recovery()")
            if result.rows.first?.first == "t" { return .standby }
        } catch let error as PostgresError where error.kind == .query {
            // No such function: not a PostgreSQL standby, whatever else.
        }
        // `pg_current_snapshot()` is PostgreSQL 13's name of
        // `txid_current_snapshot()`, which is deprecated since.
        let snapshot = connection.serverVersion >= 130_000 ? "pg_current_snapshot()" : "txid_current_snapshot()"
        var reason: String?
        for candidate in [TokenQuery.snapshot(function: snapshot), .logPosition] {
            do {
                _ = try connection.execute(candidate.statement)
                return candidate
            } catch let error as PostgresError where error.kind == .query {
                reason = reason ?? error.message
            }
        }
        return .noToken(reason: reason ?? "")
    }

    /// Drops the connection after `error`, says so once, and connects
    /// again after a pause that doubles with each failure.
    private func lose(_ error: any Error) {
        disconnect()
        guard !isStopped else { return }
        let failure = error as? PostgresError
            ?? PostgresError(kind: .connection, message: "the connection to the server is lost")
        if !isLost {
            isLost = true
            send(.lost(failure))
        }
        backoff = min(Self.backoffRange.upperBound, max(Self.backoffRange.lowerBound, backoff * 2))
        nextAttempt = .now() + backoff
    }

    private func disconnect() {
        // The read source is cancelled before libpq closes the socket: the
        // cancel handler keeps the connection until it ran.
        notificationSource?.cancel()
        notificationSource = nil
        connection = nil
    }

    // MARK: Token

    /// Reads the token; signals when it moved, and at once when
    /// `connecting`.
    private func readToken(connecting: Bool = false) {
        guard let connection else { return }
        do {
            // With a deadline: a frozen path would keep libpq waiting,
            // and the screen "live", for as long as the kernel keeps the
            // connection.
            let row = try deadline.run(on: connection) { try connection.execute(mode.statement) }.rows.first ?? []
            var changed = connecting
            switch mode {
            case .snapshot, .logPosition, .standby:
                let value = row.map { $0 ?? "" }.joined(separator: " ")
                let moved = value != token
                token = value
                changed = changed || moved
                if mode == .logPosition {
                    // A read made as a commit's record was written may have
                    // missed it: once more, a poll later, when it is visible.
                    changed = changed || hasLogMoved
                    hasLogMoved = moved && !connecting
                }
                if mode == .standby, row.count > 1, row[1] == "f" {
                    // Promoted: the replay position moves no more.
                    try chooseMode(on: connection)
                    changed = true
                }
            case .noToken:
                changed = true
            }
            if connecting || changed { sendLiveness() }
            if channel != nil { changed = try !connection.notifications().isEmpty || changed }
            if changed { send(.changed) }
        } catch let error as PostgresError where error.kind == .query {
            // The token's function gone (EXECUTE revoked while polling):
            // the next token down, or none, and a read meanwhile.
            if case .noToken = mode { return }
            do {
                try chooseMode(on: connection)
            } catch {
                return lose(error)
            }
            sendLiveness()
            send(.changed)
        } catch let error as PostgresError where error.kind == .timeout || error.kind == .canceled {
            // A statement timeout shorter than a poll: tried at the next.
        } catch {
            lose(error)
        }
    }

    /// Chooses the token of a new connection, or again (a standby
    /// promoted, a function revoked).
    private func chooseMode(on connection: PostgresConnection) throws {
        mode = try Self.mode(of: connection)
        token = nil
        hasLogMoved = false
    }

    private func sendLiveness() {
        var reason: String?
        var hasToken = true
        if case let .noToken(message) = mode {
            reason = "no commit token: \(message)"
            hasToken = false
        }
        let note = PostgresCommitWatch.note(
            interval: interval, standby: mode == .standby, token: hasToken, channel: channel)
        send(.liveness(ViewerLiveness(note: note, reason: reason)))
    }

    // MARK: LISTEN

    /// Signals as soon as a notification arrives on the socket.
    private func listen(on connection: PostgresConnection) {
        guard let queue, connection.socket >= 0 else { return }
        let source = DispatchSource.makeReadSource(fileDescriptor: connection.socket, queue: queue)
        source.setEventHandler { [weak self, weak connection] in
            guard let self, let connection, !isStopped, self.connection === connection else { return }
            do {
                if try !connection.notifications().isEmpty { send(.changed) }
            } catch {
                lose(error)
            }
        }
        // Holds the connection (and its socket) until the source is done
        // with it.
        source.setCancelHandler { withExtendedLifetime(connection) { } }
        notificationSource = source
        source.resume()
    }

    /// `name` as a quoted identifier: `LISTEN "my channel"`.
    static func quotedIdentifier(_ name: String) -> String {
        "\"" + name.replacing("\"", with: "\"\"") + "\""
    }

    /// The channel given to `--listen` as SQL reads a name, quoted: folded
    /// to lower case unless it is written in double quotes, so that
    /// `--listen Tracks` hears a writer's `NOTIFY Tracks` (which PostgreSQL
    /// folds to `tracks`), and `--listen '"Tracks"'` its `NOTIFY "Tracks"`.
    ///
    /// For example:
    ///
    /// ```swift
    /// PostgresCommitWatch.channelIdentifier("Tracks")         // "\"tracks\""
    /// PostgresCommitWatch.channelIdentifier("\"Tracks\"")     // "\"Tracks\""
    /// ```
    static func channelIdentifier(_ text: String) -> String {
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") {
            return quotedIdentifier(String(text.dropFirst().dropLast()).replacing("\"\"", with: "\""))
        }
        return quotedIdentifier(text.lowercased())
    }
}
