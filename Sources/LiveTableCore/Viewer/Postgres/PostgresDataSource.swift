import Foundation
import PostgresClient
import Synchronization

/// A PostgreSQL database as the viewer reads it (issue 19).
///
/// Every session is read-only by the server's own rule
/// (`default_transaction_read_only = on`): a query or filter that writes is
/// refused with PostgreSQL's message. Each read is one short `REPEATABLE
/// READ READ ONLY` transaction under a `statement_timeout`: one snapshot,
/// and no lock outlives it, so a writer's DDL waits one read at most.
///
/// Two connections: the screen's, and a background one (counts, search,
/// filter, the picker) so that a slow count never holds up the screen.
package final class PostgresDataSource: Sendable {
    package struct Settings: Equatable, Sendable {
        /// In seconds; 0: none.
        package var statementTimeout: TimeInterval
        /// A session left inside a transaction (the process stopped with ^Z
        /// mid-read) releases its snapshot after it.
        package let idleInTransactionTimeout: TimeInterval = 60
        /// Unless the connection string or `PGAPPNAME` gives one.
        package let applicationName = "livetable"
        /// Unless the connection string or `PGCONNECT_TIMEOUT` says.
        package let connectTimeout = 10
        package var pollInterval: TimeInterval = PostgresCommitWatch.defaultInterval
        /// `--listen`: writers that NOTIFY are shown without poll delay.
        package var listenChannel: String?
        /// How long the live windows trust the last schema check (a catalog
        /// query that costs more than a window): a change no window statement
        /// shows (a column added, an index) is seen within it.
        package var schemaCheckInterval: TimeInterval = 1
        /// Each kind of exact count takes at most this share of one server
        /// core while commits come (`PostgresCountPacing`).
        package let countShare = 0.01
        /// Between two exact counts of the same rows; an estimate in between.
        package var countMinimumPause: TimeInterval = 0.25

        /// The settings; `statementTimeout` is `livetable view`'s
        /// `--statement-timeout`.
        package init(statementTimeout: TimeInterval = 5) {
            self.statementTimeout = statementTimeout
        }

        /// Our server settings follow the string's own `options`; the connect
        /// timeout and keepalives only where the string sets none.
        package func connectionSettings(for connectionString: String) -> [String: String] {
            let given = (try? PostgresConnectionString(connectionString))?.options ?? [:]
            // A role or database may set standard_conforming_strings off, and
            // `'\''` would then be a quote where `SQLToken` reads `'\'` and `'`.
            var serverSettings = [
                "-c default_transaction_read_only=on",
                "-c standard_conforming_strings=on",
                "-c statement_timeout=\(Self.milliseconds(statementTimeout))",
            ] + Self.outputSettings
            if idleInTransactionTimeout > 0 {
                serverSettings.append("-c idle_in_transaction_session_timeout=\(Self.milliseconds(idleInTransactionTimeout))")
            }
            // PGOPTIONS is libpq's default `options`, which ours replace: it
            // comes first, as the string's own would.
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

        /// Pinned whatever the role or database set, so that values bind back
        /// as read: `SQL, DMY` printed `IST`, which reads back as Israel's; ISO
        /// prints the offset. Floats in exact digits.
        static let outputSettings = [
            "-c DateStyle=ISO",
            "-c IntervalStyle=postgres",
            "-c extra_float_digits=3",
            "-c bytea_output=hex",
            "-c lc_monetary=C",
        ]

        /// A network that drops the connection silently (a NAT entry expired)
        /// is found in about 10 s, not after two hours of keepalive silence. A
        /// path that ACKs but answers nothing is the commit watch's deadline's.
        static let networkSettings = [
            "keepalives": "1",
            "keepalives_idle": "5",
            "keepalives_interval": "2",
            "keepalives_count": "3",
            "tcp_user_timeout": "10000",
        ]

        /// At least 1 unless 0 (none).
        static func milliseconds(_ seconds: TimeInterval) -> Int {
            seconds <= 0 ? 0 : max(1, Int((seconds * 1000).rounded()))
        }
    }

    /// May hold a password: never shown; `name` is.
    package let connectionString: String
    package let settings: Settings
    /// "shop on db.example.com:5432": never a password.
    package let name: String
    let screen: PostgresReadSession
    let background: PostgresReadSession
    /// On a connection of its own, shared by the live windows.
    let commits: PostgresCommitWatch
    let schemaChecks: PostgresSchemaChecks
    let countPacing: PostgresCountPacing
    /// The count's and the commit watch's connections wait for the first screen.
    let firstScreen = PostgresFirstScreenGate()

    /// Loads libpq on another thread, for a data source opened soon after.
    package static func prepare() {
        PostgresConnection.prepare()
    }

    /// Connects the screen's connection at once, so that a wrong password
    /// or an unreachable server is said before the screen opens.
    package init(_ connectionString: String, settings: Settings = Settings()) throws {
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
            interval: settings.pollInterval, listen: settings.listenChannel, linger: 0.5, startGate: firstScreen)
    }
}

