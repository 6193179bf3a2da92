import Foundation
import LineSession

/// A `psql` process with its connection kept open, fed statements through
/// a pipe and run in order: another session that writes, whose commit costs
/// no process start (the benchmark measures commit → screen). Made by
/// `PostgresServer.session(database:as:)`; its calls are `LineSession`'s.
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
///   make another one. Its errors (`LineSession.Failure`) never hold the
///   server's passwords.
package final class PostgresSession: LineSession, @unchecked Sendable {
    /// Starts `psql` and waits for its connection.
    ///
    /// - throws: `LineSession.Failure` with psql's error when it can not
    ///   connect (a wrong password).
    init(psql: URL, arguments: [String], environment: [String: String], directory: URL, secrets: [String]) throws {
        try super.init(
            executable: psql, arguments: arguments, environment: environment, directory: directory,
            dialect: .psql, secrets: secrets)
        // Connected, or the connection's error.
        try execute("SELECT 1;")
    }
}
