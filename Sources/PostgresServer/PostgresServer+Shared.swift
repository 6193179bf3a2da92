import Foundation

extension PostgresServer {
    /// The server that the tests of this process share, started by the
    /// first test that asks for it and removed at exit. Each test makes a
    /// database of its own with `createDatabase(_:)`.
    ///
    /// Before it starts, it removes the servers that crashed test processes
    /// left behind.
    ///
    /// For example:
    ///
    /// ```swift
    /// let server = try PostgresServer.shared
    /// try server.createDatabase("testFollowShowsInserts")
    /// ```
    ///
    /// - throws: The error of its start, to every test that asks for it.
    package static var shared: PostgresServer {
        get throws { try sharedServer.get() }
    }

    private static let sharedServer = Result<PostgresServer, any Error> {
        ServerRegistry.removeLeftovers(programs: try PostgresPrograms.find())
        return try PostgresServer()
    }
}

extension PostgresServer {
    /// Why no server can be made on this machine (PostgreSQL is not
    /// installed, or there is no user to run it as), nil when one can: for
    /// the benchmark, which skips its PostgreSQL section with the reason
    /// rather than fail after the other sections ran.
    ///
    /// For example:
    ///
    /// ```swift
    /// if let reason = PostgresServer.unavailableReason { print("skipped: \(reason)") }
    /// ```
    package static var unavailableReason: String? {
        do {
            _ = try PostgresPrograms.find()
            return nil
        } catch {
            return "\(error)"
        }
    }
}
