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
    package static func open(
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
    package static func playerCount(atPath path: String) throws -> Int {
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
    package func close() throws {
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
