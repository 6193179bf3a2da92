import Foundation

/// A database file in WAL mode on a `RemoteFileSystem`: the commits that
/// other machines make to it can not be seen from this machine.
///
/// A WAL reader learns of new commits from the WAL index, the `-shm` file
/// that SQLite maps in memory. Machines do not share that memory through a
/// network or FUSE file system, so a reader here keeps reading the commits
/// it knew of. Only a rollback-journal file (`PRAGMA journal_mode=DELETE`)
/// can be followed from another machine. The watch of
/// `includingOtherProcesses(.fileEvents(onPollingFallback:))` gives this
/// description as its reason.
///
/// For example:
///
/// ```swift
/// if let file = RemoteWALFile(path: "/mnt/share/app.sqlite") {
///     print(file) // the database is in WAL mode on a FUSE file system (fuse), which...
/// }
/// ```
public struct RemoteWALFile: Error, Sendable, Hashable, CustomStringConvertible {
    /// The path of the database file.
    public let path: String
    /// The file system it is on.
    public let fileSystem: RemoteFileSystem

    /// The file at `path`, if it is a database in WAL mode (its header
    /// says so) on a `RemoteFileSystem`; nil otherwise, or when the file
    /// can not be read.
    ///
    /// - parameter path: The path of a database file.
    public init?(path: String) {
        guard let fileSystem = RemoteFileSystem(containingFileAt: path), Self.isInWALMode(path: path) else {
            return nil
        }
        self.path = path
        self.fileSystem = fileSystem
    }

    /// One line: what is wrong, and what to do.
    public var description: String {
        "the database is in WAL mode on a \(fileSystem), which does not share its -shm index "
            + "between machines: commits from other machines can not be seen "
            + "(use journal_mode=DELETE, or read it on the writer's machine)"
    }

    /// Whether the header of the database file at `path` says WAL mode:
    /// its bytes 18 and 19, the write and read versions, are 2.
    static func isInWALMode(path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 20), header.count == 20 else { return false }
        return header.starts(with: Array("SQLite format 3\0".utf8)) && header[18] == 2 && header[19] == 2
    }
}
