import CLibPQ
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Connecting

/// One connection attempt, made libpq's non-blocking way
/// (`PQconnectStartParams`, then `PQconnectPoll` each time poll(2) finds
/// the socket ready, as `PQconnectdbParams` does inside), so that a
/// deadline bounds it and a descriptor made readable interrupts it: a
/// reconnection through a frozen network path must not hold a thread that
/// is asked to stop for the 10 s of `connect_timeout`.
///
/// libpq still does the work: it walks the hosts of a multi-host string,
/// checks `target_session_attrs`, reads `~/.pgpass`. The socket changes as
/// it moves from one address or host to the next, so it is read again at
/// each round. What it leaves to its caller is `connect_timeout`, which
/// `PQconnectPoll` ignores ("it is the application's responsibility to
/// decide whether an excessive amount of time has elapsed", libpq's
/// manual). It bounds each host here, from when the attempt reaches it, as
/// in libpq's blocking connect, which then tries the next one.
/// `PQconnectPoll` cannot be told to move on, so the attempt starts again
/// with the hosts that follow, and keeps libpq's message for the host
/// that timed out. (libpq times each address of a host name; the public
/// API shows hosts only, so here the addresses of a host share its time.)
/// A host name is still resolved inside libpq, blocking: give `hostaddr`
/// where a slow resolver must not hold the attempt.
///
/// The process's exit ends an attempt too (``ProcessExitGate``): nothing
/// to cancel on a server yet, and it must not hold the exit.
struct ConnectAttempt {
    /// How an attempt ended. (Not an Error: a libpq connection is not
    /// Sendable, and never leaves the thread that made it here.)
    enum Outcome {
        /// Connected.
        case connected(OpaquePointer)
        /// libpq gave up: the connection to read the error of and to
        /// release (nil: out of memory), with what libpq said of the hosts
        /// given up on before it, and whether its own host timed out.
        case refused(OpaquePointer?, earlier: String, timedOut: Bool)
        /// The attempt's deadline passed.
        case deadlinePassed(PostgresConnection.Deadline)
        /// The interrupt descriptor was signalled.
        case interrupted
        /// The process exits (``ProcessExitGate``).
        case exiting
    }

    /// How one libpq connection's attempt ended.
    private enum End {
        case connected, failed, deadlinePassed, hostTimedOut, interrupted, exiting
    }

    /// Where the attempt stands: a change restarts the host's time.
    private struct Reached: Equatable {
        var host: String
        var port: String
        var socket: Int32
    }

    private let deadline: PostgresConnection.Deadline?
    /// Kept alive during the attempt, whose poll(2) watches it.
    private let interrupt: WakeUpDescriptor?
    /// The passwords libpq used (given, or read from `~/.pgpass`), to cut
    /// out of messages.
    private(set) var passwords: [String] = []
    /// libpq's messages for the hosts given up on, one per line.
    private var earlier = ""
    /// The socket, the interrupt and the exit, for poll(2).
    private var descriptors = [pollfd](repeating: pollfd(), count: 3)

    /// - parameter interrupt: Signalled, it abandons the attempt.
    init(deadline: PostgresConnection.Deadline?, interrupt: WakeUpDescriptor?) {
        self.deadline = deadline
        self.interrupt = interrupt
    }

