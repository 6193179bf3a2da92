import Foundation
import GRDB
import OpenCombine
import OpenCombineDispatch
import ReactiveGRDB

// MARK: - Reads

extension SQLiteDataSource: ViewerDataSource {
    package var viewedFile: String? { path }

    package var name: String {
        (path as NSString).lastPathComponent
    }

    /// On the background reader, as every read that may be slow: it never
    /// holds up the windows.
    package func listTables(ticket: ReadTicket) throws -> [(name: String, kind: TableSchema.Kind)] {
        try reopenIfReplaced()
        return try readRaw(background: true, ticket: ticket) { db in try TableSchema.list(db) }
    }

    package func quickRowCount(ofTable name: String, kind: TableSchema.Kind, ticket: ReadTicket) throws -> RowCount {
        try read(background: true, ticket: ticket) { db in
            try RowSource.table(TableSchema.named(name, kind: kind, in: db), dialect: .sqlite).quickRowCount(db)
        }
    }

    package func open(_ target: ViewerTarget, sortColumn: String?, descending: Bool, ticket: ReadTicket) throws -> ViewedSource {
        try reopenIfReplaced()
        return try readRaw(background: false, ticket: ticket) { db in
            try ViewedSource.open(target, sortColumn: sortColumn, descending: descending, in: db)
        }
    }

    package func countRows(of source: RowSource, ticket: ReadTicket) throws -> RowCount {
        try source.countRows(
            chunk: RowSource.countChunk,
            read: { body in try read(background: true, ticket: ticket, body) },
            betweenReads: {})
    }

    /// SQLite keeps no row count, and its count in short reads is quick.
    package func estimatedRowCount(of source: RowSource, ticket: ReadTicket) throws -> Int? {
        nil
    }

    /// In short reads where an index gives the order, and paced to a tenth of
    /// the time while a writer commits (`ViewerPacing.rowsBefore`).
    package func countRows(of viewed: ViewedSource, before position: RowPosition, ticket: ReadTicket) throws -> RowCount {
        try countRows(of: viewed, before: position, ticket: ticket, betweenReads: {})
    }

    /// Tests commit in `betweenReads`.
    func countRows(
        of viewed: ViewedSource, before position: RowPosition, ticket: ReadTicket, betweenReads: () throws -> Void
    ) throws -> RowCount
    {
        try viewed.ordering.countRows(
            in: viewed.source, before: position, cost: viewed.cost, chunk: RowSource.countChunk,
            read: { body in try read(background: true, ticket: ticket, body) },
            betweenReads: betweenReads)
    }

    package func search(_ search: RowSearch, in viewed: ViewedSource, ticket: ReadTicket) throws -> RowSearchResult {
        try readRaw(background: true, ticket: ticket) { db in try search.run(db, viewed.source, viewed.ordering) }
    }

    package func filter(
        _ viewed: ViewedSource, by expression: String?, ticket: ReadTicket
    ) throws -> (viewed: ViewedSource, scannedRows: RowCount?)
    {
        try readRaw(background: true, ticket: ticket) { db in try viewed.filtered(expression, in: db) }
    }

    /// On the screen's reader: a few indexed searches.
    package func missingRows(of source: RowSource, among keys: [StoredKey], ticket: ReadTicket) throws -> [StoredKey] {
        guard let lookup = source.identityLookup else { return [] }
        return try readRaw(background: false, ticket: ticket) { db in
            try lookup.missing(db, among: keys.map(\.values)).map(StoredKey.init)
        }
    }

    package func export(
        _ plan: ExportPlan, format: ExportFormat, ticket: ReadTicket,
        write: (UnsafeRawBufferPointer, Int) throws -> Void
    ) throws -> RowExport.Summary
    {
        try RowExport.export(self, plan, format: format, ticket: ticket, write: write)
    }

    // MARK: - Errors

    package func describe(_ error: any Error) -> String {
        if let error = error as? SourceError {
            return error.description
        }
        if error is DatabaseError {
            return SourceError(reading: path, error: error).description
        }
        return error.oneLineDescription
    }

    package func failureKind(of error: any Error) -> ViewerFailureKind {
        Self.failureKind(of: error)
    }

    /// A lock or a hot journal is transient; a missing table, column or an
    /// invalid query sends the screen back to the picker.
    package static func failureKind(of error: any Error) -> ViewerFailureKind {
        if error is DatabaseFileChangedError {
            return .fileReplaced
        }
        if let error = error as? SourceError {
            switch error {
            case .locked, .needsRecovery:
                return .transient
            case .missingFile:
                // Gone since it opened: a remount under way, a file replaced.
                return .fileReplaced
            case .noSuchTable, .noSuchColumn, .invalidQuery:
                return .missingSource
            default:
                return .other
            }
        }
        guard let error = error as? DatabaseError else {
            return .other
        }
        switch (error.resultCode, error.extendedResultCode) {
        case (.SQLITE_BUSY, _), (.SQLITE_LOCKED, _), (_, .SQLITE_READONLY_ROLLBACK), (_, .SQLITE_READONLY_RECOVERY):
            return .transient
        default:
            return .other
        }
    }
}
