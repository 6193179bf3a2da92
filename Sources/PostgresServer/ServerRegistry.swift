import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The servers' directories that this process made and has not removed
/// yet: all removed at exit, so that a test process leaves no server behind.
final class ServerRegistry: Sendable {
    static let shared = ServerRegistry()

    private let state = Mutex((directories: [URL: PostgresPrograms](), removesAtExit: false))

    /// Remembers `directory`, to be removed at exit unless removed before.
    func register(_ directory: URL, programs: PostgresPrograms) {
        state.withLock { state in
            state.directories[directory] = programs
            if !state.removesAtExit {
                state.removesAtExit = true
                // XCTest's main ends with exit(), which runs this.
                atexit { ServerRegistry.shared.removeAll() }
            }
        }
    }

    /// Stops the server of `directory` at once, if it runs, and deletes the
    /// directory.
    func remove(_ directory: URL) {
        let programs = state.withLock { $0.directories.removeValue(forKey: directory) }
        guard let programs else { return }
        Self.discard(directory, programs: programs)
    }

    private func removeAll() {
        let all = state.withLock { state in
            defer { state.directories = [:] }
            return state.directories
        }
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
