import Foundation
import GRDB
import ReactiveGRDB
import Synchronization

// MARK: - A file replaced

extension SQLiteDataSource {
    /// Opens the path again when another file is there: one renamed over it
    /// (`litestream restore -o`, a deploy) or a remount. SQLite keeps reading
    /// the file it opened, whose rows would never change again.
    @discardableResult
    func reopenIfReplaced() throws -> Bool {
        let current = connections.current
        // The old file stays open, so its inode is not reused: a new file
        // has another identity.
        guard let file = FileIdentity(path: path) else { throw SourceError.missingFile(path: path) }
        guard file != current.file || current.isStale else { return false }
        // Opened outside the lock that every read takes: a slow mount holds
        // up this open only.
        return connections.replace(current, with: try Self.connect(path: path))
    }
}

struct ViewerConnection: Sendable {
    let reader: DatabaseQueue
    let backgroundReader: DatabaseQueue
    let interrupters: (reader: ReadInterrupter, background: ReadInterrupter)
    let file: FileIdentity
    /// Set when the watch of commits saw the file change: ReactiveGRDB
    /// refuses to watch these connections again.
    var isStale = false
}

extension ViewerConnection {
    /// The interrupter is this connection's, whatever replaces it.
    func read<T>(background: Bool, ticket: ReadTicket?, _ body: (Database) throws -> T) throws -> T {
        try (background ? backgroundReader : reader).read { db in
            try run(background: background, ticket: ticket) { try body(db) }
        }
    }

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

    func markStale(_ reader: DatabaseQueue) {
        state.withLock { connection in
            if connection.reader === reader {
                connection.isStale = true
            }
        }
    }

    /// Unless another reopen replaced it first (`fresh` is then dropped).
    func replace(_ expected: ViewerConnection, with fresh: ViewerConnection) -> Bool {
        state.withLock { connection in
            guard connection.reader === expected.reader else { return false }
            connection = fresh
            return true
        }
    }
}
