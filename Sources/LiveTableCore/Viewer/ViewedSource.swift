import GRDB

/// What the viewer asks to see: a table or view by name, or a query.
public enum ViewerTarget: Hashable, Sendable {
    case table(String)
    case query(String)
}

/// A source as the live screen shows it: its ordering, what a window costs
/// in it, and the schema version they were read at (a schema change makes
/// the viewer read them again).
public struct ViewedSource: Equatable, Sendable {
    public var source: RowSource
    public var ordering: RowOrdering
    public var cost: WindowCost
    /// The database's schema version when the source was read.
    public var schemaVersion: Int

    public init(source: RowSource, ordering: RowOrdering, cost: WindowCost, schemaVersion: Int) {
        self.source = source
        self.ordering = ordering
        self.cost = cost
        self.schemaVersion = schemaVersion
    }

    /// SQLite's reading of a source; other databases read theirs in their folder.
    public static func open(
        _ target: ViewerTarget, sortColumn: String?, descending: Bool, in db: Database) throws -> ViewedSource
    {
        let version = try RowSource.schemaVersion(db)
        let source: RowSource
        switch target {
        case let .table(name): source = .table(try TableSchema.named(name, in: db))
        case let .query(sql): source = try RowSource.query(sql, in: db)
        }
        let ordering = try RowOrdering(source, sortColumn: sortColumn, descending: descending)
        return ViewedSource(
            source: source, ordering: ordering, cost: try ordering.cost(of: source, in: db), schemaVersion: version)
    }

    /// The source filtered and validated, with its window's cost; and, when
    /// SQLite reads the filter with a scan, the rows each update scans (for
    /// the status line's warning).
    public func filtered(_ expression: String?, in db: Database) throws -> (viewed: ViewedSource, scannedRows: RowCount?) {
        let filtered = try source.filtered(expression, in: db)
        let viewed = ViewedSource(
            source: filtered, ordering: ordering, cost: try ordering.cost(of: filtered, in: db),
            schemaVersion: schemaVersion)
        guard filtered.filter != nil else { return (viewed, nil) }
        let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + filtered.selectSQL(columns: ["1"], where: nil))
            .map { (($0["detail"] as String?) ?? "").uppercased() }
        guard plan.contains(where: { $0.hasPrefix("SCAN") }) else { return (viewed, nil) }
        return (viewed, try source.filtered(nil, in: db).quickRowCount(db))
    }

    public var target: ViewerTarget {
        source.isQuery ? .query(source.name) : .table(source.name)
    }

    /// Itself, or the source read again when another process changed the
    /// schema since (SQLite's `PRAGMA schema_version`).
    func current(_ db: Database) throws -> ViewedSource {
        let version = try RowSource.schemaVersion(db)
        guard version != schemaVersion else { return self }
        let source = try self.source.reloaded(db)
        let ordering = try RowOrdering(source, sortColumn: ordering.sortColumn, descending: ordering.descending)
        return ViewedSource(
            source: source, ordering: ordering, cost: try ordering.cost(of: source, in: db), schemaVersion: version)
    }

    /// True when the rows before a row are counted (by a window's fetch up to
    /// `ViewerWindow.rankLimit`, beyond it in the background): only where an
    /// index reads them, never a scan. A window away from the start whose
    /// `rowsBefore` is nil then has at least `rankLimit` rows before it.
    public var countsRowsBefore: Bool {
        cost == .indexSearch && source.filter == nil && !source.isQuery
    }
}

/// A window of rows as the live screen observes it: the source as read at
/// this fetch, the rows, and where the selection is now.
public struct ViewerWindow: Equatable, Sendable {
    public var viewed: ViewedSource
    public var window: RowWindow
    /// The anchored row's position now (its sort value may have changed), or
    /// the row that took its place when it is gone.
    public var selection: RowPosition?
    /// 0 at the start; counted up to `rankLimit` on an index search; else nil.
    public var rowsBefore: Int?

    /// Enough for the title to say "row 5,210 of 20,000" after a search or a
    /// few pages, at the cost of reading that many index entries per window.
    /// Beyond, the rows before the selection are counted in the background.
    public static let rankLimit = 10_000


    public init(viewed: ViewedSource, window: RowWindow, selection: RowPosition?, rowsBefore: Int? = nil) {
        self.viewed = viewed
        self.window = window
        self.selection = selection
        self.rowsBefore = rowsBefore ?? (window.reachesStart ? 0 : nil)
    }

    public static func fetch(_ db: Database, _ viewed: ViewedSource, _ request: RowWindowRequest) throws -> ViewerWindow {
        try fetch(db, viewed, request, current: { try $0.current(db) })
    }

    /// Fetches a window in one read of any database, with the source as it is
    /// now (`current`, read in the same read): follows an anchored row by its
    /// identity to its current place, or, when it is gone, anchors on the row
    /// that took its place.
    public static func fetch<Reader: RowReading>(
        _ db: Reader, _ viewed: ViewedSource, _ request: RowWindowRequest,
        current: (ViewedSource) throws -> ViewedSource) throws -> ViewerWindow
    {
        var value = try fetchRows(db, try current(viewed), request)
        if value.rowsBefore == nil, value.viewed.countsRowsBefore, let first = value.window.positions.first {
            let count = try value.viewed.ordering.countRows(db, in: value.viewed.source, before: first, limit: rankLimit)
            value.rowsBefore = count < rankLimit ? count : nil
        }
        return value
    }

    private static func fetchRows(_ db: some RowReading, _ viewed: ViewedSource, _ request: RowWindowRequest) throws -> ViewerWindow {
        let ordering = viewed.ordering
        var request = request
        request.ordering = ordering
        guard case var .position(anchor) = request.anchor else {
            return ViewerWindow(viewed: viewed, window: try RowWindow.fetch(db, viewed.source, request, scans: viewed.cost == .scan), selection: nil)
        }
        guard anchor.key.count == ordering.keyColumns.count else {
            // The key changed shape with the schema: start again.
            request.anchor = .first
            return ViewerWindow(viewed: viewed, window: try RowWindow.fetch(db, viewed.source, request, scans: viewed.cost == .scan), selection: nil)
        }
        if let current = try currentPosition(of: anchor, viewed, db) {
            anchor = current
        } else {
            // Gone: the row that now comes first from its place, or the last row.
            let next = try RowWindow.fetch(db, viewed.source, RowWindowRequest(
                ordering: ordering, anchor: .position(anchor), before: 0, after: 1), scans: viewed.cost == .scan)
            if let position = next.positions.first {
                anchor = position
            } else {
                let last = try RowWindow.fetch(db, viewed.source, RowWindowRequest(
                    ordering: ordering, anchor: .last, before: 1, after: 0))
                guard let position = last.positions.last else {
                    request.anchor = .first
                    return ViewerWindow(
                        viewed: viewed, window: try RowWindow.fetch(db, viewed.source, request, scans: viewed.cost == .scan),
                        selection: nil)
                }
                anchor = position
            }
        }
        request.anchor = .position(anchor)
        return ViewerWindow(viewed: viewed, window: try RowWindow.fetch(db, viewed.source, request, scans: viewed.cost == .scan), selection: anchor)
    }

    /// Found by identity, or at the same position for a source without one.
    private static func currentPosition(of position: RowPosition, _ viewed: ViewedSource, _ db: some RowReading) throws -> RowPosition? {
        try viewed.ordering.currentPosition(of: position, in: viewed.source, db)
    }
}
