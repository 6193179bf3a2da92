import Foundation
import PostgresClient
import Synchronization

/// A PostgreSQL database as the viewer reads it (issue 19): the
/// `ViewerDataSource` of a `postgres://` URL or a libpq key/value string.
///
/// Every session is read-only by the server's own rule
/// (`default_transaction_read_only = on`), so that a `--query` or a filter
/// that writes is refused by PostgreSQL with its message; each read is one
/// short `REPEATABLE READ READ ONLY` transaction (its statements see one
/// snapshot, and no lock outlives it: a writer's DDL waits one read at
/// most), under a `statement_timeout`.
///
/// It holds two connections, each serving one read at a time: the screen's
/// (windows, opening a source, deleted rows) and a background one (counts,
/// search, filter, the picker), so that a slow count never holds up the
/// screen. A connection that broke (the server restarted) is reset when
/// next used; when the server is still away, the read throws an error of
/// kind `.transient`. A read's `ReadTicket` cancels its statement on the
/// server (libpq's `PQcancel`).
///
/// For example:
///
/// ```swift
/// let database = try PostgresDataSource("postgres://viewer@db.example.com/shop")
/// print(database.name) // shop on db.example.com:5432
/// let viewed = try database.open(.table("orders"), sortColumn: nil, descending: false, ticket: ReadTicket())
/// ```
public final class PostgresDataSource: Sendable {
    /// The settings of every session.
    public struct Settings: Equatable, Sendable {
        /// The server's `statement_timeout` of each statement, in seconds:
        /// a scan that takes longer fails, and says so. 0: none.
        public var statementTimeout: TimeInterval
        /// The server's `idle_in_transaction_session_timeout`, in
        /// seconds: a session left inside a transaction (the process
        /// stopped with ^Z mid-read) releases its snapshot after it.
        public let idleInTransactionTimeout: TimeInterval = 60
        /// The `application_name` of the sessions, unless the connection
        /// string or `PGAPPNAME` gives one (`pg_stat_activity` shows it).
        public let applicationName = "livetable"
        /// How long a connection attempt waits for the server, in seconds,
        /// unless the connection string or `PGCONNECT_TIMEOUT` says.
        public let connectTimeout = 10
        /// Seconds between two reads of the commit token (`--poll`):
        /// 50 ms by default (`PostgresCommitWatch`).
        public var pollInterval: TimeInterval = PostgresCommitWatch.defaultInterval
        /// A channel to LISTEN to (`--listen`), for writers that NOTIFY:
        /// their commits are shown without poll delay.
        public var listenChannel: String?
        /// The longest time, in seconds, that the live windows trust the
        /// last check of the table's schema (a query of the catalog that
        /// costs the server more than a window): a change that no window
        /// statement shows (a column added, an index) is seen within it
        /// (`PostgresSchemaChecks`).
        public var schemaCheckInterval: TimeInterval = 1
        /// How the exact counts are spaced (`PostgresCountPacing`): each
        /// kind (the rows, those before the selection) takes at most this
        /// share of one server core while commits come.
        public let countShare = 0.01
        /// The shortest time, in seconds, between two exact counts of the
        /// same rows; an estimate is given in between.
        public var countMinimumPause: TimeInterval = 0.25

        /// The settings; `statementTimeout` is `livetable view`'s
        /// `--statement-timeout`.
        ///
        /// For example:
        ///
        /// ```swift
        /// let settings = PostgresDataSource.Settings(statementTimeout: 30)
        /// ```
        public init(statementTimeout: TimeInterval = 5) {
            self.statementTimeout = statementTimeout
        }

