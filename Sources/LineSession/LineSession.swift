import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A command-line tool (`psql`, `sqlite3`) in a process of its own, with its
/// connection kept open between calls: fed statements through its standard
/// input, its output read line by line on a thread.
///
/// Each call waits until the tool has run its statements: after them, the
/// tool is asked to print a marker (the dialect's `echo` command), and the
/// call reads the tool's output up to that marker. A line that the
/// dialect's `isError` recognises before the marker makes the call throw.
/// `PostgresSession` and `SQLiteCommand` are the two tools' sessions.
///
/// For example:
///
/// ```swift
/// let session = try LineSession(
///     executable: URL(fileURLWithPath: "/usr/bin/sqlite3"), arguments: ["-batch", "/tmp/app.sqlite"],
///     dialect: .sqlite3)
/// defer { session.close() }
/// let committed = try session.run("INSERT INTO player(name) VALUES ('Arthur');")
/// print(try session.output("SELECT COUNT(*) FROM player;")) // "1"
/// ```
///
/// - important: A child of the tool that outlives it (`\! sleep 60 &`)
///   keeps the tool's output open, and its exit unseen (Foundation's
///   `Process` sees an exit by a socket that the child inherits): calls
///   then end at their timeout, and `close()` waits for that child.
///
/// - important: The process ignores SIGPIPE from the first session on (a
///   signal's disposition is one per process): a write to a tool that has
///   exited then throws, rather than killing this process.
// Open: a tool's session is a subclass that only says how the tool starts
// (`PostgresSession`, `SQLiteCommand`), so that callers keep naming it.
// @unchecked Sendable: `calls` orders the calls and holds their state,
// `output` is a lock-protected buffer of its own, and the other properties
// are set in `init`.
open class LineSession: @unchecked Sendable {
    /// What the tool printed as an error, or that it did not answer, or
    /// has exited. It never holds a secret given to the session.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// The error, in one line.
        package var description: String

