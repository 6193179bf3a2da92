import Foundation
import LineSession

/// The `sqlite3` command, running in its own process, with its connection
/// kept open between statements: the other process that writes a database
/// in the benchmarks and the tests of other processes' commits. Its calls
/// are `LineSession`'s.
///
/// For example:
///
/// ```swift
/// let other = try SQLiteCommand(path: "/tmp/app.sqlite")
/// defer { other.close() }
/// let committed = try other.run("INSERT INTO player(name) VALUES ('Arthur');")
/// print(try other.output("SELECT COUNT(*) FROM player;")) // "1"
/// ```
package final class SQLiteCommand: LineSession, @unchecked Sendable {
    /// What the command printed as an error, or that it did not answer.
    package typealias Failure = LineSession.Failure

    /// Starts `sqlite3 path`, which waits up to `busyTimeout` seconds for a
    /// lock held by another connection.
    ///
    /// For example:
    ///
    /// ```swift
    /// let other = try SQLiteCommand(path: "/tmp/app.sqlite", busyTimeout: 2)
    /// ```
    ///
    /// - throws: `Failure` when the command can not run.
    package init(path: String, busyTimeout: Double = 10) throws {
        try super.init(
            executable: URL(fileURLWithPath: "/usr/bin/env"), arguments: ["sqlite3", "-batch", path],
            dialect: .sqlite3)
        try execute(".timeout \(Int(busyTimeout * 1000))")
    }
}