        /// The libpq options of a session of `connectionString`
        /// (`PostgresConnection(_:settings:)`): the server settings in
        /// `options` (after the string's own `options`), the fallback
        /// application name, the connect timeout, TCP keepalives and
        /// `tcp_user_timeout` (`networkSettings`) unless the string has them.
        ///
        /// For example:
        ///
        /// ```swift
        /// let connection = try PostgresConnection(url, settings: settings.connectionSettings(for: url))
        /// ```
        public func connectionSettings(for connectionString: String) -> [String: String] {
            let given = (try? PostgresConnectionString(connectionString))?.options ?? [:]
            // standard_conforming_strings: a role or database may set it
            // off, and `'\''` would then be a quote in a string, where
            // the filter's check (`SQLToken`) reads `'\'` and a `'`.
            var serverSettings = [
                "-c default_transaction_read_only=on",
                "-c standard_conforming_strings=on",
                "-c statement_timeout=\(Self.milliseconds(statementTimeout))",
            ] + Self.outputSettings
            if idleInTransactionTimeout > 0 {
                serverSettings.append("-c idle_in_transaction_session_timeout=\(Self.milliseconds(idleInTransactionTimeout))")
            }
            // PGOPTIONS is libpq's default of `options`, which ours replace:
            // it comes first, as the string's own would.
            let own = given["options"] ?? ProcessInfo.processInfo.environment["PGOPTIONS"]
            var settings = [
                "options": ([own].compactMap { $0 } + serverSettings).joined(separator: " "),
                "fallback_application_name": applicationName,
            ]
            if given["connect_timeout"] == nil, ProcessInfo.processInfo.environment["PGCONNECT_TIMEOUT"] == nil {
                settings["connect_timeout"] = String(connectTimeout)
            }
            for (key, value) in Self.networkSettings where given[key] == nil {
                settings[key] = value
            }
            return settings
        }

        /// The output formats that values read are bound back in, pinned
        /// whatever the role or database set. `SQL, DMY` printed `IST`,
        /// which reads back as Israel's; ISO prints the offset (`+05:30`),
        /// and TimeZone stays the role's. Floats in their exact digits,
        /// intervals, bytea and money in forms their input reads back.
        static let outputSettings = [
            "-c DateStyle=ISO",
            "-c IntervalStyle=postgres",
            "-c extra_float_digits=3",
            "-c bytea_output=hex",
            "-c lc_monetary=C",
        ]

        /// TCP keepalives and `tcp_user_timeout`, unless the string sets
        /// them: a network that drops the connection without a word (a
        /// NAT entry expired, a cable pulled) is found in about 10 s by the
        /// kernel, rather than after its two hours of keepalive silence or
        /// its quarter of an hour of retransmissions. A path that still
        /// ACKs but answers nothing is the commit watch's deadline's
        /// (`CommitPoll`). Unix sockets ignore them.
        static let networkSettings = [
            "keepalives": "1",
            "keepalives_idle": "5",
            "keepalives_interval": "2",
            "keepalives_count": "3",
            "tcp_user_timeout": "10000",
        ]

        /// Seconds in whole milliseconds, at least 1 unless 0 (none).
        static func milliseconds(_ seconds: TimeInterval) -> Int {
            seconds <= 0 ? 0 : max(1, Int((seconds * 1000).rounded()))
        }
    }

    /// The connection string as given (it may hold a password: never
    /// shown; `name` is what is shown).
    public let connectionString: String
    /// The settings of every session.
    public let settings: Settings
    /// "shop on db.example.com:5432", or "shop on /var/run/postgresql":
    /// the database and where it is, never a password.
    public let name: String
    /// The connection of the screen's reads.
    let screen: PostgresReadSession
    /// The connection of the background reads.
    let background: PostgresReadSession
    /// The watch of the cluster's commits, on a connection of its own,
    /// shared by the live windows (`windows(of:_:)`).
    let commits: PostgresCommitWatch
    /// The last check of the schema of the source on screen, for the live
    /// windows.
    let schemaChecks: PostgresSchemaChecks
    /// When the exact counts may run again, and what they found.
    let countPacing: PostgresCountPacing

    /// Connects to the database of `connectionString` (the screen's
    /// connection at once, so that a wrong password or an unreachable
    /// server is said before the screen opens; the background one when
    /// first used).
    ///
    /// For example:
    ///
    /// ```swift
    /// let database = try PostgresDataSource("host=/var/run/postgresql dbname=shop", settings: .init(statementTimeout: 30))
    /// ```
    ///
    /// - throws: A `PostgresError` (`describe(_:)` says it in one line,
    ///   without the password).
    public init(_ connectionString: String, settings: Settings = Settings()) throws {
        self.connectionString = connectionString
        self.settings = settings
        let options = settings.connectionSettings(for: connectionString)
        let open = { @Sendable (timeout: TimeInterval?, interrupt: WakeUpDescriptor?) in
            try PostgresConnection(connectionString, settings: options, timeout: timeout, interruptedBy: interrupt)
        }
        let first = try open(nil, nil)
        name = first.displayName
        screen = PostgresReadSession(open: open, connection: first, statementTimeout: settings.statementTimeout)
        background = PostgresReadSession(open: open, connection: nil, statementTimeout: settings.statementTimeout)
        schemaChecks = PostgresSchemaChecks(interval: settings.schemaCheckInterval)
        countPacing = PostgresCountPacing(share: settings.countShare, minimumPause: settings.countMinimumPause)
        commits = PostgresCommitWatch(
            connectionString: connectionString, settings: options,
            interval: settings.pollInterval, listen: settings.listenChannel)
    }
}