    /// Connects with libpq's keywords and values, a connection string
    /// given as `dbname` read as one (PQconnectdbParams's `expand_dbname`).
    mutating func run(_ pairs: [(String, String)]) -> Outcome {
        var pairs = pairs
        var expand: Int32 = 1
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
            case .exiting:
                // Left as the gate's close leaves a statement: PQfinish
                // ends an SSL session with OpenSSL, about to be freed.
                return .exiting
            case .hostTimedOut:
                guard let following = Self.followingHosts(of: connection) else {
                    return .refused(connection, earlier: earlier, timedOut: true)
                }
                earlier += Self.errorMessage(of: connection) + "timeout expired\n"
                PQfinish(connection)
                // The options libpq settled on, the string already parsed.
                pairs = following
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

    /// Calls PQconnectPoll as the socket is ready, until libpq is done, a
    /// deadline passes, or the interrupt comes.
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
                socket: socket)
            if now != reached {
                reached = now
                hostDeadline = hostTimeout.map { .init(seconds: $0) }
            }
            let wait = PostgresConnection.Deadline.earliest(deadline, hostDeadline)
            let events = polling == PGRES_POLLING_READING ? POLLIN : POLLOUT
            descriptors[0] = pollfd(fd: socket, events: Int16(events), revents: 0)
            // A negative descriptor (no interrupt) is ignored by poll(2).
            descriptors[1] = pollfd(fd: interrupt?.descriptor ?? -1, events: Int16(POLLIN), revents: 0)
            // The exit must not wait for an attempt that may take
            // `connect_timeout`: the gate's own wake-up ends it.
            descriptors[2] = pollfd(fd: ProcessExitGate.shared.closing.descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptors, 3, wait?.milliseconds ?? -1)
            if ready < 0, errno == EINTR { continue }
            if ready > 0, descriptors[1].revents != 0 { return .interrupted }
            if ready > 0, descriptors[2].revents != 0 { return .exiting }
            if ready == 0 {
                if deadline?.hasPassed == true { return .deadlinePassed }
                if hostDeadline?.hasPassed == true { return .hostTimedOut }
                continue
            }
            // Ready, or poll(2) failed: libpq's read or write says how.
            polling = PQconnectPoll(connection)
        }
    }

    // MARK: Options

    /// The options libpq settled on for `connection` (the string's, the
    /// settings, the `PG*` variables, a service file's, the defaults).
    private static func options(of connection: OpaquePointer) -> [(String, String)] {
        guard let options = PQconninfo(connection) else { return [] }
        defer { PQconninfoFree(options) }
        var pairs: [(String, String)] = []
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val {
                pairs.append((String(cString: keyword), String(cString: value)))
            }
            option += 1
        }
        return pairs
    }

    /// `connect_timeout` as libpq 15's blocking connect applies it: none
    /// when absent, unreadable or not above 0, and at least 2 s
    /// ("rounding could cause connection to fail unexpectedly quickly").
    static func connectTimeout(of connection: OpaquePointer) -> TimeInterval? {
        guard let text = options(of: connection).first(where: { $0.0 == "connect_timeout" })?.1,
              let seconds = Int(text.trimmingCharacters(in: .whitespaces)), seconds > 0 else { return nil }
        return TimeInterval(max(2, seconds))
    }

    /// The options of `connection` with only the hosts after the one it
    /// tries, or nil when it is the last (or cannot be told among them).
    /// libpq splits `host`, `hostaddr` and `port` at commas, without
    /// escapes; a single `port` serves every host.
    private static func followingHosts(of connection: OpaquePointer) -> [(String, String)]? {
        let options = options(of: connection)
        func list(_ keyword: String) -> [Substring] {
            let value = options.first { $0.0 == keyword }?.1 ?? ""
            return value.split(separator: ",", omittingEmptySubsequences: false)
        }
        let hosts = list("host"), addresses = list("hostaddr"), ports = list("port")
        let count = max(hosts.count, addresses.count)
        // PQhost: the host's name as given, else its address.
        let host = PQhost(connection).map { String(cString: $0) } ?? ""
        let port = PQport(connection).map { String(cString: $0) } ?? ""
        let current = (0..<count).first { index in
            let name = index < hosts.count && !hosts[index].isEmpty
                ? hosts[index] : index < addresses.count ? addresses[index] : ""
            return name == host && (ports.count != count || ports[index] == port)
        }
        guard let current, current + 1 < count else { return nil }
        func following(_ values: [Substring]) -> String? {
            values.count == count ? values[(current + 1)...].joined(separator: ",") : nil
        }
        let replaced = ["host": following(hosts), "hostaddr": following(addresses), "port": following(ports)]
        return options.map { keyword, value in (keyword, replaced[keyword].flatMap { $0 } ?? value) }
    }

    /// libpq's message so far for `connection`.
    static func errorMessage(of connection: OpaquePointer?) -> String {
        connection.flatMap { PQerrorMessage($0).map { String(cString: $0) } } ?? "out of memory\n"
    }
}
