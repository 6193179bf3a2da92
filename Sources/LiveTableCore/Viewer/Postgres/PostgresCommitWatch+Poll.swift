import Foundation
import PostgresClient
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// MARK: - The poll

/// The connection of a watch, polled on a thread of its own that sleeps in
/// poll(2) on a wake-up descriptor (to stop) and, with a channel, the socket
/// (a notification signals at once). Two wake-ups a tick, the least a timely
/// poll can make: most of the watch's idle cost (Docs/Performance.md).
///
/// The deadline cuts a poll unanswered within 20 intervals (at least 1 s): a
/// frozen path (a proxy or NAT that stopped forwarding while the kernel still
/// ACKs) would keep libpq waiting, and the screen "live" while commits go
/// unseen. The connection is then lost, and made again with backoff; that
/// attempt polls the wake-up descriptor too, so that `stop()` ends it.
// @unchecked Sendable: the connection and token state are confined to the
// poll's thread; `stopped` has its lock, `wake` is a descriptor, `finished`
// a semaphore.
final class CommitPoll: @unchecked Sendable {
    /// Chosen at each connection: the best the server offers the role.
    enum TokenQuery: Equatable {
        /// Changes when a commit becomes visible, never for a log write that
        /// commits nothing.
        case snapshot(function: String)
        /// Moves as a commit's record is written, before it is visible: the
        /// poll after a move signals again (`hasLogMoved`).
        case logPosition
        /// With `pg_is_in_recovery()`: a promoted standby keeps the session,
        /// and its replay position stops moving.
        case standby
        /// Every tick is a change; `SELECT 1` still tells a lost connection.
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
    let deadline: TimeInterval
    private let wake = WakeUpDescriptor()
        /// The wake-up descriptor and the socket; kept, not made at each tick.
    private var descriptors = [pollfd](repeating: pollfd(), count: 2)
    private let stopped = Mutex(false)
    private let finished = DispatchSemaphore(value: 0)

    private var connection: PostgresConnection?
    private var mode = TokenQuery.noToken(reason: "not connected")
    private var token: String?
    private var hasLogMoved = false
    private var isLost = false
    private var backoff: TimeInterval = 0
    private var nextAttempt = DispatchTime.now()

    static let backoffRange: ClosedRange<TimeInterval> = 0.1...2

    private let startGate: PostgresFirstScreenGate?

    init(connectionString: String, settings: [String: String], interval: TimeInterval,
         channel: String?, startGate: PostgresFirstScreenGate? = nil, send: @escaping (PostgresCommitWatch.Event) -> Void)
    {
        self.startGate = startGate
        self.connectionString = connectionString
        self.settings = settings
        self.interval = interval
        self.channel = channel
        self.send = send
        deadline = max(1, 20 * interval)
    }

    func start() {
        let thread = Thread { [self] in
            // Named from the thread itself: set before it starts, the name
            // does not reach the system's thread. Linux keeps 15 bytes.
            Thread.current.name = "pg-commit-watch"
            // Once connected, the watch signals a change: a commit made
            // meanwhile is read then.
            startGate?.wait()
            run()
        }
        thread.qualityOfService = .userInitiated
        thread.start()
    }

    /// From any thread; a statement that runs ends first (the deadline).
    func stop() {
        stopped.withLock { $0 = true }
        wake.signal()
    }

    private var isStopped: Bool {
        stopped.withLock { $0 }
    }

    /// Once only.
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

    private func sleep(until time: DispatchTime) {
        let deadline = PostgresConnection.Deadline(time)
        while !isStopped {
            let milliseconds = deadline.milliseconds
            guard milliseconds > 0 else { return }
            // A negative descriptor is ignored by poll(2).
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
            // Interrupted by `stop()`: a frozen path holds libpq for
            // `connect_timeout`.
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

    /// Each tried once: on a standby its replay position; on a primary its
    /// snapshot, else its log position, else none. A function missing (an
    /// engine that speaks the protocol) or revoked is a query error; the
    /// reason of `.noToken` is the snapshot's, the one to grant.
    private static func mode(of connection: PostgresConnection, deadline: TimeInterval) throws -> TokenQuery {
        do {
            let result = try connection.execute("SELECT pg_is_in_recovery()", timeout: deadline)
            if result.rows.first?.first == "t" { return .standby }
        } catch let error as PostgresError where error.kind == .query {
            // No such function: not a PostgreSQL standby, whatever else.
        }
        // `pg_current_snapshot()` is 13's name of `txid_current_snapshot()`.
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

    private func readToken(connecting: Bool = false) {
        guard let connection else { return }
        do {
            let row = try connection.execute(mode.statement, timeout: deadline).rows.first ?? []
            var changed = connecting
            switch mode {
            case .snapshot, .logPosition, .standby:
                let value = row.map { $0 ?? "" }.joined(separator: " ")
                let moved = value != token
                token = value
                changed = changed || moved
                if mode == .logPosition {
                    // A read made as the commit's record was written may have
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
            // The token's function revoked while polling: the next one down,
            // and a read meanwhile.
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

    private func readNotifications() {
        guard let connection else { return }
        do {
            if try !connection.notifications().isEmpty { send(.changed) }
        } catch {
            lose(error)
        }
    }

    static func quotedIdentifier(_ name: String) -> String {
        "\"" + name.replacing("\"", with: "\"\"") + "\""
    }

    /// Folded to lower case unless in double quotes, as SQL reads a name:
    /// `--listen Tracks` hears `NOTIFY Tracks` (folded to `tracks`).
    static func channelIdentifier(_ text: String) -> String {
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") {
            return quotedIdentifier(String(text.dropFirst().dropLast()).replacing("\"\"", with: "\""))
        }
        return quotedIdentifier(text.lowercased())
    }
}
