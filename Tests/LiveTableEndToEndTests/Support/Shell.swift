import Foundation

/// Runs programs and quotes shell words.
enum Shell {
    struct Result {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// Runs `executable` with `arguments` to its end, stdin from /dev/null,
    /// and returns its status and outputs.
    ///
    /// This is `posix_spawn` and `waitpid`, not `Process`: a daemon that the
    /// program starts (the tmux server) inherits the pipes and descriptors
    /// that `Process` watches, and `Process` would wait for it forever.
    /// Outputs go through temporary files for the same reason.
    static func run(
        _ executable: String, _ arguments: [String],
        environment: [String: String]? = nil) throws -> Result
    {
        let directory = FileManager.default.temporaryDirectory
        let outputPath = directory.appendingPathComponent("livetable-e2e-\(UUID().uuidString).out").path
        let errorPath = directory.appendingPathComponent("livetable-e2e-\(UUID().uuidString).err").path
        defer {
            unlink(outputPath)
            unlink(errorPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        let environment = environment ?? ProcessInfo.processInfo.environment
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawnError = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawnError == 0 else {
            throw HarnessError("cannot run \(executable): \(String(cString: strerror(spawnError)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else {
                throw HarnessError("cannot wait for \(executable): \(String(cString: strerror(errno)))")
            }
        }
        // WIFEXITED / WEXITSTATUS are macros: exited normally when the low
        // 7 bits are 0; a signal otherwise, reported as 128 + signal.
        let exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Result(
            status: exitStatus,
            standardOutput: (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "")
    }

    /// The full path of a program found in PATH.
    static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) {
                return candidate
            }
        }
        return nil
    }

    /// `word` as one shell word.
    static func quote(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Runs a Python script with `arguments`, and returns its standard
    /// output; throws with what it printed if it fails.
    @discardableResult
    static func python(_ script: String, _ arguments: [String]) throws -> String {
        guard let python = which("python3") else { throw HarnessError("python3 is not installed") }
        let result = try run(python, ["-c", script] + arguments)
        guard result.status == 0 else {
            throw HarnessError("python3 failed: \(result.standardOutput)\(result.standardError)")
        }
        return result.standardOutput
    }

    /// The SHA-256 of a file, as the `sha256sum` tool prints it.
    static func sha256(_ file: URL) throws -> String {
        let result = try run(which("sha256sum") ?? "/usr/bin/sha256sum", [file.path])
        return String(result.standardOutput.prefix(64))
    }
}

/// The processes of the machine, read from /proc.
enum ProcessTable {
    struct Entry {
        var pid: pid_t
        var parent: pid_t
        var name: String
    }

    static func entries() -> [Entry] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap { name in
            guard let pid = pid_t(name),
                  let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                  let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
            else { return nil }
            // "pid (comm) state ppid ...": comm may hold spaces and parens.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, let parent = pid_t(fields[1]) else { return nil }
            return Entry(pid: pid, parent: parent, name: String(stat[stat.index(after: open)..<close]))
        }
    }

    /// The direct children of `pid`.
    static func children(of pid: pid_t) -> [Entry] {
        entries().filter { $0.parent == pid }
    }
}
