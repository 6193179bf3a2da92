import GRDB

/// What the viewer asks to see: a table or view by name, or a query.
public enum ViewerTarget: Hashable, Sendable {
    /// A table or view, by name.
    case table(String)
    /// A read-only query.
    case query(String)
}

/// A source as the live screen shows it: the source, its ordering, what a
/// window costs in that ordering, and the schema version they were read
/// at (a change of schema makes the viewer read them again).
///
/// For example:
///
/// ```swift
/// let viewed = try database.read { db in
///     try ViewedSource.open(.table("orders"), sortColumn: "total", descending: true, in: db)
/// }
/// viewed.cost // .scan when no index starts with "total"
/// ```
public struct ViewedSource: Equatable, Sendable {
    /// The table, view or query.
    public var source: RowSource
    /// The order of its rows.
    public var ordering: RowOrdering
    /// What a window costs in that order.
    public var cost: WindowCost
    /// SQLite's schema version when the source was read.
    public var schemaVersion: Int

    /// Creates a viewed source; `open(_:sortColumn:descending:in:)` reads one.
    public init(source: RowSource, ordering: RowOrdering, cost: WindowCost, schemaVersion: Int) {
        self.source = source
        self.ordering = ordering
        self.cost = cost
        self.schemaVersion = schemaVersion
    }

    /// True when the rows before a row are counted (by a window's fetch,
    /// up to `ViewerWindow.rankLimit`, and beyond it in the background):
    /// only where an index reads them, never a scan (an unindexed order, a
    /// view, a filter that the database may scan for, a query). A window
    /// away from the start whose `rowsBefore` is nil then has at least
    /// `ViewerWindow.rankLimit` rows before it.
    ///
    /// For example:
    ///
    /// ```swift
    /// viewed.countsRowsBefore // false for a view, a filter, a query, an unindexed order
    /// ```
    public var countsRowsBefore: Bool {
        cost == .indexSearch && source.filter == nil && !source.isQuery
    }
}

/// A window of rows as the live screen observes it: the source it was read
/// from (read again when the schema changed), the window, and where the
/// selection is now.
///
/// For example:
///
/// ```swift
/// let value = try database.read { db in
///     try ViewerWindow.fetch(db, viewed, RowWindowRequest(
///         ordering: viewed.ordering, anchor: .first, before: 0, after: 30))
/// }
/// ```
public struct ViewerWindow: Equatable, Sendable {
    /// The source, as the schema described it at this fetch.
    public var viewed: ViewedSource
    /// The rows.
    public var window: RowWindow
    /// For a window anchored on a row: the position of that row now (its
    /// sort value may have changed), or of the row that took its place
    /// when it is gone; nil for a window anchored on the first or last row,
    /// or when no row is left.
    public var selection: RowPosition?
    /// The number of rows before the first of the window: 0 when it
    /// reaches the start; counted, up to `rankLimit`, when the ordering is
    /// an index search; nil when not known.
    public var rowsBefore: Int?

    /// The most rows counted before a window, so that the title can say
    /// "row 5,210 of 20,000" after a search or a few pages: at the cost of
    /// reading that many index entries at most, once per window. Beyond,
    /// the viewer counts the rows before the selection in the background
    /// (`ViewerDataSource.countRows(of:before:ticket:)`).
    public static let rankLimit = 10_000


    /// Creates a value; `fetch(_:_:_:)` fetches one.
    public init(viewed: ViewedSource, window: RowWindow, selection: RowPosition?, rowsBefore: Int? = nil) {
        self.viewed = viewed
        self.window = window
        self.selection = selection
        self.rowsBefore = rowsBefore ?? (window.reachesStart ? 0 : nil)
    }

    /// Fetches a window in one read of any database: `fetch(_:_:_:)`, with
    /// the source as its database now describes it given by `current`.
    ///
    /// For example:
    ///
    /// ```swift
    /// // A database that reads its catalog again when its schema changed:
    /// let value = try ViewerWindow.fetch(connection, viewed, request) { viewed in
    ///     try catalog.current(viewed, on: connection)
    /// }
    /// ```
    ///
    /// - parameter db: A database connection.
    /// - parameter viewed: The source as last read.
    /// - parameter request: The window; its ordering is replaced by the
    ///   ordering of the source as currently read.
    /// - parameter current: The source as the schema now describes it
    ///   (itself when the schema did not change), read in the same read
    ///   as the window; it throws when the source is gone.
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
            // Gone: the row that now comes first from its place, or else
            // the last row.
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

    /// The current position of the row at `position`: found by its
    /// identity, whose sort value may have changed, or at the same
    /// position for a source without identity. Nil when it is gone.
    private static func currentPosition(of position: RowPosition, _ viewed: ViewedSource, _ db: some RowReading) throws -> RowPosition? {
        try viewed.ordering.currentPosition(of: position, in: viewed.source, db)
    }
}
