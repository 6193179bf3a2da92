import CLibPQ
import Foundation
import Synchronization

/// A connection to a PostgreSQL server, through libpq.
/// Synchronous, as a GRDB connection is: each call blocks until the server answers, and calls from
/// several threads are serialised. ``cancel()`` is the exception, from any thread.
package final class PostgresConnection: Sendable {
    package enum Status: Sendable, Equatable {
        case ok
        /// The connection broke (server restarted, network down): calls
        /// fail until ``PostgresConnection/reset()`` succeeds.
        case bad
    }

    /// The libpq connection and what goes with it.
    // @unchecked Sendable: libpq's PGconn is not thread-safe, and is only
    // used under `link`.
    struct Link: @unchecked Sendable {
        /// A new one after ``reset()``.
        var connection: OpaquePointer
        /// How many times ``reset()`` replaced `connection`. An attempt
        /// that finds it changed since it started was overtaken by another
        /// reset, and leaves the newer connection be.
        var generation = 0
        /// True once a statement's answer did not come by its deadline: the
        /// connection is mid-statement for good.
        var abandoned = false
        /// The passwords this connection used, cut out of every message
        /// (``reset()`` may read `~/.pgpass` again).
        var secrets: Secrets
        /// The thread whose ``forEachRow(_:_:timeout:columns:_:)`` body
        /// runs, in the statement's turn: a statement it starts is refused
        /// rather than left to wait for itself.
        var streamingThread: pthread_t?
    }

    /// Held for each libpq call, or each wait for the server, and for each
    /// fact read. A forEachRow body runs out of it, so that it may read
    /// the facts.
    let link: Mutex<Link>
    /// Held for a whole statement, a forEachRow body included, before
    /// `link`: libpq takes no statement before the last result of the one
    /// that runs. The statements of other threads wait for their turn.
    private let statementTurn = Mutex(())
    /// The cancel object and the socket, which callers read while a
    /// statement runs, hence out of `link`.
    let side: SideState
    /// libpq's keywords and values of the connection, for ``reset()``.
    private let options: [(String, String)]
    /// Whether ``reset()`` must cut the string given as a whole out of
    /// messages (one that did not parse).
    private let unparsedConnectionString: String?

    package init(
        _ connectionString: String, settings: [String: String] = [:],
        timeout: TimeInterval? = nil, interruptedBy interrupt: WakeUpDescriptor? = nil) throws
    {
        try LibPQ.load()
        let parsed = try? PostgresConnectionString.parse(connectionString)
        let passwords = [parsed?["password"], settings["password"],
                         ProcessInfo.processInfo.environment["PGPASSWORD"]].compactMap { $0 }
        // libpq processes keywords in order, the last one winning: the
        // encoding may be overridden by the string, the settings override it.
        let options = [("client_encoding", "UTF8"), ("dbname", connectionString)]
            + settings.sorted { $0.key < $1.key }
        let unparsed = parsed == nil ? connectionString : nil
        var attempt = ConnectAttempt(deadline: timeout.map { Deadline(seconds: $0) }, interrupt: interrupt)
        let outcome = try ProcessExitGate.shared.pass(nil) { attempt.run(options) }
        let secrets = Secrets(passwords: passwords + attempt.passwords, unparsedConnectionString: unparsed)
        let connection = try Self.connection(from: outcome, secrets: secrets)
        Self.quiet(connection)
        link = Mutex(Link(connection: connection, secrets: secrets))
        self.options = options
        unparsedConnectionString = unparsed
        side = SideState(connection)
    }

    deinit {
        side.close()
        let connection = link.withLock { $0.connection }
        ProcessExitGate.shared.passIfOpen { PQfinish(connection) }
    }

    private static func connection(
        from outcome: ConnectAttempt.Outcome, secrets: Secrets) throws -> OpaquePointer
    {
        switch outcome {
        case let .connected(connection):
            return connection
        case let .refused(connection, earlier, timedOut):
            let error = failure(of: connection, earlier: earlier, timedOut: timedOut, secrets: secrets)
            ProcessExitGate.shared.passIfOpen { PQfinish(connection) }
            throw error
        case .deadlinePassed, .interrupted, .exiting, .pollFailed:
            throw unfinished(outcome)
        }
    }

    private static func unfinished(_ outcome: ConnectAttempt.Outcome) -> PostgresError {
        switch outcome {
        case let .deadlinePassed(deadline):
            return PostgresError(
                kind: .connection,
                message: "no connection to the server in \(String(format: "%g", deadline.seconds)) s")
        case .interrupted:
            return PostgresError(kind: .canceled, message: "the connection attempt was interrupted")
        case let .pollFailed(code):
            return PostgresError(
                kind: .connection,
                message: "the connection attempt failed: poll(2): \(String(cString: strerror(code)))")
        case .exiting, .connected, .refused:
            return PostgresError(kind: .connection, message: "the process is exiting")
        }
    }

    /// libpq prints the server's notices ("table does not exist, skipping") on stderr, which would
    /// write over a terminal screen: they are dropped.
    private static func quiet(_ connection: OpaquePointer) {
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
    }

    /// A failed connection's error, after libpq's messages for the hosts
    /// given up on before it; a missing password said plainly.
    private static func failure(
        of connection: OpaquePointer?, earlier: String = "", timedOut: Bool = false,
        secrets: Secrets) -> PostgresError
    {
        let message = earlier + ConnectAttempt.errorMessage(of: connection) + (timedOut ? "timeout expired" : "")
        var error = PostgresError.connectionFailure(message: message, secrets: secrets)
        if let connection, PQconnectionNeedsPassword(connection) != 0 {
            let user = PQuser(connection).map { String(cString: $0) } ?? ""
            error.kind = .authentication
            error.sqlState = "28P01"
            error.message = secrets.scrub(
                "no password supplied for user \"\(user)\": the server asks for one "
                + "(give it in the URL, PGPASSWORD or ~/.pgpass)")
        }
        return error
    }

    // MARK: - Status

    /// Whether the connection is usable: `.bad` once broken, or left
    /// mid-statement by a timeout. Waits for the libpq call that runs.
    package var status: Status {
        link.withLock { PQstatus($0.connection) == CONNECTION_OK && !$0.abandoned ? .ok : .bad }
    }

    /// Whether a statement's answer did not come by its deadline: the connection is left mid-statement,
    /// ``Status/bad`` until ``reset()``. Unlike a broken one, its path may still be frozen: reconnecting
    /// at once would wait out the connect timeout.
    package var isAbandoned: Bool {
        link.withLock { $0.abandoned }
    }

    /// Closes the connection and opens it again with the same options (libpq tries every host again).
    package func reset(timeout: TimeInterval? = nil, interruptedBy interrupt: WakeUpDescriptor? = nil) throws {
        try refuseWhileStreaming()
        var attempt = ConnectAttempt(deadline: timeout.map { Deadline(seconds: $0) }, interrupt: interrupt)
        let started = link.withLock { $0.generation }
        // Out of the locks: the attempt touches no state of this object,
        // and may take `connect_timeout` per host.
        let outcome = try ProcessExitGate.shared.pass(nil) { attempt.run(options) }
        // In a statement's turn: a stream of another thread keeps its
        // connection to the end.
        try withTurn { try link.withLock { try replace(&$0, after: outcome, started: started, attempt.passwords) } }
    }

    private func replace(
        _ link: inout Link, after outcome: ConnectAttempt.Outcome, started: Int, _ passwords: [String]) throws
    {
        link.secrets = Secrets(
            passwords: link.secrets.passwords + passwords,
            unparsedConnectionString: unparsedConnectionString)
        let replacement: OpaquePointer?
        var failure: PostgresError?
        switch outcome {
        case let .connected(connection):
            replacement = connection
            Self.quiet(connection)
        case let .refused(connection, earlier, timedOut):
            replacement = connection
            failure = Self.failure(of: connection, earlier: earlier, timedOut: timedOut, secrets: link.secrets)
        case .deadlinePassed, .interrupted, .exiting, .pollFailed:
            replacement = nil
            failure = Self.unfinished(outcome)
        }
        // Another reset put its connection in since this attempt
        // started: that newer one stays, whatever this attempt got (a
        // refusal must not replace a connection that works).
        if let replacement, link.generation != started {
            ProcessExitGate.shared.passIfOpen { PQfinish(replacement) }
        } else if let replacement {
            // What PQreset leaves: the old session closed, and a
            // connection that works or says why not. Out of memory,
            // the old one stays.
            let old = link.connection
            ProcessExitGate.shared.passIfOpen { PQfinish(old) }
            link.connection = replacement
            link.generation += 1
            link.abandoned = false
            side.renew(replacement)
        }
        if let failure { throw failure }
    }

    // MARK: - Connection facts

    /// The host the connection reached: a name, an address, or a Unix socket directory.
    package var host: String { fact(PQhost) }
    package var port: String { fact(PQport) }
    package var databaseName: String { fact(PQdb) }
    package var user: String { fact(PQuser) }
    /// The server's version as a number: 150004 for 15.4.
    package var serverVersion: Int { withConnection { Int(PQserverVersion($0)) } }
    /// The server process serving this connection (`pg_backend_pid()`), as
    /// ``PostgresNotification/processID`` reports a notifier.
    package var processID: Int32 { withConnection { PQbackendPID($0) } }

    /// A setting the server reports to every client on its own (`server_version`, `in_hot_standby`,
    /// `TimeZone`…), or nil.
    package func parameterStatus(_ name: String) -> String? {
        withConnection { PQparameterStatus($0, name).map { String(cString: $0) } }
    }

    /// Whether the server is a hot standby, which accepts only reads; nil
    /// before PostgreSQL 14, which does not report it.
    package var isInHotStandby: Bool? {
        parameterStatus("in_hot_standby").map { $0 == "on" }
    }

    package var displayName: String {
        PostgresConnectionString(host: host, port: port, databaseName: databaseName, user: user)
            .displayName
    }

    private func fact(_ read: (OpaquePointer) -> UnsafeMutablePointer<CChar>?) -> String {
        withConnection { read($0).map { String(cString: $0) } ?? "" }
    }

    // MARK: - Cancel

    /// Asks the server, from any thread, to stop the running statement, which then throws `.canceled`.
    /// Returns at once: the request is sent from the library's queue (see `SideState`).
    package func cancel() {
        side.cancel(markingCanceled: true)
    }

    /// The connection's socket, to wait on for notifications (a
    /// `DispatchSource.makeReadSource`) without a statement. Changes after
    /// ``reset()``.
    package var socket: Int32 { side.socket }

    // MARK: - The locks

    /// Runs `body`, which reads the libpq connection without talking to
    /// the server.
    func withConnection<T: Sendable>(_ body: (OpaquePointer) -> T) -> T {
        link.withLock { body($0.connection) }
    }

    /// Runs `body` in a statement's turn: after the statement that runs on
    /// another thread. From a forEachRow body it is refused, rather than
    /// wait for the turn that its own stream holds.
    func withTurn<T>(_ body: () throws -> T) throws -> T {
        try refuseWhileStreaming()
        return try statementTurn.withLock { _ in try body() }
    }

    private func refuseWhileStreaming() throws {
        let thread = pthread_self()
        let isStreaming = link.withLock { link in
            link.streamingThread.map { pthread_equal($0, thread) != 0 } ?? false
        }
        if isStreaming {
            throw PostgresError(
                kind: .usage,
                message: "the connection is busy streaming rows: run this statement on another connection")
        }
    }

    /// Runs `body`, a statement, in its turn, unless the process exits
    /// (`ProcessExitGate`). It takes `link` for each libpq call.
    func withServer<T>(_ body: () throws -> T) throws -> T {
        try withTurn { try ProcessExitGate.shared.pass(side, body) }
    }
}

