import Foundation
import XCTest

/// The `sqlite3` command, running in its own process, with its connection
/// kept open between statements: another process, for SQLite and for the
/// file watch.
// @unchecked Sendable: `process` and `input` are set in `init`; `output` is
// a `Synchronized`.
final class SQLiteProcess: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let process = Process()
    private let input: FileHandle
    /// The lines printed by the command, on its standard output and error.
    private let output = Synchronized<[String]>([])
    private var nextMarker = 0

    /// Starts `sqlite3 path`, which waits up to `busyTimeout` seconds for a
    /// lock held by another connection.
    init(path: String, busyTimeout: Double = 10) throws {
        let inputPipe = Pipe()
        let outputPipe = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", "-batch", path]
        process.standardInput = inputPipe
        // Errors and output in one pipe: an error comes before the marker
        // of the statement that failed.
        process.standardOutput = outputPipe
        process.standardError = outputPipe
        try process.run()
        input = inputPipe.fileHandleForWriting
        let output = output
        let reader = outputPipe.fileHandleForReading
        Thread.detachNewThread {
            var pending = Data()
            while true {
                let data = reader.availableData
                if data.isEmpty { break }
                pending.append(data)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    output.update { $0.append(line) }
                }
            }
        }
        try execute(".timeout \(Int(busyTimeout * 1000))")
    }

    deinit {
        close()
    }

    /// Runs `sql` (statements or dot-commands) and waits until it is done.
    ///
    /// - returns: What the command printed.
    /// - throws: `Failure` if it printed an error.
    @discardableResult
    func execute(_ sql: String, timeout: TimeInterval = 20) throws -> [String] {
        let marker = "-- done \(nextMarker)"
        nextMarker += 1
        let start = output.value.count
        // A statement without its semicolon would swallow the marker.
        let trimmed = sql.trimmingCharacters(in: .whitespacesAndNewlines)
        let terminated = trimmed.hasPrefix(".") || trimmed.hasSuffix(";") ? trimmed : trimmed + ";"
        input.write(Data("\(terminated)\n.print '\(marker)'\n".utf8))
        let deadline = Date(timeIntervalSinceNow: timeout)
        while !output.value.dropFirst(start).contains(marker) {
            guard Date() < deadline else {
                throw Failure(description: "sqlite3 did not finish \(sql.debugDescription)")
            }
            usleep(200)
        }
        let lines = Array(output.value.dropFirst(start).prefix { $0 != marker })
        if let error = lines.first(where: { $0.hasPrefix("Error") || $0.hasPrefix("Parse error") || $0.hasPrefix("Runtime error") }) {
            throw Failure(description: error)
        }
        return lines
    }

    /// Sends `sql` without waiting: for a statement that holds a lock while
    /// the test goes on.
    func send(_ sql: String) {
        input.write(Data("\(sql)\n".utf8))
    }

    /// Quits the command, and waits for its exit: its connection is closed.
    func close() {
        guard process.isRunning else { return }
        try? input.close()
        process.waitUntilExit()
    }
}
