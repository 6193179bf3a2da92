import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The PostgreSQL programs of this machine (`initdb`, `pg_ctl`, `psql`,
/// `pg_basebackup`), and how this process runs them: as the unprivileged
/// `postgres` user when it is root, since the server refuses to run as
/// root and its data directory must belong to the user that runs it.
struct PostgresPrograms: Sendable {
    /// The user that owns the clusters' files and runs the server's
    /// programs, when this process is root.
    struct Owner: Sendable {
        var name: String
        var uid: uid_t
        var gid: gid_t
    }

    /// Debian's directory of one major version's programs,
    /// `/usr/lib/postgresql/<version>/bin`.
    let binDirectory: String
    /// The owner of the clusters' files when this process is root, nil when
    /// it runs the programs as itself.
    let owner: Owner?
    /// `runuser`, when this process is root.
    private let runuser: String?

    /// Finds the newest installed major version, and the `postgres` user
    /// when this process is root.
    static func find() throws -> PostgresPrograms {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        let installed = versions
            .filter { FileManager.default.isExecutableFile(atPath: "\(root)/\($0)/bin/initdb") }
            .sorted { (Double($0) ?? 0) < (Double($1) ?? 0) }
        guard let version = installed.last else {
            throw PostgresServer.Failure(
                "no PostgreSQL server in \(root)/<version>/bin (apt-get install postgresql)")
        }
        guard geteuid() == 0 else {
            return PostgresPrograms(binDirectory: "\(root)/\(version)/bin", owner: nil, runuser: nil)
        }
        guard let entry = getpwnam("postgres") else {
            throw PostgresServer.Failure(
                "PostgreSQL refuses to run as root, and there is no postgres user to run it")
        }
        let runuser = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser", "/bin/runuser"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let runuser else {
            throw PostgresServer.Failure("runuser is missing: it runs the server as the postgres user")
        }
        return PostgresPrograms(
            binDirectory: "\(root)/\(version)/bin",
            owner: Owner(name: "postgres", uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid),
            runuser: runuser)
    }

    /// The path of `program`: the version's own, or else (for `psql`, which
    /// the client package also installs) the one on `PATH`.
    func path(of program: String) -> String {
        let own = "\(binDirectory)/\(program)"
        if FileManager.default.isExecutableFile(atPath: own) { return own }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(program)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return own
    }

    // MARK: - Files

    /// Creates a new directory under /tmp, owned by the clusters' owner.
    ///
    /// Not `TMPDIR`: the `postgres` user must reach the directory (a
    /// `TMPDIR` under /root is closed to it), and a Unix socket's path must
    /// stay under 108 bytes.
    func makeDirectory() throws -> URL {
        var template = Array("/tmp/\(PostgresServer.directoryPrefix)XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw PostgresServer.Failure("cannot create a directory in /tmp: \(String(cString: strerror(errno)))")
        }
        let directory = URL(fileURLWithPath: String(cString: made), isDirectory: true)
        // Which process made it: a later run removes the directories of
        // processes that died without cleaning up.
        try write("\(getpid())\n", to: directory.appendingPathComponent(PostgresServer.ownerFileName))
        try give(directory.path)
        return directory
    }

    /// Writes `text` to the file at `url`, created or truncated, and gives
    /// it to the clusters' owner.
    func write(_ text: String, to url: URL, mode: mode_t = 0o600) throws {
        do {
            // Not atomically: a file that exists keeps its inode and owner.
            try text.write(to: url, atomically: false, encoding: .utf8)
        } catch {
            throw PostgresServer.Failure("cannot write \(url.path): \(error)")
        }
        chmod(url.path, mode)
        try give(url.path)
    }

    /// Appends `text` to the file at `url`, which exists.
    func append(_ text: String, to url: URL) throws {
        guard let handle = FileHandle(forWritingAtPath: url.path) else {
            throw PostgresServer.Failure("cannot open \(url.path)")
        }
        defer { try? handle.close() }
        do {
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(text.utf8))
        } catch {
            throw PostgresServer.Failure("cannot write \(url.path): \(error)")
        }
    }

    /// Makes the clusters' owner the owner of `path`, when this process is root.
    func give(_ path: String) throws {
        guard let owner else { return }
        guard chown(path, owner.uid, owner.gid) == 0 else {
            throw PostgresServer.Failure(
                "cannot give \(path) to \(owner.name): \(String(cString: strerror(errno)))")
        }
    }

    // MARK: - Processes

    /// What a program printed, and how it exited.
    struct Output {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// Runs `program` with `arguments` in `directory`, waits for its exit,
    /// and returns what it printed, whatever its exit status.
    ///
    /// The password goes through the environment (`PGPASSWORD`), never the
    /// arguments, which any user can read in /proc.
    ///
    /// Spawned and awaited with `posix_spawn` and `waitpid`, not
    /// Foundation's `Process`: `Process` gives its child one end of a
    /// socket and sees the child's exit when the socket closes, and the
    /// server that `pg_ctl start` leaves running would keep it open.
    ///
    /// - parameter asOwner: whether it runs as the clusters' owner (the
    ///   server's programs) or as this process (clients).
    /// - throws: `PostgresServer.Failure` when the program can not run or
    ///   does not exit in `timeout` seconds.
    func run(
        _ program: String, _ arguments: [String],
        asOwner: Bool, password: String? = nil, input: String? = nil,
        in directory: URL, timeout: TimeInterval = 60) throws -> Output
    {
        Self.ignoreBrokenPipes()
        let inputPipe = try Self.makePipe()
        let outputPipe = try Self.makePipe()
        let errorPipe = try Self.makePipe()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inputPipe.read, 0)
        posix_spawn_file_actions_adddup2(&actions, outputPipe.write, 1)
        posix_spawn_file_actions_adddup2(&actions, errorPipe.write, 2)
        let arguments = ["/bin/bash"] + wrapped(program, arguments, asOwner: asOwner, in: directory)
        let environment = Self.environment(password: password).map { "\($0.key)=\($0.value)" }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        // The program gets SIGPIPE's default back (see ignoreBrokenPipes).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))
        var pid = pid_t()
        let spawned = posix_spawn(&pid, "/bin/bash", &actions, &attributes, argv, envp)
        for fd in [inputPipe.read, outputPipe.write, errorPipe.write] { close(fd) }
        let writer = FileHandle(fileDescriptor: inputPipe.write, closeOnDealloc: true)
        let outputReader = FileHandle(fileDescriptor: outputPipe.read, closeOnDealloc: true)
        let errorReader = FileHandle(fileDescriptor: errorPipe.read, closeOnDealloc: true)
        guard spawned == 0 else {
            throw PostgresServer.Failure("cannot run \(program): \(String(cString: strerror(spawned)))")
        }
        // Fed, read and awaited on threads of their own: a program that
        // prints much before it has read all its input must never block on
        // a full pipe.
        let output = PipeContents()
        let error = PipeContents()
        let group = DispatchGroup()
        output.read(outputReader, in: group)
        error.read(errorReader, in: group)
        Thread.detachNewThread {
            if let input { try? writer.write(contentsOf: Data(input.utf8)) }
            try? writer.close()
        }
        let exit = ExitStatus(of: pid)
        guard let status = exit.wait(timeout: timeout) else {
            kill(pid, SIGTERM)
            throw PostgresServer.Failure("\(program) did not finish in \(Int(timeout)) s")
        }
        // The pipes close with the program, unless a child of its own kept
        // them (the server does not: pg_ctl sends its output to a log).
        guard group.wait(timeout: .now() + 10) == .success else {
            throw PostgresServer.Failure("\(program) exited, but its output did not end")
        }
        return Output(status: status, standardOutput: output.text, standardError: error.text)
    }

    /// The arguments of bash that runs `program` in `directory`, as the
    /// owner if asked, with no other descriptor than the standard ones: a
    /// server started by `pg_ctl` must not keep the pipes of this process's
    /// other children open.
    private func wrapped(
        _ program: String, _ arguments: [String], asOwner: Bool, in directory: URL) -> [String]
    {
        let script = """
            cd "$1" || exit 1; shift
            for fd in /proc/$$/fd/*; do n=${fd##*/}; if [ "$n" -gt 2 ]; then eval "exec $n>&-"; fi; done
            exec "$@"
            """
        var command = [path(of: program)] + arguments
        if asOwner, let owner, let runuser {
            command = [runuser, "-u", owner.name, "--"] + command
        }
        return ["-c", script, "bash", directory.path] + command
    }

    /// Makes a write to the pipe of a program that exited (psql refused a
    /// password before it read its input) throw, rather than kill this
    /// process with SIGPIPE. For the whole process: a signal's disposition
    /// is one per process.
    static func ignoreBrokenPipes() {
        _ = brokenPipesIgnored
    }

    private static let brokenPipesIgnored: Void = {
        _ = signal(SIGPIPE, SIG_IGN)
    }()

    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            throw PostgresServer.Failure("pipe: \(String(cString: strerror(errno)))")
        }
        // Not inherited by the children spawned meanwhile by other threads.
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        return (fds[0], fds[1])
    }

    /// This process's environment without libpq's variables (a developer's
    /// `PGHOST`, `PGDATABASE` or `PGSERVICE` must not redirect a test), in
    /// the C locale's messages (the tests read the server's errors), and
    /// with `password` as `PGPASSWORD`.
    static func environment(password: String?) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PG") }
        environment["LC_ALL"] = "C.UTF-8"
        environment["PGCONNECT_TIMEOUT"] = "10"
        environment["PGPASSWORD"] = password
        return environment
    }
}

/// The exit status of a child process, awaited on a thread of its own.
// @unchecked Sendable: `status` is written by the waiting thread before it
// signals `exited`, and read after the signal.
private final class ExitStatus: @unchecked Sendable {
    private let exited = DispatchSemaphore(value: 0)
    private var status: Int32 = 0

    init(of pid: pid_t) {
        Thread.detachNewThread { [self] in
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
            // WIFEXITED ? WEXITSTATUS : 128 + WTERMSIG, as a shell says.
            status = raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
            exited.signal()
        }
    }

    /// The status, or nil when the process did not exit in `timeout` seconds.
    func wait(timeout: TimeInterval) -> Int32? {
        exited.wait(timeout: .now() + timeout) == .success ? status : nil
    }
}

/// Everything read from a pipe until its end, on a thread of its own.
// @unchecked Sendable: `data` is written by the reading thread only, and
// read after the group it leaves, which orders the two.
private final class PipeContents: @unchecked Sendable {
    private var data = Data()

    var text: String { String(decoding: data, as: UTF8.self) }

    func read(_ handle: FileHandle, in group: DispatchGroup) {
        group.enter()
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            group.leave()
        }
    }
}