// MARK: - Connections

/// One connection, serving one read at a time.
final class PostgresReadSession: Sendable {
    /// Locked for a whole read.
    private let connection: Mutex<PostgresConnection?>
    /// Within a time (nil: `connect_timeout` per host), or until signalled.
    private let open: @Sendable (TimeInterval?, WakeUpDescriptor?) throws -> PostgresConnection
    private let statementTimeout: TimeInterval

    init(
        open: @escaping @Sendable (TimeInterval?, WakeUpDescriptor?) throws -> PostgresConnection,
        connection: PostgresConnection?, statementTimeout: TimeInterval)
    {
        self.open = open
        self.connection = Mutex(connection)
        self.statementTimeout = statementTimeout
    }

    /// Runs `body` in one read-only `REPEATABLE READ` transaction, rolled
    /// back at its end, cancelled on the server (`PQcancel`) if `ticket` is
    /// abandoned.
    ///
    /// A broken connection is opened again first, given up at once when the
    /// ticket is abandoned (a frozen path would hold the queued reads for
    /// `connect_timeout`). One that breaks during the read (a server
    /// restart) is opened again and the read run again once: a read has no
    /// effect to repeat.
    ///
    /// Each answer is awaited `answerTimeout(statementTimeout:)` at most: on
    /// a frozen path (a proxy that stops forwarding) the read fails within
    /// seconds rather than when `tcp_user_timeout` gives up. That read is
    /// not run again.
    ///
    /// `typedSQL`: the user's SQL may take session-level advisory locks,
    /// released after it.
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

    private func read<T>(
        _ current: inout PostgresConnection?, ticket: ReadTicket, statementTimeout: TimeInterval?, typedSQL: Bool,
        _ body: (PostgresReader) throws -> T) throws -> T
    {
        let connection = try usableConnection(&current, ticket: ticket, statementTimeout: statementTimeout)
        do {
            return try readOnce(on: connection, ticket: ticket, statementTimeout: statementTimeout, typedSQL: typedSQL, body)
        } catch let error as PostgresError where error.kind == .connection && connection.isAbandoned {
            // No answer by the deadline: the path may still be frozen, and
            // connecting again would wait as long while the screen's reads
            // queue. Dropped, the session ends when the path moves.
            current = nil
            throw error
        } catch let error as PostgresError where error.kind == .connection && !ticket.shouldStop {
            let reopened = try usableConnection(&current, ticket: ticket, statementTimeout: statementTimeout)
            return try readOnce(on: reopened, ticket: ticket, statementTimeout: statementTimeout, typedSQL: typedSQL, body)
        }
    }

    /// A server that is only slow answers with its own timeout error first.
    static let answerMargin: TimeInterval = 2

    /// nil when the statements have no timeout (an export's): the deadline
    /// catches an answer that will never come, never a slow statement.
    static func answerTimeout(statementTimeout: TimeInterval) -> TimeInterval? {
        statementTimeout > 0 ? statementTimeout + answerMargin : nil
    }

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
            // ROLLBACK, not COMMIT: what a function wrote despite READ ONLY is
            // undone. PostgreSQL 15 lets `lo_create` write in a read-only
            // transaction: `--query "SELECT lo_create(0)"` left a large object.
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

    /// ROLLBACK keeps the session-level advisory locks that typed SQL took:
    /// held, they would block the viewer's next reads and other sessions.
    private static let unlockSQL = "SELECT pg_advisory_unlock_all()"

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
    var holdsTypedSQL: Bool { isQuery || filter != nil }
}
