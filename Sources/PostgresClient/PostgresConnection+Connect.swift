import CLibPQ
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Connecting

/// One connection attempt, made libpq's non-blocking way (`PQconnectStartParams`, then
/// `PQconnectPoll` as poll(2) finds the socket ready), so that a deadline bounds it and a descriptor
/// interrupts it: a reconnection through a frozen path must not hold for the 10 s of `connect_timeout`
/// a thread asked to stop.
struct ConnectAttempt {
    /// How an attempt ended. (Not an Error: a libpq connection is not
    /// Sendable, and never leaves the thread that made it here.)
    enum Outcome {
        case connected(OpaquePointer)
        /// libpq gave up: the connection to read the error of and to
        /// release (nil: out of memory), with what libpq said of the hosts
        /// given up on before it, and whether its own host timed out.
        case refused(OpaquePointer?, earlier: String, timedOut: Bool)
        case deadlinePassed(PostgresConnection.Deadline)
        case interrupted
        case exiting
        /// poll(2) failed with this `errno` (not EINTR, which is retried).
        case pollFailed(Int32)
    }

    private enum End {
        case connected, failed, deadlinePassed, hostTimedOut, interrupted, exiting
        case pollFailed(Int32)
    }

    /// What libpq tries: a change restarts the time `connect_timeout`
    /// bounds. Not the socket, whose number libpq often reuses as it moves
    /// on.
    private struct Reached: Equatable {
        var host: String
        var port: String
        var address: String
    }

    private let deadline: PostgresConnection.Deadline?
    private let interrupt: WakeUpDescriptor?
    /// The passwords libpq used (given, or read from `~/.pgpass`), to cut
    /// out of messages.
    private(set) var passwords: [String] = []
    private var earlier = ""
    private var descriptors = [pollfd](repeating: pollfd(), count: 3)

    init(deadline: PostgresConnection.Deadline?, interrupt: WakeUpDescriptor?) {
        self.deadline = deadline
        self.interrupt = interrupt
    }

    /// Connects with libpq's keywords and values, a connection string
    /// given as `dbname` read as one (PQconnectdbParams's `expand_dbname`).
    mutating func run(_ pairs: [(String, String)]) -> Outcome {
        var pairs = pairs
        var expand: Int32 = 1
        // The options libpq settled on at the first timeout (the string
        // already parsed), and its full lists of hosts: every restart is
        // made from them, less the entries that timed out.
        var settled: (options: [(String, String)], hosts: HostEntries)?
        var timedOut = Set<Int>()
        while true {
            let connection = Self.start(pairs, expandingDatabaseName: expand)
            guard let connection else { return .refused(nil, earlier: earlier, timedOut: false) }
            let end = drive(connection)
            if let used = PQpass(connection) { passwords.append(String(cString: used)) }
            switch end {
            case .connected:
                return .connected(connection)
            case .failed:
                return .refused(connection, earlier: earlier, timedOut: false)
            case .deadlinePassed:
                PQfinish(connection)
                return .deadlinePassed(deadline ?? .init(seconds: 0))
            case .interrupted:
                PQfinish(connection)
                return .interrupted
            case let .pollFailed(code):
                PQfinish(connection)
                return .pollFailed(code)
            case .exiting:
                // Left as the gate's close leaves a statement: PQfinish
                // ends an SSL session with OpenSSL, about to be freed.
                return .exiting
            case .hostTimedOut:
                let (options, hosts) = settled ?? {
                    let options = Self.options(of: connection)
                    return (options, HostEntries(options))
                }()
                settled = (options, hosts)
                let current = hosts.index(
                    ofHost: PQhost(connection).map { String(cString: $0) } ?? "",
                    port: PQport(connection).map { String(cString: $0) } ?? "",
                    address: PQhostaddr(connection).map { String(cString: $0) } ?? "",
                    defaultPort: Self.defaultPort, skipping: timedOut)
                guard let current else { return .refused(connection, earlier: earlier, timedOut: true) }
                timedOut.insert(current)
                guard let remaining = hosts.options(options, without: timedOut) else {
                    return .refused(connection, earlier: earlier, timedOut: true)
                }
                earlier += Self.errorMessage(of: connection) + "timeout expired\n"
                PQfinish(connection)
                pairs = remaining
                expand = 0
            }
        }
    }