// MARK: - Connections

/// One connection and the reads it serves, one at a time: each a
/// read-only transaction, reconnecting first when the connection broke,
/// canceled on the server when its ticket is abandoned.
final class PostgresReadSession: Sendable {
    /// Locked for a whole read: the channel serves one at a time.
    private let connection: Mutex<PostgresConnection?>
    /// Connects, within a time (nil: `connect_timeout` per host only), or
    /// until the descriptor is signalled.
    private let open: @Sendable (TimeInterval?, WakeUpDescriptor?) throws -> PostgresConnection
    /// The session's statement timeout, in seconds (0: none).
    private let statementTimeout: TimeInterval

    init(
        open: @escaping @Sendable (TimeInterval?, WakeUpDescriptor?) throws -> PostgresConnection,
        connection: PostgresConnection?, statementTimeout: TimeInterval)
    {
        self.open = open
        self.connection = Mutex(connection)
        self.statementTimeout = statementTimeout
    }

    /// Runs `body` in one read-only transaction (`REPEATABLE READ`: one
    /// snapshot for all its statements), rolled back at its end, cancelled on the server if
    /// `ticket` is abandoned, its statements stopped by the server when
    /// the ticket's time runs out.
    ///
    /// A connection found broken is opened again first, within the read's
    /// answer timeout, and at once given up when `ticket` is abandoned (a
    /// path still frozen would hold the read, and the reads queued behind
    /// it, for `connect_timeout`); one that breaks during the read (the
    /// server restarted since the last read) is opened again, and the read
    /// run again once: a read has no effect to repeat. A connection that
    /// could not be opened is not tried again in the same read.
    ///
    /// Each statement waits for the server's answer at most
    /// `answerTimeout(statementTimeout:)`: on a frozen network path (a
    /// proxy that stops forwarding while the kernel keeps the connection)
    /// the read fails within seconds, of kind `.connection` ("no answer
    /// from the server for 7 s"), rather than when `tcp_user_timeout`
    /// gives up, with the screen's reads queued behind it. That read is
    /// not run again: its connection is dropped, and opened again when
    /// next used.
    ///
    /// - parameter statementTimeout: The timeout of the statements of
    ///   this read, in seconds (0: none), instead of the session's.
    /// - parameter typedSQL: Whether the read runs SQL the user typed (a
    ///   query, a filter): its session-level advisory locks are released
    ///   after it.
    func read<T>(
        ticket: ReadTicket, statementTimeout: TimeInterval? = nil, typedSQL: Bool = false,
        _ body: (PostgresReader) throws -> T) throws -> T
    {
        try connection.withLock { current in
            // nonisolated(unsafe): the value goes back to the caller's thread, which made it.
            nonisolated(unsafe) let value = try read(&current, ticket: ticket, statementTimeout: statementTimeout, typedSQL: typedSQL, body)
            return value
        }
    }

    /// `read(ticket:statementTimeout:typedSQL:_:)` with `current`, the
    /// channel's connection, locked.
    private func read<T>(
        _ current: inout PostgresConnection?, ticket: ReadTicket, statementTimeout: TimeInterval?, typedSQL: Bool,
        _ body: (PostgresReader) throws -> T) throws -> T
    {
        // A connection that cannot be opened is not tried again.
        let connection = try usableConnection(&current, ticket: ticket, statementTimeout: statementTimeout)
        do {
            return try readOnce(on: connection, ticket: ticket, statementTimeout: statementTimeout, typedSQL: typedSQL, body)
        } catch let error as PostgresError where error.kind == .connection && connection.isAbandoned {
            // No answer by the deadline: the path may still be frozen, and
            // connecting again now would wait as long once more while the
            // screen's reads queue. Dropped now, the session ends on the
            // server as soon as the path moves.
            current = nil
            throw error
        } catch let error as PostgresError where error.kind == .connection && !ticket.shouldStop {
            let reopened = try usableConnection(&current, ticket: ticket, statementTimeout: statementTimeout)
            return try readOnce(on: reopened, ticket: ticket, statementTimeout: statementTimeout, typedSQL: typedSQL, body)
        }
    }

