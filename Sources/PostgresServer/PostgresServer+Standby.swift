import Foundation

extension PostgresServer {
    /// A hot standby of this server: a copy made with `pg_basebackup -R -X
    /// stream` in a directory of its own, started on a port of its own,
    /// which replays this server's commits and serves reads.
    ///
    /// It has the same roles and passwords (a copy of the same cluster).
    /// For example:
    ///
    /// ```swift
    /// let standby = try server.makeStandby()
    /// defer { standby.remove() }
    /// try server.psql("INSERT INTO item VALUES (3);", database: "shop", as: server.writer)
    /// try standby.waitUntilReplayed()
    /// print(try standby.psql("SELECT count(*) FROM item;", database: "shop", as: standby.viewer))
    /// ```
    package func makeStandby() throws -> PostgresServer {
        let standbyDirectory = try programs.makeDirectory()
        ServerRegistry.shared.register(standbyDirectory, programs: programs)
        let data = standbyDirectory.appendingPathComponent("data").path
        let standbyPort: Int
        do {
            let output = try programs.run(
                "pg_basebackup",
                ["-h", directory.path, "-p", String(port), "-U", superuser.name, "-w",
                 "-D", data, "-R", "-X", "stream", "-c", "fast", "--no-sync"],
                asOwner: true, password: superuser.password, in: standbyDirectory)
            guard output.status == 0 else {
                throw Failure("pg_basebackup: \(Self.oneLine(output.standardError))", hiding: passwords)
            }
            // The copy's configuration is this server's: its own socket and
            // port come after, and win.
            try Self.configure(
                data: data, ["unix_socket_directories": standbyDirectory.path], programs: programs)
            standbyPort = try Self.startOnFreePort(data: data, directory: standbyDirectory, programs: programs)
        } catch {
            ServerRegistry.shared.remove(standbyDirectory)
            throw error
        }
        return PostgresServer(
            directory: standbyDirectory, port: standbyPort, superuser: superuser,
            writer: writer, viewer: viewer, primary: self, programs: programs)
    }

    /// On a standby, waits until it has replayed all the WAL its primary
    /// had flushed when called: every commit made before the call.
    ///
    /// - throws: `Failure` when this server is no standby, or after
    ///   `timeout` seconds.
    package func waitUntilReplayed(timeout: TimeInterval = 10) throws {
        guard let primary else { throw Failure("\(directory.path) is not a standby") }
        let target = try primary.psql("SELECT pg_current_wal_flush_lsn();")
        guard target.allSatisfy({ $0.isHexDigit || $0 == "/" }) else {
            throw Failure("the primary's WAL position is not one: \(target.prefix(40).debugDescription)")
        }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while try psql("SELECT pg_last_wal_replay_lsn() >= '\(target)'::pg_lsn;") != "t" {
            guard Date() < deadline else {
                throw Failure("the standby did not replay the primary's WAL up to \(target) in \(Int(timeout)) s")
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }
}
