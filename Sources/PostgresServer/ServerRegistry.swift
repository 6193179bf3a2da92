import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The servers' directories that this process made and has not removed
/// yet: all removed at exit, so that a test process leaves no server behind.
// @unchecked Sendable: `directories` and `removesAtExit` are only accessed
// with `lock` held.
final class ServerRegistry: @unchecked Sendable {
    static let shared = ServerRegistry()

    private let lock = NSLock()
    private var directories: [URL: PostgresPrograms] = [:]
    private var removesAtExit = false

    /// Remembers `directory`, to be removed at exit unless removed before.
    func register(_ directory: URL, programs: PostgresPrograms) {
        lock.lock()
        defer { lock.unlock() }
        directories[directory] = programs
        if !removesAtExit {
            removesAtExit = true
            // XCTest's main ends with exit(), which runs this.
            atexit { ServerRegistry.shared.removeAll() }
        }
    }

    /// Stops the server of `directory` at once, if it runs, and deletes the
    /// directory.
    func remove(_ directory: URL) {
        lock.lock()
        let programs = directories.removeValue(forKey: directory)
        lock.unlock()
        guard let programs else { return }
        Self.discard(directory, programs: programs)
    }

    private func removeAll() {
        lock.lock()
        let all = directories
        directories = [:]
        lock.unlock()
        for (directory, programs) in all {
            Self.discard(directory, programs: programs)
        }
    }

    /// Removes the servers' directories of the processes that died without
    /// removing them (a crash, a kill), and stops their servers.
    ///
    /// The directories of the processes that run (other test processes)
    /// are theirs, and stay.
    static func removeLeftovers(programs: PostgresPrograms) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? []
        for name in names where name.hasPrefix(PostgresServer.directoryPrefix) {
            let directory = URL(fileURLWithPath: "/tmp/\(name)", isDirectory: true)
            let ownerFile = directory.appendingPathComponent(PostgresServer.ownerFileName)
            guard let text = try? String(contentsOf: ownerFile, encoding: .utf8),
                  let owner = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)),
                  owner != getpid(), !PostgresServer.isRunning(owner)
            else { continue }
            discard(directory, programs: programs)
        }
    }

    private static func discard(_ directory: URL, programs: PostgresPrograms) {
        let data = directory.appendingPathComponent("data", isDirectory: true)
        if FileManager.default.fileExists(atPath: data.appendingPathComponent("postmaster.pid").path) {
            _ = try? programs.run(
                "pg_ctl", ["-D", data.path, "-m", "immediate", "-w", "-t", "30", "stop"],
                asOwner: true, in: URL(fileURLWithPath: "/tmp"), timeout: 40)
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
