import Foundation
import GRDB

extension AppDatabase {
    /// How long `open(path:seed:)` waits for another process that locks
    /// the database, before it fails.
    static let openBusyTimeout: TimeInterval = 0.25

    /// How long writes wait for another process that writes in the
    /// database, once it is open.
    static let busyTimeout: TimeInterval = 5

    /// Opens a database file for the app, creating it if it does not
    /// exist, as a `DatabasePool` (WAL mode), so that other processes can
    /// read and write it concurrently.
    /// The file is validated before anything is written to it; a failed open removes the files it created.
    public static func open(
        path: String, seed: UInt64? = nil,
        prepare: ((AppDatabase) throws -> Void)? = nil) throws -> AppDatabase
    {
        // Before the validation: reading a WAL database creates its -wal
        // and -shm files, and a full disk keeps them there.
        let newFiles = NewFiles(databasePath: path)
        do {
            try validateDatabaseFile(atPath: path)
        } catch {
            newFiles.remove()
            throw error
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        var pool: DatabasePool?
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            let appDatabase = try AppDatabase(pool!, seed: seed)
            try prepare?(appDatabase)
            return appDatabase
        } catch {
            // Described before the clean-up frees the disk.
            let openError = AppDatabaseOpenError(path: path, error: error)
            try? pool?.close()
            newFiles.remove()
            throw openError
        }
    }

    /// The files of a database that do not exist yet, so that a failed
    /// open can remove those it created.
    private struct NewFiles {
        var database: String?
        var companions: [String]

        init(databasePath path: String) {
            let isNew = { (path: String) in !FileManager.default.fileExists(atPath: path) }
            database = isNew(path) ? path : nil
            companions = [path + "-wal", path + "-shm", path + "-journal"].filter(isNew)
        }

        func remove() {
            for path in companions + (database.map { [$0] } ?? []) {
                unlink(path)
            }
        }
    }

    /// The number of players in the file at `path`, read without writing to it, as `open` does at once:
    /// 0 for a new, empty or foreign file. The demo asks before it plays on a user's players.
    public static func playerCount(atPath path: String) throws -> Int {
        try validateDatabaseFile(atPath: path)
        guard let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, size > 0 else {
            return 0
        }
        do {
            // Beside a journal, which may be hot, read-only: it is not
            // rolled back. Otherwise read-write, which removes the -wal and
            // -shm files that reading a WAL database creates, as a
            // read-only connection can not.
            let readonly = FileManager.default.fileExists(atPath: path + "-journal")
            return try withPlainConnection(atPath: path, busyTimeout: openBusyTimeout, readonly: readonly) { dbQueue in
                try dbQueue.read { db in
                    try db.tableExists("playerStats") ? playerCount(db) : 0
                }
            }
        } catch {
            throw AppDatabaseOpenError(path: path, error: error)
        }
    }

    /// Closes the database, and removes its `-wal` and `-shm` files: a pool closes its writer first, so a
    /// short read-write connection closed after it is the last one, and checkpoints.
    public func close() throws {
        try writer.close()
        let path = writer.path
        guard writer is DatabasePool, FileManager.default.fileExists(atPath: path + "-wal") else {
            return
        }
        try Self.withPlainConnection(atPath: path, busyTimeout: Self.busyTimeout) { _ in }
    }

