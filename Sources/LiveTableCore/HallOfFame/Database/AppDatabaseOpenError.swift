import Foundation
import GRDB

/// The reason why `AppDatabase.open(path:seed:)` can not open a database.
///
/// Its description is one line that names the file and the cause.
package enum AppDatabaseOpenError: Error, CustomStringConvertible, Equatable {
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
    package var description: String {
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
