import Foundation

/// The `sqlite3` command, running in its own process, with its connection
/// kept open between statements: the other process that writes a database
/// in the benchmarks and the tests of other processes' commits.
///
/// For example:
///
/// ```swift
/// let other = try SQLiteCommand(path: "/tmp/app.sqlite")
/// defer { other.close() }
/// let committed = try other.run("INSERT INTO player(name) VALUES ('Arthur');")
/// print(try other.output("SELECT COUNT(*) FROM player;")) // "1"
/// ```
// @unchecked Sendable: `lines` and `nextMarker` are only accessed with
// `condition` locked; the other properties are set in `init`.
public final class SQLiteCommand: @unchecked Sendable {
    /// What the command printed as an error, or that it did not answer.
    public struct Failure: Error, CustomStringConvertible {
        /// The error, in one line.
        public var description: String
    }

    private let process = Process()
    private let input: FileHandle
    private let condition = NSCondition()
    /// The lines printed by the command (standard output and error), and
    /// when they were read, in `DispatchTime` nanoseconds.
    private var lines: [(text: String, time: UInt64)] = []
    private var nextMarker = 0

    /// Starts `sqlite3 path`, which waits up to `busyTimeout` seconds for a
    /// lock held by another connection.
    ///
    /// - throws: `Failure` when the command can not run.
    public init(path: String, busyTimeout: Double = 10) throws {
        let inputPipe = Pipe()
        let outputPipe = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", "-batch", path]
        process.standardInput = inputPipe
        // Errors and output in one pipe: an error comes before the marker
        // of the statement that failed.
        process.standardOutput = outputPipe
        process.standardError = outputPipe
        do {
            try process.run()
        } catch {
            throw Failure(description: "cannot run the sqlite3 command: \(error)")
        }
        input = inputPipe.fileHandleForWriting
        let reader = outputPipe.fileHandleForReading
        let thread = Thread { [self] in
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
        }
        thread.start()
        try execute(".timeout \(Int(busyTimeout * 1000))")
    }

    deinit {
        close()
    }

    /// Runs `sql` (statements or dot-commands) and waits until it is done.
    ///
    /// - returns: What the command printed, one line per row.
    /// - throws: `Failure` if it printed an error, or did not finish in
    ///   `timeout` seconds.
    @discardableResult
    public func execute(_ sql: String, timeout: TimeInterval = 20) throws -> [String] {
        try perform(sql, timeout: timeout).lines
    }

    /// Runs `sql`, and returns when the command said it was done, in
    /// `DispatchTime` nanoseconds: after its commit, for a write.
    @discardableResult
    public func run(_ sql: String, timeout: TimeInterval = 10) throws -> UInt64 {
        try perform(sql, timeout: timeout).time
    }

    /// Runs `sql`, and returns what it printed, one line per row.
    public func output(_ sql: String, timeout: TimeInterval = 10) throws -> String {
        try execute(sql, timeout: timeout).joined(separator: "\n")
    }

    /// Sends `sql` without waiting: for a statement that holds a lock while
    /// the caller goes on.
    public func send(_ sql: String) {
        input.write(Data("\(sql)\n".utf8))
    }

    /// Quits the command, and waits for its exit: its connection is closed.
    public func close() {
        guard process.isRunning else { return }
        try? input.close()
        process.waitUntilExit()
    }

    private func perform(_ sql: String, timeout: TimeInterval) throws -> (lines: [String], time: UInt64) {
        condition.lock()
        let marker = "-- done \(nextMarker)"
        nextMarker += 1
        let start = lines.count
        condition.unlock()
        // A statement without its semicolon would swallow the marker.
        let trimmed = sql.trimmingCharacters(in: .whitespacesAndNewlines)
        let terminated = trimmed.hasPrefix(".") || trimmed.hasSuffix(";") ? trimmed : trimmed + ";"
        input.write(Data("\(terminated)\n.print '\(marker)'\n".utf8))
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            let printed = lines[start...]
            if let done = printed.first(where: { $0.text == marker }) {
                let output = printed.prefix(while: { $0.text != marker }).map(\.text)
                if let error = output.first(where: {
                    $0.hasPrefix("Error") || $0.hasPrefix("Parse error") || $0.hasPrefix("Runtime error")
                }) {
                    throw Failure(description: "sqlite3: \(error)")
                }
                return (output, done.time)
            }
            guard condition.wait(until: deadline) else {
                throw Failure(description: "the sqlite3 command did not finish \(sql.prefix(80).debugDescription) in \(Int(timeout)) s")
            }
        }
    }
}