    /// Runs `body` on a plain connection, which, unlike a `DatabasePool`, leaves the journal mode alone and
    /// writes nothing, but for a hot journal, which a read-write connection rolls back as it reads (a
    /// `readonly` one fails with `SQLITE_READONLY_ROLLBACK` instead).
    private static func withPlainConnection<T>(
        atPath path: String,
        busyTimeout: TimeInterval,
        readonly: Bool = false,
        _ body: (DatabaseQueue) throws -> T) throws -> T
    {
        var configuration = Configuration()
        configuration.readonly = readonly
        configuration.busyMode = .timeout(busyTimeout)
        let dbQueue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? dbQueue.close() }
        return try body(dbQueue)
    }

    // MARK: - Validation

    /// Throws if the file can not become a livetable database without damage. Opening a pool would switch it
    /// to WAL and migrate it: so it is checked first, with only reads and a lock.
    static func validateDatabaseFile(atPath path: String) throws {
        let directory = directoryPath(of: path)
        guard let directoryInfo = fileInfo(atPath: directory), directoryInfo.isDirectory else {
            throw AppDatabaseOpenError.missingDirectory(path: path, directory: directory)
        }
        guard let info = fileInfo(atPath: path) else {
            // A new file: SQLite must be able to create it.
            guard isWritable(directory, directoryInfo) else {
                throw AppDatabaseOpenError.readOnlyDirectory(path: path, directory: directory)
            }
            return
        }
        if info.isDirectory {
            throw AppDatabaseOpenError.isDirectory(path: path)
        }
        guard info.isRegularFile else {
            throw AppDatabaseOpenError.notAFile(path: path)
        }
        guard access(path, R_OK) == 0 else {
            throw AppDatabaseOpenError.unreadable(path: path)
        }
        guard isWritable(path, info) else {
            throw AppDatabaseOpenError.readOnlyFile(path: path)
        }
        // The journal and WAL files live next to the database.
        guard isWritable(directory, directoryInfo) else {
            throw AppDatabaseOpenError.readOnlyDirectory(path: path, directory: directory)
        }
        switch try header(ofFileAtPath: path) {
        case .empty:
            return // SQLite treats an empty file as an empty database.
        case .notSQLite:
            throw AppDatabaseOpenError.notADatabase(path: path)
        case .sqlite:
            break
        }

        do {
            // The schema is read by a read-only connection: a foreign file
            // with a hot journal is refused as it is, not rolled back.
            try withPlainConnection(atPath: path, busyTimeout: openBusyTimeout, readonly: true) { dbQueue in
                try dbQueue.read { db in try validateSchema(db, path: path) }
            }
            try withPlainConnection(atPath: path, busyTimeout: openBusyTimeout) { dbQueue in
                try dbQueue.writeWithoutTransaction { db in
                    // Take the write lock, and release it at once: this
                    // fails if another process holds the database locked.
                    try db.inTransaction(.immediate) { .rollback }
                }
            }
        } catch let error as AppDatabaseOpenError {
            throw error
        } catch {
            throw AppDatabaseOpenError(path: path, error: error)
        }
    }

    /// Throws unless the database is empty or a livetable one this version knows. Every schema object
    /// counts: a lone view named `player` would fail the migration after the switch to WAL.
    private static func validateSchema(_ db: Database, path: String) throws {
        // SQLite's own objects (sqlite_sequence, sqlite_autoindex_…,
        // sqlite_stat1) come with the user's.
        let objectCount = try Int.fetchOne(db, sql: """
            SELECT COUNT(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
            """) ?? 0
        if objectCount == 0 {
            return
        }
        guard try isTable(db, "grdb_migrations"),
              try migrator.appliedIdentifiers(db).contains(playerMigrationIdentifier)
        else {
            throw AppDatabaseOpenError.notALivetableDatabase(path: path)
        }
        if try migrator.hasBeenSuperseded(db) {
            throw AppDatabaseOpenError.newerDatabase(path: path)
        }
        // The tables of the applied migrations must still be there, with
        // their columns: another process may have replaced one.
        let applied = try migrator.appliedIdentifiers(db)
        for (migration, tables) in migratedTables where applied.contains(migration) {
            for (table, columns) in tables {
                guard try isTable(db, table) else {
                    throw AppDatabaseOpenError.changedSchema(path: path, reason: "\(table) is not a table")
                }
                let existing = Set(try db.columns(in: table).map { $0.name.lowercased() })
                if let missing = columns.first(where: { !existing.contains($0.lowercased()) }) {
                    throw AppDatabaseOpenError.changedSchema(path: path, reason: "\(table) has no \(missing) column")
                }
            }
        }
    }

    /// The tables that each migration creates, and the columns the app
    /// reads and writes in them.
    private static let migratedTables: [(migration: String, tables: [(String, [String])])] = [
        (playerMigrationIdentifier, [("player", ["id", "name", "score"])]),
        ("createPlayerStatistics", [
            ("playerStats", ["id", "playerCount"]),
            ("playerScoreBucket", ["bucket", "playerCount"]),
            ("playerNameBucket", ["bucket", "playerCount"]),
        ]),
    ]

    private static func isTable(_ db: Database, _ name: String) throws -> Bool {
        try Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE)
            """, arguments: [name]) ?? false
    }

    private static func directoryPath(of path: String) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        return directory.isEmpty ? "." : directory
    }

    private struct FileInfo {
        var mode: mode_t
        var isDirectory: Bool { mode & S_IFMT == S_IFDIR }
        var isRegularFile: Bool { mode & S_IFMT == S_IFREG }
    }

    private static func fileInfo(atPath path: String) -> FileInfo? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileInfo(mode: info.st_mode)
    }

    /// Whether the app may write at `path`. Without any write permission
    /// bit, a file or directory is read-only even for root, who could
    /// write it anyway: a user who removes write permissions means it.
    private static func isWritable(_ path: String, _ info: FileInfo) -> Bool {
        access(path, W_OK) == 0 && info.mode & 0o222 != 0
    }

    private enum Header {
        case empty, sqlite, notSQLite
    }

    private static func header(ofFileAtPath path: String) throws -> Header {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw AppDatabaseOpenError.unreadable(path: path)
        }
        defer { try? handle.close() }
        let magic = Array("SQLite format 3\0".utf8)
        let bytes: [UInt8]
        do {
            bytes = Array(try handle.read(upToCount: magic.count) ?? Data())
        } catch {
            throw AppDatabaseOpenError.unreadable(path: path)
        }
        if bytes.isEmpty {
            return .empty
        }
        return bytes == magic ? .sqlite : .notSQLite
    }
}

/// The reason why `AppDatabase.open(path:seed:)` can not open a database.
///
/// Its description is one line that names the file and the cause.
///
/// For example:
///
/// ```swift
/// let error = AppDatabaseOpenError.notADatabase(path: "notes.txt")
/// print(error) // cannot open "notes.txt": not a SQLite database
/// ```
public enum AppDatabaseOpenError: Error, CustomStringConvertible, Equatable {
    /// The directory of the file does not exist (nothing is created).
    case missingDirectory(path: String, directory: String)
    /// The path is a directory.
    case isDirectory(path: String)
    /// The path is not a regular file (a device, a socket…).
    case notAFile(path: String)
    /// The file can not be read.
    case unreadable(path: String)
    /// The file can not be written.
    case readOnlyFile(path: String)
    /// The directory of the file can not be written: the file can not be
    /// created, or SQLite can not create its journal and WAL files.
    case readOnlyDirectory(path: String, directory: String)
    /// The file is not a SQLite database.
    case notADatabase(path: String)
    /// The file is a SQLite database with tables, but not a livetable one.
    case notALivetableDatabase(path: String)
    /// The database was migrated by a newer version of livetable.
    case newerDatabase(path: String)
    /// A livetable database whose tables another program replaced or
    /// altered: `reason` says which ("player is not a table").
    case changedSchema(path: String, reason: String)
    /// Another process holds a lock on the database.
    case locked(path: String)
    /// A writer stopped in the middle of a transaction and left a hot
    /// journal, which livetable does not roll back.
    case needsRecovery(path: String)
    /// The disk (or the file system of the database) is full.
    case diskFull(path: String)
    /// Another SQLite error.
    case databaseError(path: String, message: String)

    /// The path of the file.
    ///
    /// For example:
    ///
    /// ```swift
    /// AppDatabaseOpenError.locked(path: "players.sqlite").path // "players.sqlite"
    /// ```
    var path: String {
        switch self {
        case let .missingDirectory(path, _), let .isDirectory(path), let .notAFile(path),
             let .unreadable(path), let .readOnlyFile(path), let .readOnlyDirectory(path, _),
             let .notADatabase(path), let .notALivetableDatabase(path), let .newerDatabase(path),
             let .changedSchema(path, _), let .locked(path), let .needsRecovery(path), let .diskFull(path),
             let .databaseError(path, _):
            return path
        }
    }

    /// One line: the file and the cause.
    ///
    /// For example:
    ///
    /// ```swift
    /// print(AppDatabaseOpenError.readOnlyFile(path: "players.sqlite"))
    /// // cannot open "players.sqlite": the file is read-only
    /// ```
    public var description: String {
        let cause: String
        switch self {
        case let .missingDirectory(_, directory):
            cause = "the directory \(Self.quoted(directory)) does not exist"
        case .isDirectory:
            cause = "it is a directory"
        case .notAFile:
            cause = "not a regular file"
        case .unreadable:
            cause = "permission denied"
        case .readOnlyFile:
            cause = "the file is read-only"
        case let .readOnlyDirectory(_, directory):
            cause = "the directory \(Self.quoted(directory)) is read-only"
        case .notADatabase:
            cause = "not a SQLite database"
        case .notALivetableDatabase:
            cause = "a SQLite database, but not a livetable one (it holds other tables, views, indexes or triggers)"
        case .newerDatabase:
            cause = "the database was created by a newer version of livetable"
        case let .changedSchema(_, reason):
            cause = "a livetable database changed by another program (\(reason.escapingControlCharacters))"
        case .locked:
            cause = "the database is locked by another process"
        case .needsRecovery:
            cause = "a writer stopped in the middle of a transaction (its -journal is left); "
                + "livetable does not roll back another program's file: open it with that program first"
        case .diskFull:
            cause = "the disk is full"
        case let .databaseError(_, message):
            cause = message.escapingControlCharacters
        }
        return "cannot open \(Self.quoted(path)): \(cause)"
    }

    /// Creates an error from an error of SQLite.
    init(path: String, error: any Error) {
        guard let error = error as? DatabaseError else {
            self = .databaseError(path: path, message: String(describing: error))
            return
        }
        if error.extendedResultCode == .SQLITE_READONLY_ROLLBACK {
            self = .needsRecovery(path: path)
            return
        }
        switch error.resultCode {
        case .SQLITE_FULL:
            self = .diskFull(path: path)
        case .SQLITE_IOERR where Self.isDiskFull(atPath: path):
            // A write that finds no room for the shared-memory index or
            // the WAL is reported as an I/O error.
            self = .diskFull(path: path)
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            self = .locked(path: path)
        case .SQLITE_NOTADB:
            self = .notADatabase(path: path)
        case .SQLITE_READONLY:
            self = .readOnlyFile(path: path)
        case .SQLITE_PERM, .SQLITE_AUTH:
            self = .unreadable(path: path)
        default:
            self = .databaseError(path: path, message: error.message ?? "\(error.resultCode)")
        }
    }

    /// True when the file system of the database has no block left.
    private static func isDiskFull(atPath path: String) -> Bool {
        var info = statvfs()
        let directory = (path as NSString).deletingLastPathComponent
        guard statvfs(directory.isEmpty ? "." : directory, &info) == 0 else { return false }
        return info.f_bavail == 0
    }

    /// The path in quotes, control characters escaped, so that the
    /// description stays on one line whatever the path.
    private static func quoted(_ path: String) -> String {
        "\"" + path.escapingControlCharacters + "\""
    }
}
