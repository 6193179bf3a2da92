import GRDB

// MARK: - Reading with SQLite

extension ViewedSource {
    /// Reads the source of `target`, orders it, and asks SQLite what a
    /// window costs.
    ///
    /// - throws: A `SourceError`: `.noSuchTable` (listing the tables),
    ///   `.noSuchColumn` for a missing sort column, the errors of a query.
    package static func open(
        _ target: ViewerTarget, sortColumn: String?, descending: Bool, in db: Database) throws -> ViewedSource
    {
        let version = try RowSource.schemaVersion(db)
        let source: RowSource
        switch target {
        case let .table(name): source = .table(try TableSchema.named(name, in: db), dialect: .sqlite)
        case let .query(sql): source = try RowSource.query(sql, in: db)
        case let .sheet(sheet): source = try RowSource.query(try sheet.sqliteStatement(db), in: db).keyed(by: sheet)
        case .changesLog: throw SourceError.unreadableTable(name: "changes log", reason: "it is held in memory")
        }
        let ordering = try RowOrdering(source, sortColumn: sortColumn, descending: descending)
        return ViewedSource(
            target: target, source: source, ordering: ordering, cost: try ordering.cost(of: source, in: db),
            schemaVersion: version)
    }

    /// The source with only the rows that `expression` keeps (all rows
    /// when it is nil or blank), validated (`RowSource.filtered(_:in:)`),
    /// with the cost of a window in that state; and, when SQLite reads the
    /// filter with a scan rather than an index search, the number of rows
    /// each update scans (counted quickly: exact up to
    /// `RowSource.quickCountLimit`, estimated beyond).
    ///
    /// - throws: `SourceError.invalidFilter`, with SQLite's message.
    package func filtered(_ expression: String?, in db: Database) throws -> (viewed: ViewedSource, scannedRows: RowCount?) {
        // A statement run reads the schema cookie: on a connection that has
        // not read since another process dropped a column, the filter would
        // be checked against the columns that were.
        _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_schema WHERE 0")
        let filtered = try source.filtered(expression, in: db)
        let viewed = ViewedSource(
            target: target, source: filtered, ordering: ordering, cost: try ordering.cost(of: filtered, in: db),
            schemaVersion: schemaVersion)
        guard filtered.filter != nil else { return (viewed, nil) }
        let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + filtered.selectSQL(columns: ["1"], where: nil))
            .map { (($0["detail"] as String?) ?? "").uppercased() }
        guard plan.contains(where: { $0.hasPrefix("SCAN") }) else { return (viewed, nil) }
        return (viewed, try source.filtered(nil, in: db).quickRowCount(db))
    }

    /// The source as the current schema describes it, when another process
    /// changed the schema since it was read; itself otherwise. SQLite's
    /// (`PRAGMA schema_version`, `EXPLAIN QUERY PLAN`): another database
    /// gives `ViewerWindow.fetch(_:_:_:current:)` its own.
    ///
    /// - throws: `SourceError.noSuchTable` when the table was dropped,
    ///   `.noSuchColumn` when the sort column was.
    func current(_ db: Database) throws -> ViewedSource {
        let version = try RowSource.schemaVersion(db)
        guard version != schemaVersion else { return self }
        let source = try self.source.reloaded(db)
        let ordering = try RowOrdering(source, sortColumn: ordering.sortColumn, descending: ordering.descending)
        return ViewedSource(
            target: target, source: source, ordering: ordering, cost: try ordering.cost(of: source, in: db),
            schemaVersion: version)
    }
}

extension ViewerWindow {
    /// Fetches a window in one read of SQLite: reads the source again if
    /// the schema changed (`PRAGMA schema_version`), follows an anchored
    /// row by its identity (rowid or primary key) to its current place,
    /// and, when it is gone, anchors on the row that took its place.
    ///
    /// - parameter db: A database connection.
    /// - parameter viewed: The source as last read.
    /// - parameter request: The window; its ordering is replaced by the
    ///   ordering of the source as currently read.
    package static func fetch(_ db: Database, _ viewed: ViewedSource, _ request: RowWindowRequest) throws -> ViewerWindow {
        try fetch(db, viewed, request, current: { try $0.current(db) })
    }
}
