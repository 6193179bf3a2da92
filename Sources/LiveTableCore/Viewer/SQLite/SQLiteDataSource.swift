import Foundation
import GRDB
import OpenCombine
import ReactiveGRDB

/// Any SQLite file, opened read-only: the viewer's SQLite data source.
///
/// The viewer never writes: `SQLITE_OPEN_READONLY` makes SQLite refuse any
/// write, and each connection runs only reads and the functions they need
/// (`guardConnection(_:)`): a filter, a query or a view is untrusted SQL.
/// Every read is one short transaction, so that a rollback-journal writer
/// never waits longer than one fetch.
///
/// A WAL file needs its `-wal` and `-shm` files even to read: a read-only
/// connection creates them where it can and leaves them empty, as every
/// SQLite reader does; in a read-only directory, it reads only while its
/// writer has it open. An open connection to a WAL file holds a shared
/// lock: while the viewer runs, no process can leave WAL mode or take
/// `locking_mode=EXCLUSIVE`.
package struct SQLiteDataSource: Sendable {
    /// How long a read waits for a rollback-journal writer's lock.
    package static let busyTimeout: TimeInterval = 1

    package let path: String

    /// For what the screen waits for. A `DatabaseQueue`, not a pool: a
    /// pool's readers wait 10 s for a lock (GRDB's busy timeout).
    package var reader: DatabaseQueue { connections.current.reader }

    /// For what may take long (an exact count, a sort by a scan), so that it
    /// never holds up `reader`.
    package var backgroundReader: DatabaseQueue { connections.current.backgroundReader }

    var interrupters: (reader: ReadInterrupter, background: ReadInterrupter) { connections.current.interrupters }

    /// Opened again when another file takes the path's place
    /// (`reopenIfReplaced()`); shared by the copies.
    let connections: ViewerConnections

    package var polling = CommitPolling()

    /// nil: inotify's file events; else checks at `polling`'s interval, when
    /// asked or where the events are not enough.
    package var commits: OtherProcessCommits?

    /// Shared by the copies of this value.
    let livenessReports = LivenessReports()

    package static func open(path: String, polling: CommitPolling = CommitPolling()) throws -> SQLiteDataSource {
        SQLiteDataSource(path: path, connections: ViewerConnections(try connect(path: path)), polling: polling)
    }

    static func connect(path: String, attempts: Int = 3) throws -> ViewerConnection {
        try checkFile(atPath: path)
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .callback(retryEveryMillisecond)
        configuration.prepareDatabase { db in try guardConnection(db) }
        do {
            // GRDB reads at open: a locked, encrypted or garbage file fails here.
            let interrupters = (reader: ReadInterrupter(), background: ReadInterrupter())
            var readerConfiguration = configuration
            readerConfiguration.label = "livetable.viewer"
            readerConfiguration.prepareDatabase { db in interrupters.reader.prepare(db) }
            let file = FileIdentity(path: path)
            let reader = try DatabaseQueue(path: path, configuration: readerConfiguration)
            var backgroundConfiguration = configuration
            backgroundConfiguration.label = "livetable.viewer.background"
            backgroundConfiguration.prepareDatabase { db in interrupters.background.prepare(db) }
            let backgroundReader = try DatabaseQueue(path: path, configuration: backgroundConfiguration)
            // Weak: the connection's configuration keeps the interrupter.
            interrupters.reader.interruptConnection = { [weak reader] in reader?.interrupt() }
            interrupters.background.interruptConnection = { [weak backgroundReader] in backgroundReader?.interrupt() }
            guard let file, file == FileIdentity(path: path) else {
                // Replaced while it opened: the connections may read either file.
                guard attempts > 1 else { throw SourceError.missingFile(path: path) }
                return try connect(path: path, attempts: attempts - 1)
            }
            return ViewerConnection(reader: reader, backgroundReader: backgroundReader, interrupters: interrupters, file: file)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_IOERR {
            // SQLite's bare "disk I/O error": a WAL file whose -shm index a
            // FUSE mount with direct_io, or a network file system, can not map.
            guard let file = RemoteWALFile(path: path) else { throw SourceError(opening: path, error: error) }
            let mount = file.fileSystem.kind == .fuse ? " mounted with direct_io" : ""
            throw SourceError.cannotOpen(path: path, reason: "it is in WAL mode, which a \(file.fileSystem)\(mount) "
                + "can not read (no shared -shm index): use journal_mode=DELETE, or view it on the writer's machine")
        } catch {
            throw SourceError(opening: path, error: error)
        }
    }

    /// One short transaction; errors become `SourceError`.
    package func read<T>(
        background: Bool = false, ticket: ReadTicket? = nil, _ body: (Database) throws -> T) throws -> T
    {
        do {
            return try connections.current.read(background: background, ticket: ticket, body)
        } catch let error as SourceError {
            throw error
        } catch {
            throw SourceError(reading: path, error: error)
        }
    }

    package func withPolling(_ polling: CommitPolling) -> SQLiteDataSource {
        var database = self
        database.polling = polling
        return database
    }

    /// As `read`, with SQLite's errors as they are.
    func readRaw<T>(background: Bool, ticket: ReadTicket, _ body: (Database) throws -> T) throws -> T {
        try connections.current.read(background: background, ticket: ticket, body)
    }

    // MARK: - Locks

    /// A writer of a rollback-journal file that commits without pause holds
    /// its lock most of the time, releasing it for a moment between commits.
    /// SQLite's busy timeout backs off to 100 ms sleeps and misses those
    /// moments; retrying every millisecond gets in between, and never delays
    /// the writer (a waiting writer's PENDING lock stops new readers).
    private static let retryEveryMillisecond: Database.BusyCallback = { numberOfTries in
        guard numberOfTries < Int(busyTimeout * 1000) else { return false }
        usleep(1000)
        return true
    }

    // MARK: - File checks

    /// What SQLite would report less clearly.
    private static func checkFile(atPath path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw errno == ENOENT || errno == ENOTDIR
                ? SourceError.missingFile(path: path)
                : SourceError.cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            throw SourceError.cannotOpen(path: path, reason: "it is a directory")
        case S_IFREG:
            break
        default:
            throw SourceError.cannotOpen(path: path, reason: "not a regular file")
        }
        guard access(path, R_OK) == 0 else {
            throw SourceError.cannotOpen(path: path, reason: "permission denied")
        }
    }
}