    /// How much longer than its statement timeout a read waits for the
    /// server's answer: a server that is only slow answers with its own
    /// timeout error first.
    static let answerMargin: TimeInterval = 2

    /// Seconds a read whose statements time out after `statementTimeout`
    /// (0: none) waits for each answer of the server, on our side: that
    /// plus `answerMargin`; nil (as long as the connection lasts) when the
    /// statements have no timeout, as an export's: the deadline only
    /// catches an answer that will never come, never a slow statement.
    static func answerTimeout(statementTimeout: TimeInterval) -> TimeInterval? {
        statementTimeout > 0 ? statementTimeout + answerMargin : nil
    }

    /// The statement timeout of a read now (the read's, or the
    /// session's, within the ticket's time left), and how long it waits
    /// for each answer.
    private func timeouts(
        ticket: ReadTicket, statementTimeout: TimeInterval?) -> (statement: TimeInterval, answer: TimeInterval?)
    {
        var timeout = statementTimeout ?? self.statementTimeout
        if let remaining = ticket.remainingTime {
            // At least a millisecond: 0 would be no timeout at all.
            timeout = max(0.001, timeout > 0 ? min(timeout, remaining) : remaining)
        }
        return (timeout, Self.answerTimeout(statementTimeout: timeout))
    }

    private func readOnce<T>(
        on connection: PostgresConnection, ticket: ReadTicket, statementTimeout: TimeInterval?, typedSQL: Bool,
        _ body: (PostgresReader) throws -> T) throws -> T
    {
        let (timeout, answerTimeout) = timeouts(ticket: ticket, statementTimeout: statementTimeout)
        guard ticket.setRunning(interrupt: { connection.cancel() }) else {
            throw PostgresError(kind: .canceled, message: "canceled")
        }
        defer { _ = ticket.setRunning(interrupt: nil) }
        _ = try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", timeout: answerTimeout)
        do {
            if timeout != self.statementTimeout {
                // SET takes no parameter; the number is ours.
                _ = try connection.execute(
                    "SET LOCAL statement_timeout = \(PostgresDataSource.Settings.milliseconds(timeout))",
                    timeout: answerTimeout)
            }
            let value = try body(PostgresReader(connection, answerTimeout: answerTimeout))
            // ROLLBACK, not COMMIT: a read has nothing to keep, and what a
            // function wrote despite READ ONLY is undone. PostgreSQL 15
            // lets `lo_create` write in a read-only transaction (refused
            // from 16 on): `--query "SELECT lo_create(0)"` left a large
            // object behind.
            _ = try connection.execute("ROLLBACK", timeout: answerTimeout)
            if typedSQL { _ = try connection.execute(Self.unlockSQL, timeout: answerTimeout) }
            return value
        } catch {
            if connection.status == .ok {
                _ = try? connection.execute("ROLLBACK", timeout: answerTimeout)
                if typedSQL { _ = try? connection.execute(Self.unlockSQL, timeout: answerTimeout) }
            }
            throw error
        }
    }

    /// ROLLBACK keeps the session-level advisory locks that typed SQL took
    /// (`pg_advisory_lock(4242)` in a filter): held, they would block the
    /// viewer's own next reads and any other session that asks for them.
    private static let unlockSQL = "SELECT pg_advisory_unlock_all()"

    /// The connection, opened again if there is none or it is not usable,
    /// within the read's answer timeout, and interrupted if `ticket` is
    /// abandoned.
    private func usableConnection(
        _ connection: inout PostgresConnection?, ticket: ReadTicket, statementTimeout: TimeInterval?) throws -> PostgresConnection
    {
        if let connection, connection.status == .ok { return connection }
        // A reset is the same attempt as a new connection (PostgresClient):
        // a new one is opened instead, so that it can be bounded.
        connection = nil
        let interrupt = WakeUpDescriptor()
        guard ticket.setRunning(interrupt: { interrupt.signal() }) else {
            throw PostgresError(kind: .canceled, message: "canceled")
        }
        defer { _ = ticket.setRunning(interrupt: nil) }
        let opened = try open(timeouts(ticket: ticket, statementTimeout: statementTimeout).answer, interrupt)
        connection = opened
        return opened
    }
}

extension RowSource {
    /// Whether reading the source runs SQL the user typed: a query's, a
    /// filter's.
    var holdsTypedSQL: Bool { isQuery || filter != nil }
}
