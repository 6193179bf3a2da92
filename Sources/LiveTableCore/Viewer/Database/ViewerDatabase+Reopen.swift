import Foundation
import GRDB
import ReactiveGRDB

// MARK: - A file replaced

extension ViewerDatabase {
    /// Opens the file now at `path` again when it is another file than the
    /// one the connections read: one renamed over it (`litestream restore
    /// -o`, a deploy script), or the same path after a remount. SQLite keeps
    /// reading the file it opened, whose rows would never change again.
    ///
    /// - returns: True when the connections were replaced.
    /// - throws: `SourceError.missingFile` while no file is at `path`, or
    ///   the error of opening the new one.
    @discardableResult
    func reopenIfReplaced() throws -> Bool {
        try connections.replaceIfStale { current in
            // The connections keep the old file open: its inode is not
            // reused while they do, so that a new file has another identity.
            guard let file = FileIdentity(path: path) else { throw SourceError.missingFile(path: path) }
            return file == current.file && !current.isStale ? nil : try Self.connect(path: path)
        }
    }
}

/// The two connections of a `ViewerDatabase`, and the file they opened.
struct ViewerConnection: Sendable {
    let reader: DatabaseQueue
    let backgroundReader: DatabaseQueue
    let interrupters: (reader: ReadInterrupter, background: ReadInterrupter)
    let file: FileIdentity
    /// True once the watch of commits said the file changed: ReactiveGRDB
    /// refuses to watch these connections again.
    var isStale = false
}

/// The connections of a `ViewerDatabase` and its copies, replaced together.
final class ViewerConnections: Sendable {
    private let state: LockedValue<ViewerConnection>

    init(_ connection: ViewerConnection) {
        state = LockedValue(connection)
    }

    var current: ViewerConnection {
        state.withLock { $0 }
    }

    /// Marks the connections stale if `reader` is still theirs.
    func markStale(_ reader: DatabaseQueue) {
        state.withLock { connection in
            if connection.reader === reader {
                connection.isStale = true
            }
        }
    }

    /// Replaces the connections by those `reopen` opens, if it does: under
    /// the lock, so that two reads that find the file replaced open it once.
    func replaceIfStale(_ reopen: (ViewerConnection) throws -> ViewerConnection?) throws -> Bool {
        try state.withLock { connection in
            Result {
                guard let fresh = try reopen(connection) else { return false }
                connection = fresh
                return true
            }
        }.get()
    }
}
