import Foundation
import PostgresServer

/// The viewer on PostgreSQL under a busy writer (issue 25, item 10): a
/// `pgbench` writer updating random rows of `tracks` at a fixed rate, its
/// average latency alone, then with three `livetable view` processes in a
/// tmux server of their own (following with `F`, sorted by the unindexed
/// `plays`, a filtering query), and the server CPU of each viewer's
/// backends (`/proc/<pid>/task/*/schedstat`, by `application_name`).
struct PostgresBusyWriter {
    struct Figures {
        var commitsPerSecond: Int
        var aloneLatencyMs: Double
        var withViewersLatencyMs: Double
        /// Each viewer's backends, in percent of one core.
        var viewerCPUPercent: [Double]
    }

    let server: PostgresServer
    let database: String
    let table: String
    let seconds: Double
    let log: (String) -> Void

    /// Measures at `rate` commits a second.
    func run(rate: Int) throws -> Figures {
        let alone = try writer(rate: rate)
        log(String(format: "postgres: a writer of %d commits/s alone: %.2f ms a commit", rate, alone))
        let viewers = try ViewerProcesses(server: server, database: database, table: table)
        defer { viewers.close() }
        try viewers.waitForBackends(log: log)
        var backendCPU: [Double] = []
        let before = viewers.cpu()
        let started = Date()
        let withViewers = try writer(rate: rate)
        let elapsed = Date().timeIntervalSince(started)
        let after = viewers.cpu()
        backendCPU = zip(before, after).map { ($1 - $0) * 100 / elapsed }
        log(String(format: "postgres: with three viewers: %.2f ms a commit; their backends %@ %% of a core", withViewers,
                   backendCPU.map { String(format: "%.1f", $0) }.joined(separator: ", ")))
        return Figures(commitsPerSecond: rate, aloneLatencyMs: alone, withViewersLatencyMs: withViewers,
                       viewerCPUPercent: backendCPU)
    }