    private static func start(_ pairs: [(String, String)], expandingDatabaseName expand: Int32) -> OpaquePointer? {
        let keywords = pairs.map { strdup($0.0) }
        let values = pairs.map { strdup($0.1) }
        defer { (keywords + values).forEach { free($0) } }
        let keywordArray = keywords.map { UnsafePointer($0) } + [nil]
        let valueArray = values.map { UnsafePointer($0) } + [nil]
        return PQconnectStartParams(keywordArray, valueArray, expand)
    }

    private mutating func drive(_ connection: OpaquePointer) -> End {
        guard PQstatus(connection) != CONNECTION_BAD else { return .failed }
        let hostTimeout = Self.connectTimeout(of: connection)
        // libpq's manual: at first, as if PQconnectPoll had said WRITING.
        var polling = PGRES_POLLING_WRITING
        var reached: Reached?
        var hostDeadline: PostgresConnection.Deadline?
        while true {
            if polling == PGRES_POLLING_OK { return .connected }
            if polling == PGRES_POLLING_FAILED { return .failed }
            let socket = PQsocket(connection)
            guard socket >= 0 else { return .failed }
            let now = Reached(
                host: PQhost(connection).map { String(cString: $0) } ?? "",
                port: PQport(connection).map { String(cString: $0) } ?? "",
                address: PQhostaddr(connection).map { String(cString: $0) } ?? "")
            if now != reached {
                reached = now
                hostDeadline = hostTimeout.map { .init(seconds: $0) }
            }
            // At each round, not only when poll(2) times out: a socket
            // that stays ready must not keep the attempt past them.
            if deadline?.hasPassed == true { return .deadlinePassed }
            if hostDeadline?.hasPassed == true { return .hostTimedOut }
            let wait = PostgresConnection.Deadline.earliest(deadline, hostDeadline)
            let events = polling == PGRES_POLLING_READING ? POLLIN : POLLOUT
            descriptors[0] = pollfd(fd: socket, events: Int16(events), revents: 0)
            // A negative descriptor (no interrupt) is ignored by poll(2).
            descriptors[1] = pollfd(fd: interrupt?.descriptor ?? -1, events: Int16(POLLIN), revents: 0)
            // The exit must not wait for an attempt that may take
            // `connect_timeout`: the gate's own wake-up ends it.
            descriptors[2] = pollfd(fd: ProcessExitGate.shared.closing.descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptors, 3, wait?.milliseconds ?? -1)
            if ready < 0 {
                // Anything but a signal (EINTR) is no wait at all: calling
                // PQconnectPoll again would spin.
                if errno == EINTR { continue }
                return .pollFailed(errno)
            }
            if ready > 0, descriptors[1].revents != 0 { return .interrupted }
            if ready > 0, descriptors[2].revents != 0 { return .exiting }
            // Timed out: the round's start says which deadline passed.
            if ready == 0 { continue }
            // Ready, or in error (POLLERR, POLLHUP): libpq's read or write
            // says how.
            polling = PQconnectPoll(connection)
        }
    }

    // MARK: Options

    private static func options(of connection: OpaquePointer) -> [(String, String)] {
        LibPQ.options(PQconninfo(connection)).compactMap { option in option.value.map { (option.keyword, $0) } }
    }

    /// `connect_timeout` as libpq 15's blocking connect applies it: none
    /// when absent, unreadable or not above 0, and at least 2 s
    /// ("rounding could cause connection to fail unexpectedly quickly").
    static func connectTimeout(of connection: OpaquePointer) -> TimeInterval? {
        guard let text = options(of: connection).first(where: { $0.0 == "connect_timeout" })?.1,
              let seconds = Int(text.trimmingCharacters(in: .whitespaces)), seconds > 0 else { return nil }
        return TimeInterval(max(2, seconds))
    }

    /// The port libpq gives an empty entry of a `port` list: its compiled-in default, not `PGPORT`.
    /// Read once: libpq is loaded by then (a connection attempt runs).
    static let defaultPort: String =
        LibPQ.options(PQconndefaults()).first { $0.keyword == "port" }?.compiled ?? "5432"

    static func errorMessage(of connection: OpaquePointer?) -> String {
        connection.flatMap { PQerrorMessage($0).map { String(cString: $0) } } ?? "out of memory\n"
    }
}

extension PostgresConnection {
    /// Loads libpq on another thread: called at the start of a process
    /// that is about to connect (`livetable view postgres://…`), it
    /// overlaps the load with the process's own start.
    package static func prepare() {
        LibPQ.loadInBackground()
    }
}
