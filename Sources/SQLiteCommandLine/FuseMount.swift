import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A FUSE mount of a directory, made with `bindfs`: "another machine" for
/// the benchmarks and the tests of other processes' commits.
///
/// A process that writes `source` directly writes behind the mount, as
/// another machine writes a network share: inotify reports nothing to a
/// watcher of `mountPoint`. The mount models a network file system: reads
/// are not served from the page cache (`direct_io`), attributes are never
/// cached (`attr_timeout=0`), and the locks taken through the mount reach
/// the underlying files (`--enable-lock-forwarding`), so that SQLite's
/// locking works across the two sides.
///
/// For example:
///
/// ```swift
/// let mount = try FuseMount(in: URL(fileURLWithPath: "/tmp/test"))
/// defer { mount.unmount() }
/// // Write mount.source.appendingPathComponent("app.sqlite") with sqlite3,
/// // watch mount.mountPoint.appendingPathComponent("app.sqlite").
/// ```
package final class FuseMount: Sendable {
    private let isMounted = Mutex(true)

    /// The directory that the mount shows: "the other machine's" side.
    package let source: URL
    /// Where the directory is mounted: this machine's side.
    package let mountPoint: URL

    /// Why no mount can be made here, or nil when one can: `bindfs`,
    /// `fusermount` and `/dev/fuse` are needed.
    package static var unavailableReason: String? {
        if executable("bindfs") == nil {
            return "bindfs is not installed (apt-get install bindfs)"
        }
        if fusermount == nil {
            return "fusermount is not installed (apt-get install fuse3)"
        }
        if !FileManager.default.fileExists(atPath: "/dev/fuse") {
            return "/dev/fuse does not exist"
        }
        return nil
    }

    /// Mounts `directory/source` on `directory/mount`, both created.
    ///
    /// - parameter directIO: False for a mount that caches pages, where
    ///   SQLite can open a WAL file (and never sees the other side's commits).
    /// - throws: `SQLiteCommand.Failure` with `bindfs`'s error.
    package init(in directory: URL, directIO: Bool = true) throws {
        self.directIO = directIO
        source = directory.appendingPathComponent("source", isDirectory: true)
        mountPoint = directory.appendingPathComponent("mount", isDirectory: true)
        if let reason = Self.unavailableReason {
            throw SQLiteCommand.Failure(description: "no FUSE mount: \(reason)")
        }
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        try mount()
    }

    private let directIO: Bool

    private func mount() throws {
        // bindfs returns once the mount is made, its daemon in the
        // background.
        try Self.run("bindfs", [
            "--multithreaded", "--enable-lock-forwarding", "-o", directIO ? "direct_io,attr_timeout=0" : "attr_timeout=0",
            source.path, mountPoint.path,
        ])
    }

    /// Unmounts (lazily if a process has a file open there: it keeps the
    /// old mount) and mounts again, as a network share is remounted.
    package func remount() throws {
        unmount()
        try mount()
        isMounted.withLock { $0 = true }
    }

    deinit {
        unmount()
    }

    /// Unmounts, once: lazily if a process still has a file open there, so
    /// that the mount goes with its last user.
    package func unmount() {
        let wasMounted = isMounted.withLock { isMounted in
            defer { isMounted = false }
            return isMounted
        }
        guard wasMounted, let fusermount = Self.fusermount else { return }
        if (try? Self.run(fusermount, ["-u", mountPoint.path])) == nil {
            try? Self.run(fusermount, ["-u", "-z", mountPoint.path])
        }
    }

    private static var fusermount: String? {
        executable("fusermount3") ?? executable("fusermount")
    }

    private static func executable(_ name: String) -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `command` and waits for it, with `posix_spawn` and `waitpid`
    /// rather than `Process`: bindfs's daemon inherits the descriptors of
    /// the command, and `Process` would wait for the daemon to close them.
    private static func run(_ command: String, _ arguments: [String]) throws {
        guard let executable = executable(command) ?? (command.hasPrefix("/") ? command : nil) else {
            throw SQLiteCommand.Failure(description: "\(command) is not installed")
        }
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("fusemount-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: errors) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errors.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw SQLiteCommand.Failure(description: "\(command) failed: \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED and WEXITSTATUS are macros: an exit status is in bits 8 to 15, no signal in bits 0 to 6.
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
            let message = (try? Data(contentsOf: errors)) ?? Data()
            let text = String(decoding: message, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw SQLiteCommand.Failure(description: "\(command) failed: \(text)")
        }
    }
}