extension PostgresConnectionString {
    init(host: String, port: String, databaseName: String, user: String) {
        self.host = host
        self.port = port
        self.databaseName = databaseName
        self.user = user
        options = ["host": host, "port": port, "dbname": databaseName, "user": user]
    }
}

// MARK: - Side state

/// What a connection's callers reach while a statement runs: the cancel object, whether the
/// statement was canceled on request, and the socket. A cancel is sent from a queue of its own:
/// PQcancel opens a connection to the server and waits for it to close, which holds the caller a
/// round trip, or as long as TCP tries behind a frozen path. The next statement waits for the
/// cancels in flight (up to `cancelWait`), so that a late cancel does not stop it instead.
final class SideState: Sendable {
    /// A server process's cancel object, freed when the last cancel that
    /// uses it is done, whatever happened to the connection meanwhile.
    private final class CancelHandle: @unchecked Sendable {
        let pointer: OpaquePointer

        init?(_ connection: OpaquePointer) {
            guard let pointer = PQgetCancel(connection) else { return nil }
            self.pointer = pointer
        }

        deinit {
            PQfreeCancel(pointer)
        }

        func send() {
            var message = [CChar](repeating: 0, count: 256)
            _ = PQcancel(pointer, &message, Int32(message.count))
        }
    }