    /// Runs pgbench at `rate` for `seconds`: the average latency of a
    /// commit, less its lag behind the schedule.
    private func writer(rate: Int) throws -> Double {
        let script = FileManager.default.temporaryDirectory
            .appendingPathComponent("livetable-busy-\(ProcessInfo.processInfo.processIdentifier).sql")
        try """
            \\set id random(1, 100000)
            UPDATE \(table) SET note = 'busy ' || :id WHERE id = :id;

            """.write(to: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: script) }
        let url = server.url(role: server.writer, database: database, host: .tcp, withPassword: false)
        let output = try Self.run(
            "pgbench", ["-n", "-c", "1", "-R", String(rate), "-T", String(Int(seconds)), "-f", script.path, url],
            environment: ["PGPASSWORD": server.writer.password])
        func value(after label: String) -> Double? {
            guard let line = output.split(separator: "\n").first(where: { $0.contains(label) }),
                  let number = line.split(separator: "=").last?.split(separator: " ").first else { return nil }
            return Double(number)
        }
        guard let latency = value(after: "latency average") else {
            throw ViewerScreenBenchmarkError("pgbench printed no latency: \(output.prefix(300))")
        }
        // "rate limit schedule lag: avg 0.123 (max 4.567) ms"
        let lag = output.split(separator: "\n").first { $0.contains("schedule lag") }
            .flatMap { $0.components(separatedBy: "avg ").last?.split(separator: " ").first }
            .flatMap { Double($0) } ?? 0
        return latency - lag
    }

    /// Runs `program` from the PATH, and returns what it printed.
    static func run(_ program: String, _ arguments: [String], environment: [String: String] = [:]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw ViewerScreenBenchmarkError("\(program) failed: \(text.prefix(300))")
        }
        return text
    }

    /// Runs tmux with `arguments`, its output to /dev/null, and waits for
    /// it with waitpid: the tmux server it starts would keep every
    /// descriptor it inherits, such as the one by which Foundation's
    /// `Process` sees an exit, which would then never come.
    static func tmux(_ arguments: [String], environment: [String: String] = [:]) throws {
        let argv = (["tmux"] + arguments).map { strdup($0) } + [nil]
        let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Nor any other descriptor: a pipe to `livetable bench`, kept by the
        // tmux server, would hold the bench's wait for this process.
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in open.compactMap({ Int32($0) }) where fd > 2 {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, "tmux", &actions, nil, argv, envp)
        guard spawned == 0 else { throw ViewerScreenBenchmarkError("tmux could not start (\(spawned))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    }
}

/// Three `livetable view` processes of this binary in a tmux server of
/// their own, each with an `application_name` of its own.
private final class ViewerProcesses {
    private let socket = "livetable-busy-\(ProcessInfo.processInfo.processIdentifier)"
    private let server: PostgresServer
    private let database: String
    static let names = ["livetable_follow", "livetable_sort", "livetable_filter"]

    init(server: PostgresServer, database: String, table: String) throws {
        self.server = server
        self.database = database
        let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let base = server.url(role: server.viewer, database: database, host: .tcp, withPassword: false)
        let commands = [
            "\(binary) view '\(base)?application_name=\(Self.names[0])' \(table)",
            "\(binary) view '\(base)?application_name=\(Self.names[1])' \(table) --sort plays",
            "\(binary) view '\(base)?application_name=\(Self.names[2])' --query "
                + "\"SELECT * FROM \(table) WHERE artist = 'artist 7'\"",
        ]
        // The tmux server takes the environment of the client that starts
        // it: the password is never on a command line.
        let environment = ["PGPASSWORD": server.viewer.password, "TERM": "xterm-256color"]
        do {
            try start(commands, environment: environment)
        } catch {
            close()
            throw error
        }
    }

    private func start(_ commands: [String], environment: [String: String]) throws {
        for (index, command) in commands.enumerated() {
            let arguments = index == 0
                ? ["-L", socket, "new-session", "-d", "-s", "busy", "-x", "100", "-y", "30", command]
                : ["-L", socket, "new-window", "-d", "-t", "busy:", command]
            try PostgresBusyWriter.tmux(arguments, environment: environment)
        }
    }

    /// Waits until each viewer has its backends, then follows the end in
    /// the first one (`F`).
    func waitForBackends(log: (String) -> Void) throws {
        let deadline = Date() + 60
        while Date() < deadline {
            if backends().allSatisfy({ !$0.isEmpty }) { break }
            Thread.sleep(forTimeInterval: 0.5)
        }
        guard backends().allSatisfy({ !$0.isEmpty }) else {
            throw ViewerScreenBenchmarkError("the three viewers did not connect")
        }
        try? PostgresBusyWriter.tmux(["-L", socket, "send-keys", "-t", "busy:0", "F"])
        // The launch counts of 2,000,000 rows, and the first windows.
        Thread.sleep(forTimeInterval: 5)
        log("postgres: three viewers connected")
    }

    /// The backends of each viewer.
    func backends() -> [[Int32]] {
        Self.names.map { name in
            let output = (try? server.psql(
                "SELECT pid FROM pg_stat_activity WHERE application_name = '\(name)';", database: database)) ?? ""
            return output.split(separator: "\n").compactMap { Int32($0) }
        }
    }

    /// The CPU seconds of each viewer's backends so far.
    func cpu() -> [Double] {
        backends().map { $0.compactMap { ProcessMetrics.cpuSeconds(ofProcess: $0) }.reduce(0, +) }
    }

    func close() {
        // The viewers quit (`q`): the server's SIGHUP to its panes left some
        // running, reconnecting.
        for window in 0..<Self.names.count {
            try? PostgresBusyWriter.tmux(["-L", socket, "send-keys", "-t", "busy:\(window)", "q"])
        }
        Thread.sleep(forTimeInterval: 1)
        try? PostgresBusyWriter.tmux(["-L", socket, "kill-server"])
    }
}
