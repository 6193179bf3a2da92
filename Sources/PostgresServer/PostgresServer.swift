import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PostgreSQL cluster of its own, for the tests and the
/// benchmark: made with `initdb` in a new directory under /tmp, served on a
/// Unix socket in that directory and on a free TCP port of 127.0.0.1, with
/// password authentication (SCRAM) for three roles.
///
/// - `superuser` (`postgres`): everything, including replication.
/// - `writer`: owns the databases that `createDatabase(_:)` makes, and the
///   tables it creates there.
/// - `viewer`: may connect to those databases and read their tables (those
///   of today and those the writer creates later), and nothing else.
///
/// Passwords are new for each server. The server runs as the `postgres`
/// user when this process is root (PostgreSQL refuses to run as root), as
/// this process's user otherwise; the clients run as this process.
///
/// A test process shares one server, `PostgresServer.shared`, stopped at
/// exit, and each test makes a database of its own. For example:
///
/// ```swift
/// let server = try PostgresServer.shared
/// try server.createDatabase("shop")
/// try server.psql("CREATE TABLE item(id int PRIMARY KEY); INSERT INTO item VALUES (1);",
///                 database: "shop", as: server.writer)
/// print(try server.psql("SELECT count(*) FROM item;", database: "shop", as: server.viewer)) // "1"
/// print(server.url(role: server.viewer, database: "shop", host: .tcp))
/// // postgres://viewer:…@127.0.0.1:43117/shop
/// ```
package final class PostgresServer: Sendable {
    /// A role of the server: its name and password.
    ///
    /// Its description, debug description and mirror show the name only: a
    /// password never reaches a test's failure message. For example:
    ///
    /// ```swift
    /// let intruder = PostgresServer.Role(name: "viewer", password: "wrong")
    /// XCTAssertThrowsError(try server.psql("SELECT 1;", as: intruder))
    /// ```
    package struct Role: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible,
        CustomReflectable
    {
        /// The role's name.
        package var name: String
        /// The role's password.
        package var password: String

        /// A role, for a login with this name and password.
        package init(name: String, password: String) {
            self.name = name
            self.password = password
        }

        /// The role's name.
        package var description: String { name }
        /// The role's name.
        package var debugDescription: String { "Role(\(name))" }
        /// The role's name, without its password.
        package var customMirror: Mirror { Mirror(self, children: ["name": name]) }
    }

    /// How a client reaches the server.
    package enum Host: Sendable {
        /// The Unix socket in the server's directory.
        case socket
        /// TCP on 127.0.0.1.
        case tcp
    }

    /// How `stop(mode:)` ends the server's sessions (`pg_ctl -m`).
    package enum ShutdownMode: String, Sendable {
        /// Waits for the sessions to end.
        case smart
        /// Ends the sessions, and shuts down cleanly.
        case fast
        /// Kills the server at once, as a crash does: the next start recovers.
        case immediate
    }

    /// An error of the server's programs, in one line, without any password.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// The error, in one line.
        package var description: String

        init(_ description: String, hiding secrets: [String] = []) {
            var text = description
            for secret in secrets where !secret.isEmpty {
                text = text.replacingOccurrences(of: secret, with: "…")
            }
            self.description = text
        }
    }

    /// The server's directory: the data directory `data`, the Unix socket,
    /// the log `server.log`.
    package let directory: URL
    /// The TCP port on 127.0.0.1, which is also the number of the socket's
    /// file in `directory`.
    package let port: Int
    /// The superuser, `postgres`.
    package let superuser: Role
    /// The role that owns the databases and writes their tables.
    package let writer: Role
    /// The role that may only connect and read.
    package let viewer: Role
    /// The server that this one replays, when it is a hot standby.
    package let primary: PostgresServer?

    let programs: PostgresPrograms
    private let isRemoved = Mutex(false)

    static let directoryPrefix = "livetable-postgres-"
    static let ownerFileName = "owner.pid"

    /// Makes and starts a new cluster, with its three roles.
    ///
    /// For example:
    ///
    /// ```swift
    /// let server = try PostgresServer(settings: ["statement_timeout": "2s"])
    /// defer { server.remove() }
    /// ```
    ///
    /// - parameter settings: `postgresql.conf` settings, beyond those that
    ///   make a test server fast (`fsync = off`) and able to feed a standby.
    /// - parameter ssl: Whether the server takes TCP connections over SSL
    ///   only (`ssl = on`, `hostssl` in `pg_hba.conf`), with a certificate
    ///   for `localhost` and 127.0.0.1 signed by a certificate authority of
    ///   its own, ``certificateAuthority``. Off by default: SSL's cost
    ///   would change what the tests and the benchmark measure.
    /// - throws: `Failure` when PostgreSQL (or, with `ssl`, the `openssl`
    ///   program) is missing or does not start.
    package convenience init(settings: [String: String] = [:], ssl: Bool = false) throws {
        let programs = try PostgresPrograms.find()
        let directory = try programs.makeDirectory()
        ServerRegistry.shared.register(directory, programs: programs)
        let superuser = Role(name: "postgres", password: Self.newPassword())
        let port: Int
        do {
            port = try Self.makeCluster(
                in: directory, superuser: superuser, settings: settings, ssl: ssl, programs: programs)
        } catch {
            ServerRegistry.shared.remove(directory)
            throw error
        }
        self.init(
            directory: directory, port: port, superuser: superuser,
            writer: Role(name: "writer", password: Self.newPassword()),
            viewer: Role(name: "viewer", password: Self.newPassword()),
            primary: nil, programs: programs)
        do {
            try createRoles()
        } catch {
            remove()
            throw error
        }
    }

    init(
        directory: URL, port: Int, superuser: Role, writer: Role, viewer: Role,
        primary: PostgresServer?, programs: PostgresPrograms)
    {
        self.directory = directory
        self.port = port
        self.superuser = superuser
        self.writer = writer
        self.viewer = viewer
        self.primary = primary
        self.programs = programs
    }

    deinit {
        remove()
    }

    var dataDirectory: URL { directory.appendingPathComponent("data", isDirectory: true) }

    var passwords: [String] { [superuser.password, writer.password, viewer.password] }

    // MARK: - Life cycle

    /// Starts the server, stopped by `stop(mode:)`, and waits until it
    /// accepts connections.
    package func start() throws {
        try Self.start(directory: directory, programs: programs)
    }

    /// Stops the server, and waits until it has exited. Its data stays:
    /// `start()` serves it again.
    package func stop(mode: ShutdownMode = .fast) throws {
        let running = processID
        let output = try programs.run(
            "pg_ctl", ["-D", dataDirectory.path, "-m", mode.rawValue, "-w", "-t", "60", "stop"],
            asOwner: true, in: directory)
        guard output.status == 0 else {
            throw Failure("pg_ctl stop: \(Self.oneLine(output.standardError))")
        }
        // pg_ctl returns when the server removed its pid file, which it
        // does just before it exits.
        let deadline = Date(timeIntervalSinceNow: 10)
        while let running, Self.isRunning(running) {
            guard Date() < deadline else { throw Failure("the server's process \(running) did not exit") }
            Thread.sleep(forTimeInterval: 0.005)
        }
    }

    /// Stops the server and starts it again, on the same port and socket:
    /// its clients lose their connections.
    package func restart(mode: ShutdownMode = .fast) throws {
        try stop(mode: mode)
        try start()
    }

    /// Stops the server at once, and deletes its directory. Done at exit
    /// for every server this process made and did not remove.
    package func remove() {
        isRemoved.withLock { isRemoved in
            guard !isRemoved else { return }
            isRemoved = true
            ServerRegistry.shared.remove(directory)
        }
    }

    /// The process id of the server (the postmaster), when it runs.
    package var processID: pid_t? {
        let file = dataDirectory.appendingPathComponent("postmaster.pid")
        guard let text = try? String(contentsOf: file, encoding: .utf8),
              let first = text.split(separator: "\n").first,
              let pid = pid_t(first.trimmingCharacters(in: .whitespaces)),
              pid > 0, Self.isRunning(pid)
        else { return nil }
        return pid
    }

    /// Whether process `pid` runs: it exists, and is no zombie (the
    /// server's parent, once `pg_ctl` exited, may never reap it).
    static func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")")
        else { return false }
        let state = stat[stat.index(after: end)...].trimmingCharacters(in: .whitespaces).first
        return state != "Z" && state != "X"
    }

    // MARK: - Databases and clients

    /// Creates a database owned by `writer`, whose `public` schema only
    /// `writer` may create in, and whose tables `viewer` may read, those of
    /// today and those `writer` creates later. No other role but the
    /// superuser may connect to it.
    ///
    /// For example:
    ///
    /// ```swift
    /// try server.createDatabase("testViewerReadsTable")
    /// ```
    ///
    /// - parameter name: letters, digits and underscores, at most 63.
    package func createDatabase(_ name: String) throws {
        guard !name.isEmpty, name.count <= 63,
              name.unicodeScalars.allSatisfy({ $0.isASCII && ($0 == "_" || CharacterSet.alphanumerics.contains($0)) })
        else {
            throw Failure("a test database's name has letters, digits and underscores only: \(name.debugDescription)")
        }
        // Default privileges belong to a database: they are set in the new
        // one, after `\connect`.
        try psql("""
            CREATE DATABASE "\(name)" OWNER writer;
            REVOKE ALL ON DATABASE "\(name)" FROM PUBLIC;
            GRANT CONNECT ON DATABASE "\(name)" TO viewer;
            \\connect \(name)
            REVOKE CREATE ON SCHEMA public FROM PUBLIC;
            GRANT USAGE ON SCHEMA public TO viewer;
            ALTER DEFAULT PRIVILEGES FOR ROLE writer IN SCHEMA public GRANT SELECT ON TABLES TO viewer;
            ALTER DEFAULT PRIVILEGES FOR ROLE writer IN SCHEMA public GRANT SELECT ON SEQUENCES TO viewer;
            """)
    }

    /// A `postgres://` URL of a database, for `role`.
    ///
    /// For example:
    ///
    /// ```swift
    /// server.url(role: server.viewer, database: "shop")
    /// // postgres://viewer:…@%2Ftmp%2Flivetable-postgres-Ab12Cd:43117/shop
    /// server.url(role: server.viewer, database: "shop", host: .tcp, withPassword: false)
    /// // postgres://viewer@127.0.0.1:43117/shop
    /// ```
    ///
    /// - parameter host: the socket's directory is percent-encoded in the
    ///   host part, as libpq reads it.
    /// - parameter withPassword: false for a URL whose password comes from
    ///   elsewhere (`PGPASSWORD`, `~/.pgpass`), or for none at all.
    package func url(
        role: Role, database: String = "postgres", host: Host = .socket, withPassword: Bool = true) -> String
    {
        let hostPart = switch host {
        case .socket: Self.percentEncoded(directory.path)
        case .tcp: "127.0.0.1"
        }
        let user = Self.percentEncoded(role.name)
            + (withPassword ? ":" + Self.percentEncoded(role.password) : "")
        return "postgres://\(user)@\(hostPart):\(port)/\(Self.percentEncoded(database))"
    }

    /// Runs `sql` with `psql` in a process of its own, and returns what it
    /// printed: one line per row, values separated by `|`, no header.
    ///
    /// For example:
    ///
    /// ```swift
    /// let count = try server.psql("SELECT count(*) FROM item;", database: "shop", as: server.viewer)
    /// ```
    ///
    /// - parameter role: the superuser when nil.
    /// - parameter timeout: seconds before psql is stopped, and `Failure`
    ///   thrown (a statement waiting for a lock).
    /// - throws: `Failure` with psql's error (the server's message, such as
    ///   "permission denied for table item") when a statement fails: the
    ///   statements after it do not run.
    @discardableResult
    package func psql(
        _ sql: String, database: String = "postgres", as role: Role? = nil,
        timeout: TimeInterval = 30) throws -> String
    {
        let role = role ?? superuser
        let output = try programs.run(
            "psql", psqlArguments(database: database, role: role) + ["-v", "ON_ERROR_STOP=1"],
            asOwner: false, password: role.password, input: sql, in: directory, timeout: timeout)
        guard output.status == 0 else {
            throw Failure("psql: \(Self.oneLine(output.standardError))", hiding: passwords + [role.password])
        }
        var text = output.standardOutput
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    /// A `psql` process connected as `role`, which runs the statements it
    /// is given in order on one connection, until closed.
    ///
    /// For example:
    ///
    /// ```swift
    /// let session = try server.session(database: "shop", as: server.writer)
    /// defer { session.close() }
    /// try session.execute("INSERT INTO item VALUES (2);")
    /// ```
    ///
    /// - parameter role: the superuser when nil.
    package func session(database: String = "postgres", as role: Role? = nil) throws -> PostgresSession {
        let role = role ?? superuser
        // Started by Foundation's `Process`, not through the wrapper of
        // `psql(_:)`: psql starts no process that would outlive it and keep
        // the socket by which `Process` sees its exit.
        return try PostgresSession(
            psql: URL(fileURLWithPath: programs.path(of: "psql")),
            arguments: psqlArguments(database: database, role: role),
            environment: PostgresPrograms.environment(password: role.password),
            directory: directory, secrets: passwords + [role.password])
    }

    func psqlArguments(database: String, role: Role) -> [String] {
        // -X: no ~/.psqlrc; -w: never ask for a password on a terminal.
        ["-X", "-q", "-A", "-t", "-w",
         "-h", directory.path, "-p", String(port), "-U", role.name, "-d", database]
    }

    // MARK: - Making a cluster

    private func createRoles() throws {
        try psql("""
            CREATE ROLE writer LOGIN PASSWORD '\(writer.password)';
            CREATE ROLE viewer LOGIN PASSWORD '\(viewer.password)';
            """)
    }

    /// `initdb`, the configuration, and the first start on a free port.
    ///
    /// - returns: The port.
    private static func makeCluster(
        in directory: URL, superuser: Role, settings: [String: String], ssl: Bool,
        programs: PostgresPrograms) throws -> Int
    {
        let passwordFile = directory.appendingPathComponent("password")
        try programs.write(superuser.password + "\n", to: passwordFile)
        let data = directory.appendingPathComponent("data").path
        let output = try programs.run(
            "initdb",
            ["-D", data, "-U", superuser.name, "-A", "scram-sha-256", "--pwfile", passwordFile.path,
             "-E", "UTF8", "--locale", "C", "--no-sync", "--no-instructions"],
            asOwner: true, in: directory)
        try? FileManager.default.removeItem(at: passwordFile)
        guard output.status == 0 else {
            throw Failure("initdb: \(oneLine(output.standardError))", hiding: [superuser.password])
        }
        // With SSL, TCP clients must use it: one that does not is refused
        // by the server, with its message.
        let tcp = ssl ? "hostssl" : "host   "
        try programs.write("""
            # TYPE  DATABASE     USER      ADDRESS        METHOD
            local   all          all                      scram-sha-256
            \(tcp) all          all       127.0.0.1/32   scram-sha-256
            local   replication  \(superuser.name)                 scram-sha-256
            \(tcp) replication  \(superuser.name)  127.0.0.1/32   scram-sha-256

            """, to: URL(fileURLWithPath: "\(data)/pg_hba.conf"))
        // fsync off: a test server's data need not survive a power cut.
        // log_min_error_statement: a failed statement's text, which may
        // set a password, stays out of the server's log.
        // synchronous_commit stays on: a standby is sent the WAL that is
        // flushed, and a commit that waited for none would reach it up to
        // three wal_writer_delay later.
        var configuration = [
            "listen_addresses": "127.0.0.1",
            "unix_socket_directories": directory.path,
            "fsync": "off",
            "log_min_error_statement": "panic",
            "wal_level": "replica",
            "max_wal_senders": "10",
            "hot_standby": "on",
        ]
        if ssl {
            configuration.merge(try makeCertificates(in: directory, programs: programs)) { $1 }
        }
        configuration.merge(settings) { $1 }
        try configure(data: data, configuration, programs: programs)
        return try startOnFreePort(data: data, directory: directory, programs: programs)
    }

    /// Starts the server on a free port: another process may take the port
    /// between the moment it was free and the server's bind, then another
    /// one is tried.
    static func startOnFreePort(data: String, directory: URL, programs: PostgresPrograms) throws -> Int {
        var attempt = 1
        while true {
            let port = try freePort()
            try configure(data: data, ["port": String(port)], programs: programs)
            do {
                try start(directory: directory, programs: programs)
                return port
            } catch {
                let log = (try? String(contentsOf: directory.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
                guard attempt < 5, log.contains("Address already in use") else { throw error }
                attempt += 1
            }
        }
    }

    /// Appends settings to `postgresql.conf`, where the last one wins.
    static func configure(data: String, _ settings: [String: String], programs: PostgresPrograms) throws {
        let lines = settings.sorted { $0.key < $1.key }.map { key, value in
            "\(key) = '\(value.replacingOccurrences(of: "'", with: "''"))'\n"
        }
        try programs.append(lines.joined(), to: URL(fileURLWithPath: "\(data)/postgresql.conf"))
    }

    static func start(directory: URL, programs: PostgresPrograms) throws {
        let output = try programs.run(
            "pg_ctl",
            ["-D", directory.appendingPathComponent("data").path,
             "-l", directory.appendingPathComponent("server.log").path, "-w", "-t", "60", "start"],
            asOwner: true, in: directory)
        guard output.status == 0 else {
            let log = (try? String(contentsOf: directory.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
            let lastLines = log.split(separator: "\n").suffix(3).joined(separator: "\n")
            throw Failure("pg_ctl start: \(oneLine(output.standardError + "\n" + lastLines))")
        }
    }

    /// A TCP port of 127.0.0.1 that no socket uses now.
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(fd, address, length) == 0 && getsockname(fd, address, &length) == 0
            }
        }
        guard bound else { throw Failure("no free TCP port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    // MARK: - Helpers

    /// A new password: 24 letters and digits, which SQL and URLs take as is.
    static func newPassword() -> String {
        let characters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<24).map { _ in characters.randomElement(using: &generator)! })
    }

    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .joined(separator: " / ")
    }

    private static func percentEncoded(_ text: String) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
