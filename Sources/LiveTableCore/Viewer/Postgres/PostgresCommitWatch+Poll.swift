import Foundation
import PostgresClient
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// MARK: - The poll

/// The connection of a watch, polled on a thread of its own.
///
/// The thread sleeps in poll(2) until the next tick, on a wake-up
/// descriptor (to stop) and, with a channel, on the connection's socket (a
/// notification signals at once). At the tick it sends the token's
/// statement and waits for the answer in poll(2) too, with the deadline.
/// That is two wake-ups a tick, the least a poll that reads the token when
/// its tick comes can make, and most of the idle cost of the watch
/// (Docs/Performance.md).
///
/// The deadline cuts a poll that the server does not answer within 20
/// intervals (at least a second): a frozen network path (a proxy or a NAT
/// box that stopped forwarding, a peer whose kernel still ACKs while
/// nothing answers) would keep libpq waiting, and the screen "live" while
/// commits go unseen, for as long as the kernel keeps the connection. The
/// connection is then dropped as a lost one (`.lost`, then connecting
/// again with backoff).
///
/// Connecting again through a path that is still frozen would wait for
/// `connect_timeout` (10 s): the attempt also polls the wake-up descriptor,
/// so that `stop()` ends it at once, and leaving the table or quitting is
/// not held by it.
// @unchecked Sendable: the connection and the token's state are confined
// to the poll's thread; `stopped` has its lock, `wake` is a descriptor,
// `finished` a semaphore.
final class CommitPoll: @unchecked Sendable {
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
    /// Seconds a statement of the poll may wait for the server.
    let deadline: TimeInterval
    /// Wakes the thread from its sleep: `stop()`.
    private let wake = WakeUpDescriptor()
    /// What the thread sleeps on: the wake-up descriptor, the socket.
    private var descriptors = [pollfd](repeating: pollfd(), count: 2)
    private let stopped = Mutex(false)
    /// Signalled once the thread closed its connection and ended.
    private let finished = DispatchSemaphore(value: 0)

    private var connection: PostgresConnection?
    private var mode = TokenQuery.noToken(reason: "not connected")
    private var token: String?
    /// Whether the log position moved at the last poll (`.logPosition`).
    private var hasLogMoved = false
    /// Whether `.lost` was sent since the last connection.
    private var isLost = false
    private var backoff: TimeInterval = 0
    private var nextAttempt = DispatchTime.now()

    /// The first pause before connecting again, and the longest.
    static let backoffRange: ClosedRange<TimeInterval> = 0.1...2

    /// - parameter send: Called on the poll's thread with each event.
    init(connectionString: String, settings: [String: String], interval: TimeInterval,
         channel: String?, send: @escaping (PostgresCommitWatch.Event) -> Void)
    {
        self.connectionString = connectionString
        self.settings = settings
        self.interval = interval
        self.channel = channel
        self.send = send
        deadline = max(1, 20 * interval)
    }

    /// Starts the thread: it connects, and polls every interval until
    /// `stop()`.
    func start() {
        let thread = Thread { [self] in
            // Named for top and debuggers from the thread itself: set
            // before it starts, the name does not reach the system's
            // thread. Linux keeps 15 bytes.
            Thread.current.name = "pg-commit-watch"
            run()
        }
        thread.qualityOfService = .userInitiated
        thread.start()
    }

    /// Stops the thread, which closes the connection; from any thread. A
    /// statement that runs ends first (within the deadline).
    func stop() {
        stopped.withLock { $0 = true }
        wake.signal()
    }

    private var isStopped: Bool {
        stopped.withLock { $0 }
    }

    /// Waits until the thread, stopped, has ended: false if it did not
    /// within `timeout` seconds. Once only.
    func waitUntilFinished(timeout: TimeInterval) -> Bool {
        finished.wait(timeout: .now() + timeout) == .success
    }

    private func run() {
        connect()
        var next = DispatchTime.now() + interval
        while !isStopped {
            sleep(until: next)
            guard !isStopped else { break }
            let now = DispatchTime.now()
            // Ticks keep their rhythm; one that came late is not made up.
            next = next + interval
            if next <= now { next = now + interval }
            tick()
        }
        disconnect()
        finished.signal()
    }

    private func tick() {
        guard connection != nil else {
            if DispatchTime.now() >= nextAttempt { connect() }
            return
        }
        readToken()
    }

    /// Sleeps until `time` or a stop; with a channel, signals each
    /// notification as it arrives.
    private func sleep(until time: DispatchTime) {
        let deadline = PostgresConnection.Deadline(time)
        while !isStopped {
            let milliseconds = deadline.milliseconds
            guard milliseconds > 0 else { return }
            // The wake-up descriptor, and the socket with a channel (a
            // negative descriptor is ignored by poll(2)); the buffer is the
            // poll's own, not made again at each tick.
            let socket = channel != nil ? connection?.socket ?? -1 : -1
            descriptors[0] = pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)
            descriptors[1] = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptors, 2, milliseconds)
            if ready == 0 { return }
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if descriptors[0].revents != 0 { wake.clear() }
            if socket >= 0, descriptors[1].revents != 0 { readNotifications() }
        }
    }

    // MARK: Connection

    private func connect() {
        do {
            // Interrupted by `stop()`: a path still frozen holds libpq
            // for `connect_timeout`, a server that refuses not at all.
            let connection = try PostgresConnection(connectionString, settings: settings, interruptedBy: wake)
            self.connection = connection
            try chooseMode(on: connection)
            if let channel {
                _ = try connection.execute("LISTEN \(Self.channelIdentifier(channel))", timeout: deadline)
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
    private static func mode(of connection: PostgresConnection, deadline: TimeInterval) throws -> TokenQuery {
        do {
            let result = try connection.execute("SELECT pg_is_in_recovery()", timeout: deadline)
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
                _ = try connection.execute(candidate.statement, timeout: deadline)
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
            let row = try connection.execute(mode.statement, timeout: deadline).rows.first ?? []
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
        mode = try Self.mode(of: connection, deadline: deadline)
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

    /// Signals once for the notifications that arrived on the socket.
    private func readNotifications() {
        guard let connection else { return }
        do {
            if try !connection.notifications().isEmpty { send(.changed) }
        } catch {
            lose(error)
        }
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
