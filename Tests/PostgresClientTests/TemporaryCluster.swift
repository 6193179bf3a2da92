// TO BE REPLACED at merge time by the shared `PostgresServer` fixture
// (Sources/PostgresServer, branch pg-server), which the benchmark uses too.
// This is the smallest cluster the client's tests need, nothing more.

import Foundation
import XCTest

/// A throwaway PostgreSQL 15 cluster: `initdb` in a temporary directory
/// with a superuser password (SCRAM), a Unix socket in that directory and
/// a free TCP port on 127.0.0.1. Run as the `postgres` user when we are
/// root, since PostgreSQL refuses to run as root.
final class TemporaryCluster {
    static let binaries = "/usr/lib/postgresql/15/bin"

    /// The directory that holds the data directory and the socket.
    let directory: String
    let port: Int
    let superuser = "postgres"
    let password: String

    var dataDirectory: String { directory + "/data" }

    /// A URL for the superuser, over TCP.
    var url: String { "postgres://\(superuser):\(password)@127.0.0.1:\(port)/postgres" }

    init() throws {
        directory = NSTemporaryDirectory() + "LiveTable-pg-\(UUID().uuidString.prefix(8))"
        password = "pw-\(UUID().uuidString)"
        port = try Self.freePort()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let passwordFile = directory + "/pwfile"
        try password.write(toFile: passwordFile, atomically: true, encoding: .utf8)
        if getuid() == 0 {
            try Self.run("/bin/chown", ["-R", "postgres:postgres", directory], asPostgres: false)
        }
        chmod(directory, 0o700)
        try Self.run(Self.binaries + "/initdb", [
            "-D", dataDirectory, "-A", "scram-sha-256", "--pwfile", passwordFile,
            "-U", superuser, "--no-sync", "-E", "UTF8", "--locale", "C",
        ])
        try start()
    }

    func start() throws {
        try Self.run(Self.binaries + "/pg_ctl", [
            "-D", dataDirectory, "-l", directory + "/log", "-w",
            "-o", "-k \(directory) -p \(port) -c listen_addresses=127.0.0.1 -c fsync=off",
            "start",
        ])
    }

    func stop() throws {
        try Self.run(Self.binaries + "/pg_ctl", ["-D", dataDirectory, "-m", "immediate", "-w", "stop"])
    }

    /// Stops the server and removes its files.
    func destroy() {
        try? stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs `tool` and waits for it; its output goes to `output.txt` of
    /// the cluster's parent directory, quoted in the error when it fails.
    /// posix_spawn and waitpid rather than Foundation's Process, whose
    /// waitUntilExit hung on an exited `runuser` in this test process.
    private static func run(_ tool: String, _ arguments: [String], asPostgres: Bool = true) throws {
        let command = asPostgres && getuid() == 0
            ? ["/sbin/runuser", "-u", "postgres", "--", tool] + arguments
            : [tool] + arguments
        let outputFile = NSTemporaryDirectory() + "LiveTable-pg-output-\(getpid()).txt"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputFile, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let arguments = command.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, command[0], &actions, nil, arguments, environ) == 0 else {
            throw ClusterError(message: "cannot run \(command[0])")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let output = (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: outputFile)
        // WIFEXITED and WEXITSTATUS are macros Swift cannot see.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw ClusterError(message: "\((tool as NSString).lastPathComponent) failed: \(output)")
        }
    }

    /// A TCP port nobody listens on now: bind port 0, read the port given.
    private static func freePort() throws -> Int {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else { throw ClusterError(message: "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

struct ClusterError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// The cluster of the test process: started by the first test that asks,
/// stopped at exit.
enum SharedCluster {
    private static let result: Result<TemporaryCluster, Error> = {
        let result = Result { try TemporaryCluster() }
        if case let .success(cluster) = result {
            atexit_cluster = cluster
            atexit { atexit_cluster?.destroy() }
        }
        return result
    }()

    static func get() throws -> TemporaryCluster {
        try result.get()
    }
}

private var atexit_cluster: TemporaryCluster?
