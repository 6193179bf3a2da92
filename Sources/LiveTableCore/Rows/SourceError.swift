import GRDB

/// Why the viewer can not show what it was asked for, in one line whatever
/// the names and messages it quotes hold (control characters escaped).
package enum SourceError: Error, CustomStringConvertible, Equatable {
    case missingFile(path: String)
    case cannotOpen(path: String, reason: String)
    /// Garbage, or encrypted.
    case notADatabase(path: String)
    case locked(path: String)
    /// A WAL database in a read-only directory whose `-shm` file is missing.
    case walNeedsSharedMemory(path: String)
    /// A hot journal or a WAL to recover: only a read-write connection can.
    case needsRecovery(path: String)
    case noSuchTable(name: String, tables: [String])
    case noSuchColumn(name: String, source: String, columns: [String])
    /// SQLite can not read it (a virtual table of an unknown module…).
    case unreadableTable(name: String, reason: String)
    case emptyQuery
    case multipleStatements
    /// `sqlite3_stmt_readonly` says it would write.
    case notReadOnly
    /// A statement without rows: a PRAGMA that sets, BEGIN…
    case noResultColumns
    /// Does not compile, or can not be paged (not a SELECT).
    case invalidQuery(reason: String)
    case invalidFilter(reason: String)
    case databaseError(path: String, message: String)

    package var description: String {
        switch self {
        case let .missingFile(path):
            return "cannot open \(quoted(path)): no such file"
        case let .cannotOpen(path, reason):
            return "cannot open \(quoted(path)): \(reason.escapingControlCharacters)"
        case let .notADatabase(path):
            return "cannot open \(quoted(path)): not a SQLite database (or encrypted)"
        case let .locked(path):
            return "cannot read \(quoted(path)): the database is locked by another process"
        case let .walNeedsSharedMemory(path):
            return "cannot open \(quoted(path)): a WAL database in a read-only directory "
                + "can be read only while its -shm file exists (while a writer has it open)"
        case let .needsRecovery(path):
            return "cannot read \(quoted(path)): a writer stopped in the middle of a transaction, "
                + "and a read-only reader cannot roll it back (the next writer will)"
        case let .noSuchTable(name, tables):
            let list = tables.isEmpty ? "no tables" : namesList(tables, near: name)
            return "no table or view \(quoted(name)): the file has \(list)"
        case let .noSuchColumn(name, source, columns):
            return "no column \(quoted(name)) in \(quoted(source)): its columns are "
                + namesList(columns, near: name)
        case let .unreadableTable(name, reason):
            return "cannot read \(quoted(name)): \(reason.escapingControlCharacters)"
        case .emptyQuery:
            return "the query is empty"
        case .multipleStatements:
            return "the query holds more than one statement: give one SELECT"
        case .notReadOnly:
            return "the query is not read-only: livetable view only reads"
        case .noResultColumns:
            return "the query returns no rows: give a SELECT"
        case let .invalidQuery(reason):
            return "invalid query: \(reason.escapingControlCharacters)"
        case let .invalidFilter(reason):
            return "invalid filter: \(reason.escapingControlCharacters)"
        case let .databaseError(path, message):
            return "cannot read \(quoted(path)): \(message.escapingControlCharacters)"
        }
    }

    init(opening path: String, error: any Error) {
        guard let error = error as? DatabaseError else {
            self = .cannotOpen(path: path, reason: String(describing: error))
            return
        }
        switch error.extendedResultCode {
        case .SQLITE_READONLY_DIRECTORY:
            self = .walNeedsSharedMemory(path: path)
            return
        case .SQLITE_READONLY_ROLLBACK, .SQLITE_READONLY_RECOVERY:
            self = .needsRecovery(path: path)
            return
        default:
            break
        }
        switch error.resultCode {
        case .SQLITE_NOTADB:
            self = .notADatabase(path: path)
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            self = .locked(path: path)
        case .SQLITE_PERM, .SQLITE_AUTH, .SQLITE_CANTOPEN:
            self = .cannotOpen(path: path, reason: error.message ?? "\(error.resultCode)")
        default:
            self = .databaseError(path: path, message: error.message ?? "\(error.resultCode)")
        }
    }

    init(reading path: String, error: any Error) {
        guard let error = error as? DatabaseError else {
            self = .databaseError(path: path, message: String(describing: error))
            return
        }
        if error.extendedResultCode == .SQLITE_READONLY_ROLLBACK
            || error.extendedResultCode == .SQLITE_READONLY_RECOVERY
        {
            self = .needsRecovery(path: path)
            return
        }
        switch error.resultCode {
        case .SQLITE_NOTADB:
            self = .notADatabase(path: path)
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            self = .locked(path: path)
        default:
            self = .databaseError(path: path, message: error.message ?? "\(error.resultCode)")
        }
    }
}

private func quoted(_ name: String) -> String {
    "\"" + name.escapingControlCharacters + "\""
}

private func quotedListed(_ name: String) -> String {
    quoted(name.cut(toLength: maximumNameLength))
}

private let maximumNameLength = 64

/// A file of 20,000 tables gets a line, not a page.
private let maximumListedNames = 10

/// Few: all, in order; many: those that look like `name` first (the same
/// but for case, or one holding the other), then the others, and a count.
private func namesList(_ names: [String], near name: String) -> String {
    guard names.count > maximumListedNames else { return names.map(quotedListed).joined(separator: ", ") }
    let wanted = name.lowercased()
    let isNear = { (candidate: String) -> Bool in
        let candidate = candidate.lowercased()
        return !wanted.isEmpty && !candidate.isEmpty && (candidate.contains(wanted) || wanted.contains(candidate))
    }
    var listed = Array(names.lazy.filter(isNear).prefix(maximumListedNames))
    if listed.count < maximumListedNames {
        listed += Array(names.lazy.filter { !isNear($0) }.prefix(maximumListedNames - listed.count))
    }
    let list = listed.map(quotedListed).joined(separator: ", ")
    let more = names.count - listed.count
    return more > 0 ? list + " and \(more) more" : list
}