        /// Creates a failure.
        ///
        /// For example:
        ///
        /// ```swift
        /// throw LineSession.Failure(description: "bindfs is not installed")
        /// ```
        package init(description: String) {
            self.description = description
        }
    }

    /// The tool's process identifier: for a test that kills it.
    package var processIdentifier: Int32 { process.processIdentifier }

    private let process = Process()
    private let input: FileHandle
    private let output = LineBuffer()
    private let exited = DispatchSemaphore(value: 0)
    private let dialect: LineDialect
    private let secrets: [String]
    /// Locked for a whole call: the tool answers one at a time.
    private let calls = Mutex((nextMarker: 0, isClosed: false))

    /// Starts `executable` with `arguments`, its standard output and error
    /// read as one stream of lines.
    ///
    /// For example:
    ///
    /// ```swift
    /// let session = try LineSession(
    ///     executable: URL(fileURLWithPath: "/usr/bin/psql"), arguments: ["-X", "-q", "-A", "-t", "-d", "shop"],
    ///     environment: ["PGPASSWORD": password], dialect: .psql, secrets: [password])
    /// ```
    ///
    /// - parameter environment: the tool's environment; this process's when nil.
    /// - parameter directory: the tool's working directory; this process's when nil.
    /// - parameter secrets: strings (passwords) replaced by "…" in every
    ///   error that the session throws.
    /// - throws: `Failure` when the tool can not run.
    package init(
        executable: URL, arguments: [String], environment: [String: String]? = nil, directory: URL? = nil,
        dialect: LineDialect, secrets: [String] = []) throws
    {
        Self.ignoreBrokenPipes()
        self.dialect = dialect
        self.secrets = secrets
        let inputPipe = Pipe()
        let outputPipe = Pipe()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = inputPipe
        // Errors and output in one pipe: an error comes before the marker
        // of the statements that failed.
        process.standardOutput = outputPipe
        process.standardError = outputPipe
        process.terminationHandler = { [exited] _ in exited.signal() }
        input = inputPipe.fileHandleForWriting
        do {
            try process.run()
        } catch {
            calls.withLock { $0.isClosed = true }  // nothing to close: deinit must not wait for it
            throw Self.failure("cannot run \(dialect.name): \(error)", hiding: secrets)
        }
        // The thread holds the buffer, not the session, whose deinit closes
        // the tool; the pipe ends when the tool exits.
        let reader = outputPipe.fileHandleForReading
        Thread.detachNewThread { [output] in
            output.read(from: reader)
        }
    }

    deinit {
        close()
    }

    // MARK: - Calls

    /// Runs `sql` (statements, or the tool's own commands) and waits until
    /// it has run.
    ///
    /// For example:
    ///
    /// ```swift
    /// try session.execute("CREATE TABLE item(id int PRIMARY KEY)")
    /// let ids = try session.execute("SELECT id FROM item;") // ["1", "2"]
    /// ```
    ///
    /// A statement is given the semicolon it lacks, unless its last line is
    /// a tool command (`\echo`, `.timeout`).
    ///
    /// - returns: What the tool printed, one line per row.
    /// - throws: `Failure` with the tool's first error line and the two
    ///   after it, when a statement failed (the following ones ran; as the
    ///   tool goes on, so does the session), or when the tool did not
    ///   finish in `timeout` seconds or has exited.
    @discardableResult
    package func execute(_ sql: String, timeout: TimeInterval = 20) throws -> [String] {
        try perform(sql, timeout: timeout).lines
    }

    /// Runs `sql`, and returns when the tool said it was done, in
    /// `DispatchTime` nanoseconds: after its commit, for a write.
    ///
    /// For example:
    ///
    /// ```swift
    /// let committed = try session.run("UPDATE item SET price = 2 WHERE id = 1;")
    /// ```
    @discardableResult
    package func run(_ sql: String, timeout: TimeInterval = 10) throws -> UInt64 {
        try perform(sql, timeout: timeout).time
    }

    /// Runs `sql`, and returns what it printed, one line per row.
    ///
    /// For example:
    ///
    /// ```swift
    /// let count = try session.output("SELECT count(*) FROM item;") // "2"
    /// ```
    package func output(_ sql: String, timeout: TimeInterval = 10) throws -> String {
        try execute(sql, timeout: timeout).joined(separator: "\n")
    }

    /// Sends `sql` without waiting: for a statement that holds a lock while
    /// the caller goes on. Its error, if any, is thrown by the next call.
    ///
    /// For example:
    ///
    /// ```swift
    /// session.send("BEGIN; LOCK item; SELECT pg_sleep(5); COMMIT;")
    /// ```
    package func send(_ sql: String) {
        try? input.write(contentsOf: Data("\(sql)\n".utf8))
    }

    /// Ends the tool's input, and waits for its exit: its connection is
    /// closed. A tool still busy after `timeout` seconds is terminated.
    ///
    /// For example:
    ///
    /// ```swift
    /// defer { session.close() }
    /// ```
    package func close(timeout: TimeInterval = 10) {
        calls.withLock { calls in
            guard !calls.isClosed else { return }
            calls.isClosed = true
            try? input.close()
            if exited.wait(timeout: .now() + timeout) == .timedOut {
                process.terminate()
                if exited.wait(timeout: .now() + 2) == .timedOut {
                    kill(process.processIdentifier, SIGKILL)
                }
            }
            process.waitUntilExit()
        }
    }

    // MARK: - Private

    private func perform(_ sql: String, timeout: TimeInterval) throws -> (lines: [String], time: UInt64) {
        try calls.withLock { try perform(sql, timeout: timeout, &$0) }
    }

    /// `perform(_:timeout:)` with `calls` locked.
    private func perform(
        _ sql: String, timeout: TimeInterval, _ calls: inout (nextMarker: Int, isClosed: Bool)) throws -> (lines: [String], time: UInt64)
    {
        guard !calls.isClosed else { throw failure("\(dialect.name) is closed") }
        let marker = Self.markerPrefix + "\(calls.nextMarker)__"
        calls.nextMarker += 1
        do {
            try input.write(contentsOf: Data("\(terminated(sql))\n\(dialect.echo) \(marker)\n".utf8))
        } catch {
            // The tool has exited: its output ends, and says why.
        }
        let reply = output.wait(for: marker, until: Date(timeIntervalSinceNow: timeout))
        switch reply {
        case let .printed(lines, time):
            // Lines after an earlier call's marker: that call timed out.
            let stale = lines.lastIndex { $0.hasPrefix(Self.markerPrefix) }
            let printed = stale.map { Array(lines[($0 + 1)...]) } ?? lines
            if let error = printed.firstIndex(where: dialect.isError) {
                throw failure("\(dialect.name): " + printed[error...].prefix(3).joined(separator: " / "))
            }
            return (printed, time)
        case let .ended(lastLines):
            throw failure("\(dialect.name) has exited: " + lastLines.joined(separator: " / "))
        case .timedOut:
            // Scrubbed before it is cut and escaped: a secret cut in two,
            // or escaped, would no longer be found.
            let statement = Self.scrubbed(sql, hiding: secrets).prefix(80).debugDescription
            throw failure("\(dialect.name) did not finish \(statement) in \(Int(timeout)) s")
        }
    }

    /// `sql` with the semicolon it lacks: a statement without one would
    /// stay in the tool's buffer while the marker is echoed.
    private func terminated(_ sql: String) -> String {
        let trimmed = sql.trimmingCharacters(in: .whitespacesAndNewlines)
        let lastLine = trimmed.split(separator: "\n").last ?? ""
        if trimmed.isEmpty || trimmed.hasSuffix(";") || lastLine.hasPrefix(dialect.commandPrefix) {
            return trimmed
        }
        return trimmed + ";"
    }

    private static let markerPrefix = "__livetable_line_session_"

    private func failure(_ text: String) -> Failure {
        Self.failure(text, hiding: secrets)
    }

    private static func failure(_ text: String, hiding secrets: [String]) -> Failure {
        Failure(description: scrubbed(text, hiding: secrets))
    }

    private static func scrubbed(_ text: String, hiding secrets: [String]) -> String {
        var text = text
        for secret in secrets where !secret.isEmpty {
            text = text.replacingOccurrences(of: secret, with: "…")
        }
        return text
    }

    private static func ignoreBrokenPipes() {
        _ = brokenPipesIgnored
    }

    private static let brokenPipesIgnored: Void = {
        _ = signal(SIGPIPE, SIG_IGN)
    }()
}
