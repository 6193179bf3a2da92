import Foundation
import GRDB
import ReactiveGRDB
import Synchronization

// MARK: - A file replaced

extension SQLiteDataSource {
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
        let current = connections.current
        // The connections keep the old file open: its inode is not reused
        // while they do, so that a new file has another identity.
        guard let file = FileIdentity(path: path) else { throw SourceError.missingFile(path: path) }
        guard file != current.file || current.isStale else { return false }
        // Opened outside the lock, which every read takes to find its
        // connection: a slow mount holds up this open only.
        return connections.replace(current, with: try Self.connect(path: path))
    }
}

/// The two connections of a `SQLiteDataSource`, and the file they opened.
struct ViewerConnection: Sendable {
    let reader: DatabaseQueue
    let backgroundReader: DatabaseQueue
    let interrupters: (reader: ReadInterrupter, background: ReadInterrupter)
    let file: FileIdentity
    /// True once the watch of commits said the file changed: ReactiveGRDB
    /// refuses to watch these connections again.
    var isStale = false
}

extension ViewerConnection {
    /// Reads with `body` on one of these connections, so that `ticket` can
    /// stop it: the interrupter is that connection's, whatever replaces it.
    func read<T>(background: Bool, ticket: ReadTicket?, _ body: (Database) throws -> T) throws -> T {
        try (background ? backgroundReader : reader).read { db in
            try run(background: background, ticket: ticket) { try body(db) }
        }
    }

    /// Runs `body`, a read of one of these connections that runs now, so
    /// that `ticket` can stop it.
    func run<T>(background: Bool, ticket: ReadTicket?, _ body: () throws -> T) throws -> T {
        guard let ticket else { return try body() }
        return try (background ? interrupters.background : interrupters.reader).run(ticket, body)
    }
}

/// The connections of a `SQLiteDataSource` and its copies, replaced together.
final class ViewerConnections: Sendable {
    private let state: Mutex<ViewerConnection>

    init(_ connection: ViewerConnection) {
        state = Mutex(connection)
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

    /// Replaces `expected` by `fresh`, unless another reopen replaced it
    /// first (`fresh` is then dropped).
    func replace(_ expected: ViewerConnection, with fresh: ViewerConnection) -> Bool {
        state.withLock { connection in
            guard connection.reader === expected.reader else { return false }
            connection = fresh
            return true
        }
    }
}
