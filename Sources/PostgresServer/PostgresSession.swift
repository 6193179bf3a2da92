import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A `psql` process with its connection kept open, fed statements through
/// a pipe and run in order: another session that writes, whose commit costs
/// no process start (the benchmark measures commit → screen). Made by
/// `PostgresServer.session(database:as:)`.
///
/// Each call waits until psql has run its statements: psql echoes a marker
/// after them, and the call reads its output up to the marker.
///
/// For example:
///
/// ```swift
/// let writer = try server.session(database: "shop", as: server.writer)
/// defer { writer.close() }
/// try writer.execute("CREATE TABLE item(id int PRIMARY KEY);")
/// let committed = try writer.run("INSERT INTO item VALUES (1);")
/// print(try writer.output("SELECT count(*) FROM item;")) // "1"
/// ```
///
/// - important: A lost connection (the server restarted) ends the session:
///   make another one.
// @unchecked Sendable: `lines`, `nextMarker` and `hasEnded` are only
// accessed with `condition` locked; `calls` orders the calls; the other
// properties are set in `init`.
public final class PostgresSession: @unchecked Sendable {
    private let process: Process
    private let input: FileHandle
    private let secrets: [String]
    private let condition = NSCondition()
    private let calls = NSLock()
    /// The lines printed by psql (standard output and error), and when they
    /// were read, in `DispatchTime` nanoseconds.
    private var lines: [(text: String, time: UInt64)] = []
    private var nextMarker = 0
    private var hasEnded = false

    init(process: Process, secrets: [String]) throws {
        PostgresPrograms.ignoreBrokenPipes()
        self.process = process
        self.secrets = secrets
        let inputPipe = Pipe()
        let outputPipe = Pipe()
        process.standardInput = inputPipe
        // Errors and output in one pipe: an error comes before the marker
        // of the statements that failed.
        process.standardOutput = outputPipe
        process.standardError = outputPipe
        do {
            try process.run()
        } catch {
            throw PostgresServer.Failure("cannot run psql: \(error)")
        }
        input = inputPipe.fileHandleForWriting
        let reader = outputPipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            readLines(from: reader)
        }
        // Connected, or the connection's error.
        try execute("SELECT 1;")
    }

    deinit {
        close()
    }

    /// Runs `sql` (statements, or psql's backslash commands) and waits until
    /// it has run.
    ///
    /// - returns: What it printed, one line per row, values separated by `|`.
    /// - throws: `PostgresServer.Failure` with the server's message when a
    ///   statement failed (the following ones ran), or when psql did not
    ///   finish in `timeout` seconds or has exited.
    @discardableResult
    public func execute(_ sql: String, timeout: TimeInterval = 20) throws -> [String] {
        try perform(sql, timeout: timeout).lines
    }

    /// Runs `sql`, and returns when psql said it was done, in `DispatchTime`
    /// nanoseconds: after its commit, for a write.
    @discardableResult
    public func run(_ sql: String, timeout: TimeInterval = 10) throws -> UInt64 {
        try perform(sql, timeout: timeout).time
    }

    /// Runs `sql`, and returns what it printed, one line per row.
    public func output(_ sql: String, timeout: TimeInterval = 10) throws -> String {
        try execute(sql, timeout: timeout).joined(separator: "\n")
    }

    /// Sends `sql` without waiting: for a statement that holds a lock while
    /// the caller goes on. Its error, if any, is thrown by the next call.
    public func send(_ sql: String) {
        try? input.write(contentsOf: Data("\(sql)\n".utf8))
    }

    /// Quits psql, and waits for its exit: its connection is closed.
    public func close() {
        guard process.isRunning else { return }
        try? input.close()
        process.waitUntilExit()
    }

    // MARK: - Private

    private func readLines(from reader: FileHandle) {
        var pending = Data()
        while true {
            let data = reader.availableData
            let now = DispatchTime.now().uptimeNanoseconds
            if data.isEmpty { break }
            pending.append(data)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let text = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                condition.lock()
                lines.append((text, now))
                condition.broadcast()
                condition.unlock()
            }
        }
        condition.lock()
        hasEnded = true
        condition.broadcast()
        condition.unlock()
    }

    private func perform(_ sql: String, timeout: TimeInterval) throws -> (lines: [String], time: UInt64) {
        calls.lock()
        defer { calls.unlock() }
        condition.lock()
        let marker = "__livetable_session_done_\(nextMarker)__"
        nextMarker += 1
        condition.unlock()
        // A statement without its semicolon would stay in psql's buffer
        // while the marker is echoed.
        let trimmed = sql.trimmingCharacters(in: .whitespacesAndNewlines)
        let lastLine = trimmed.split(separator: "\n").last ?? ""
        let terminated = trimmed.isEmpty || trimmed.hasSuffix(";") || lastLine.hasPrefix("\\")
            ? trimmed : trimmed + ";"
        do {
            try input.write(contentsOf: Data("\(terminated)\n\\echo \(marker)\n".utf8))
        } catch {
            throw failure("psql has exited")
        }
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let end = lines.firstIndex(where: { $0.text == marker }) {
                let printed = lines[..<end].map(\.text)
                let time = lines[end].time
                lines.removeSubrange(...end)
                if let error = printed.firstIndex(where: Self.isError) {
                    throw failure(printed[error...].prefix(3).joined(separator: " / "))
                }
                return (printed, time)
            }
            if hasEnded {
                throw failure("psql has exited: " + lines.suffix(3).map(\.text).joined(separator: " / "))
            }
            guard condition.wait(until: deadline) else {
                throw failure("psql did not finish \(sql.prefix(80).debugDescription) in \(Int(timeout)) s")
            }
        }
    }

    /// Whether psql printed an error: the server's (`ERROR:`, `FATAL:`), or
    /// psql's own (`psql: error:`, `invalid command`).
    private static func isError(_ line: String) -> Bool {
        ["ERROR:", "FATAL:", "PANIC:", "psql:", "invalid command", "connection to server"]
            .contains { line.hasPrefix($0) }
    }

    private func failure(_ text: String) -> PostgresServer.Failure {
        PostgresServer.Failure("psql: \(text)", hiding: secrets)
    }
}
