import Foundation
import GRDB
import OpenCombine
import OpenCombineDispatch
import ReactiveGRDB

// MARK: - Reads

extension SQLiteDataSource: ViewerDataSource {
    /// The file's name: "app.sqlite".
    public var name: String {
        (path as NSString).lastPathComponent
    }

    /// The tables and views of the file, on the background reader: a slow
    /// read of the windows never holds them up.
    public func listTables(ticket: ReadTicket) throws -> [(name: String, kind: TableSchema.Kind)] {
        try reopenIfReplaced()
        return try readRaw(background: true, ticket: ticket) { db in try TableSchema.list(db) }
    }

    /// Counts a table (`RowSource.quickRowCount(_:limit:)`) on the
    /// background reader.
    public func quickRowCount(ofTable name: String, kind: TableSchema.Kind, ticket: ReadTicket) throws -> RowCount {
        try read(background: true, ticket: ticket) { db in
            try RowSource.table(TableSchema.named(name, kind: kind, in: db), dialect: .sqlite).quickRowCount(db)
        }
    }

    /// Opens a source on the screen's reader (`ViewedSource.open`), in the
    /// file now at the path (`reopenIfReplaced()`).
    public func open(_ target: ViewerTarget, sortColumn: String?, descending: Bool, ticket: ReadTicket) throws -> ViewedSource {
        try reopenIfReplaced()
        return try readRaw(background: false, ticket: ticket) { db in
            try ViewedSource.open(target, sortColumn: sortColumn, descending: descending, in: db)
        }
    }

    /// Counts the rows on the background reader, in short reads
    /// (`RowSource.countChunk` rows each), so that a writer of a
    /// rollback-journal file is not kept waiting.
    public func countRows(of source: RowSource, ticket: ReadTicket) throws -> RowCount {
        try source.countRows(
            chunk: RowSource.countChunk,
            read: { body in try read(background: true, ticket: ticket, body) },
            betweenReads: {})
    }

    /// None: SQLite keeps no row count, and its count in short reads is
    /// quick, so the title shows "…" until it ends.
    public func estimatedRowCount(of source: RowSource, ticket: ReadTicket) throws -> Int? {
        nil
    }

    /// Counts the rows before `position` on the background reader, in
    /// short reads where an index gives the order (`RowSource.countChunk`
    /// rows each: `RowOrdering.countRows(in:before:cost:chunk:read:betweenReads:)`),
    /// so that a writer of a rollback-journal file is not kept waiting;
    /// and at most a tenth of the time while a writer commits, as the
    /// viewer paces it (`ViewerPacing.rowsBefore`).
    public func countRows(of viewed: ViewedSource, before position: RowPosition, ticket: ReadTicket) throws -> RowCount {
        try countRows(of: viewed, before: position, ticket: ticket, betweenReads: {})
    }

    /// `countRows(of:before:ticket:)`, calling `betweenReads` after each
    /// read but the last (tests commit there).
    func countRows(
        of viewed: ViewedSource, before position: RowPosition, ticket: ReadTicket, betweenReads: () throws -> Void
    ) throws -> RowCount
    {
        try viewed.ordering.countRows(
            in: viewed.source, before: position, cost: viewed.cost, chunk: RowSource.countChunk,
            read: { body in try read(background: true, ticket: ticket, body) },
            betweenReads: betweenReads)
    }

    /// Searches on the background reader: a search without an index reads
    /// rows until one matches, and must not hold up the windows.
    public func search(_ search: RowSearch, in viewed: ViewedSource, ticket: ReadTicket) throws -> RowSearchResult {
        try readRaw(background: true, ticket: ticket) { db in try search.run(db, viewed.source, viewed.ordering) }
    }

    /// Checks the filter on the background reader (`ViewedSource.filtered`).
    public func filter(
        _ viewed: ViewedSource, by expression: String?, ticket: ReadTicket
    ) throws -> (viewed: ViewedSource, scannedRows: RowCount?)
    {
        try readRaw(background: true, ticket: ticket) { db in try viewed.filtered(expression, in: db) }
    }

    /// Looks the rows up by identity on the screen's reader: a few indexed
    /// searches.
    public func missingRows(of source: RowSource, among keys: [StoredKey], ticket: ReadTicket) throws -> [StoredKey] {
        guard let lookup = source.identityLookup else { return [] }
        return try readRaw(background: false, ticket: ticket) { db in
            try lookup.missing(db, among: keys.map(\.values)).map(StoredKey.init)
        }
    }

    /// Exports with `RowExport.export`.
    public func export(
        _ source: RowSource, format: ExportFormat, write: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> RowExport.Summary
    {
        try RowExport.export(self, source, format: format, write: write)
    }

    // MARK: - Errors

    /// An error in one line, naming the file for SQLite's errors.
    public func describe(_ error: any Error) -> String {
        if let error = error as? SourceError {
            return error.description
        }
        if error is DatabaseError {
            return SourceError(reading: path, error: error).description
        }
        return error.oneLineDescription
    }

    /// The kind of `error` (`SQLiteDataSource.failureKind(of:)`).
    public func failureKind(of error: any Error) -> ViewerFailureKind {
        Self.failureKind(of: error)
    }

    /// The kind of `error`, thrown by a read of the viewer: a lock or a
    /// hot journal is transient; a missing table, column or an invalid
    /// query sends the screen back to the picker.
    ///
    /// For example:
    ///
    /// ```swift
    /// SQLiteDataSource.failureKind(of: SourceError.locked(path: "app.sqlite")) // .transient
    /// ```
    public static func failureKind(of error: any Error) -> ViewerFailureKind {
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
