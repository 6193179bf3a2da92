import Foundation
import GRDB
import OpenCombine
import ReactiveGRDB

/// Any SQLite file, opened for reading only: the viewer's data source for
/// SQLite (`ViewerDataSource`).
///
/// The viewer never writes: its connections are opened with
/// `SQLITE_OPEN_READONLY` (GRDB's `Configuration.readonly`), so SQLite
/// itself refuses any write, and nothing changes the journal mode. Each
/// connection runs only reads and the built-in functions they need
/// (`guardConnection(_:)`): a filter, a query or a view of the file is
/// untrusted SQL. A
/// rollback-journal file gets no `-wal` file. Every read is one short
/// transaction (one `read`), so that a writer of a rollback-journal file is
/// never kept waiting for longer than one fetch.
///
/// On a WAL file, SQLite needs the `-wal` and `-shm` files even to read: a
/// read-only connection creates them if they are missing and the directory
/// can be written, and leaves them (empty) when it closes, as every
/// read-only SQLite client does. In a read-only directory, a WAL file can
/// only be read while those files exist (its writer has it open). And an
/// open connection to a WAL file, even idle, holds a shared lock on it: as
/// long as the viewer runs, another process can not switch the file out of
/// WAL mode nor take `locking_mode=EXCLUSIVE`. A rollback-journal file is
/// not locked between reads.
///
/// A read that the screen leaves is interrupted (`ReadTicket`), so that the
/// connection is free for the next one at once.
///
/// For example:
///
/// ```swift
/// let database = try SQLiteDataSource.open(path: "app.sqlite")
/// let tables = try database.read { db in try TableSchema.all(db) }
/// let program = ViewerProgram(dataSource: database)
/// ```
public struct SQLiteDataSource: Sendable {
    /// How long a read waits for another process that locks the file
    /// (a rollback-journal writer that commits), before it fails.
    public static let busyTimeout: TimeInterval = 1

    /// The path of the file.
    public let path: String

    /// The read-only connection for what the screen waits for: windows,
    /// the schema.
    ///
    /// A `DatabaseQueue`, not a `DatabasePool`: a pool's readers wait 10
    /// seconds for a lock (GRDB sets their busy timeout), and a queue waits
    /// `busyTimeout`.
    public var reader: DatabaseQueue { connections.current.reader }

    /// A second read-only connection, for what may take long (an exact
    /// row count, a sort by a scan), so that it never holds up `reader`.
    public var backgroundReader: DatabaseQueue { connections.current.backgroundReader }

    /// The reads of `reader` and `backgroundReader` that can be left
    /// (`ReadTicket`).
    var interrupters: (reader: ReadInterrupter, background: ReadInterrupter) { connections.current.interrupters }

    /// The connections to the file at `path`, opened again when another
    /// file takes its place (`reopenIfReplaced()`); shared by the copies.
    let connections: ViewerConnections

    /// The checks at an interval asked for (`--poll`), if any.
    public var polling = CommitPolling()

    /// How the window observations see other processes' commits: nil for
    /// inotify's file events, and checks at the interval of `polling` when
    /// asked, or where the events are not enough (reported by
    /// `liveness()`).
    public var commits: OtherProcessCommits?

    /// Where the window observations report that they poll; shared by the
    /// copies of this value.
    let livenessReports = LivenessReports()

    /// Opens the file at `path` for reading only.
    ///
    /// For example:
    ///
    /// ```swift
    /// do {
    ///     let database = try SQLiteDataSource.open(path: "missing.sqlite")
    /// } catch let error as SourceError {
    ///     print(error) // cannot open "missing.sqlite": no such file
    /// }
    /// ```
    ///
    /// - parameter path: The path to the database file.
    /// - parameter polling: The checks at an interval asked for (`--poll`),
    ///   if any.
    /// - throws: A `SourceError`, which describes itself in one line.
    public static func open(path: String, polling: CommitPolling = CommitPolling()) throws -> SQLiteDataSource {
        SQLiteDataSource(path: path, connections: ViewerConnections(try connect(path: path)), polling: polling)
    }

    /// Opens the two connections to the file now at `path`.
    static func connect(path: String, attempts: Int = 3) throws -> ViewerConnection {
        try checkFile(atPath: path)
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .callback(retryEveryMillisecond)
        // What a user types and what the file holds is untrusted SQL.
        configuration.prepareDatabase { db in try guardConnection(db) }
        do {
            // Opening runs one read (GRDB checks that the file is a
            // database): a locked, encrypted or garbage file fails here.
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
            // Weak: the connection keeps its interrupter (in its
            // configuration), not the other way round.
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

    /// Reads the file with `body` in one short transaction, turning
    /// errors into `SourceError`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let count = try database.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
    /// ```
    ///
    /// - parameter background: True to read on `backgroundReader`.
    /// - parameter ticket: What can stop the read before it ends
    ///   (`ReadTicket.abandon()`, a time limit); the read then throws.
    public func read<T>(
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

    /// The same file, checked at the interval of `polling` too.
    ///
    /// For example:
    ///
    /// ```swift
    /// let program = ViewerProgram(dataSource: database.withPolling(CommitPolling(interval: 0.5)))
    /// ```
    public func withPolling(_ polling: CommitPolling) -> SQLiteDataSource {
        var database = self
        database.polling = polling
        return database
    }

    /// Reads the file with `body` in one short transaction, so that
    /// `ticket` can stop it; its errors are SQLite's, as they are.
    func readRaw<T>(background: Bool, ticket: ReadTicket, _ body: (Database) throws -> T) throws -> T {
        try connections.current.read(background: background, ticket: ticket, body)
    }

    // MARK: - Locks

    /// Waits one millisecond before each retry of a lock that another
    /// process holds, for `busyTimeout` at most.
    ///
    /// A writer of a rollback-journal file that commits without pause
    /// holds its exclusive lock for most of the time (each commit waits
    /// for its fsync), and releases it for a moment between commits.
    /// SQLite's own busy timeout backs off to sleeps of 100 ms and misses
    /// those moments, so a viewer would see nothing for seconds. Retrying
    /// every millisecond gets in between two commits, and never delays the
    /// writer: a writer that waits for readers holds SQLite's PENDING lock,
    /// which no new reader passes.
    private static let retryEveryMillisecond: Database.BusyCallback = { numberOfTries in
        guard numberOfTries < Int(busyTimeout * 1000) else { return false }
        usleep(1000)
        return true
    }

    // MARK: - File checks

    /// Checks from the file system what SQLite would report less clearly.
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