    /// Where cancels are sent: concurrent, so that one held by a frozen
    /// path holds no other.
    private static let cancels = DispatchQueue(
        label: "livetable.postgres.cancel", qos: .userInitiated, attributes: .concurrent)
    /// How long a statement waits for the cancels sent before it.
    static let cancelWait: TimeInterval = 2

    private let state = Mutex((cancelHandle: CancelHandle?.none, canceled: false, currentSocket: Int32(-1)))
    private let pending = DispatchGroup()

    init(_ connection: OpaquePointer) {
        renew(connection)
    }

    /// After connect and reset: a new server process, a new socket.
    func renew(_ connection: OpaquePointer) {
        state.withLock { state in
            state.cancelHandle = CancelHandle(connection)
            state.currentSocket = PQsocket(connection)
        }
    }

    func close() {
        state.withLock { $0.cancelHandle = nil }
    }

    var socket: Int32 {
        state.withLock { $0.currentSocket }
    }

    /// Sends a cancel request, and returns at once. `markingCanceled` is
    /// false when the library stops a statement itself (a stream its
    /// caller left early): then the server's "canceled" error is expected
    /// and dropped.
    func cancel(markingCanceled: Bool) {
        let handle = state.withLock { state in
            if markingCanceled { state.canceled = true }
            return state.cancelHandle
        }
        guard let handle else { return }
        pending.enter()
        Self.cancels.async { [pending] in
            handle.send()
            pending.leave()
        }
    }

    /// Called before each statement: a cancel asked before it started
    /// does not apply to it, nor does it reach it late.
    func beginStatement() -> Bool {
        guard pending.wait(timeout: .now() + Self.cancelWait) == .success else { return false }
        state.withLock { $0.canceled = false }
        return true
    }

    var wasCanceled: Bool {
        state.withLock { $0.canceled }
    }
}
