import GRDB

/// What the viewer asks to see: a table or view by name, or a query.
package enum ViewerTarget: Hashable, Sendable {
    case table(String)
    case query(String)
    /// Written by the viewer over another sheet (`#`).
    indirect case sheet(DerivedSheet)
    /// `L`: the changes the viewer saw, its rows in memory (`ChangesLog`).
    case changesLog
}

/// A source as the live screen shows it: its ordering, what a window costs
/// in it, and the schema version they were read at (a schema change makes
/// the viewer read them again).
package struct ViewedSource: Equatable, Sendable {
    package var source: RowSource
    package var ordering: RowOrdering
    package var cost: WindowCost
    /// The database's schema version when the source was read.
    package var schemaVersion: Int
    /// What to open again to read the source anew.
    package var target: ViewerTarget

    package init(target: ViewerTarget, source: RowSource, ordering: RowOrdering, cost: WindowCost, schemaVersion: Int) {
        self.target = target
        self.source = source
        self.ordering = ordering
        self.cost = cost
        self.schemaVersion = schemaVersion
    }

    /// The same sheet, its source filtered anew.
    package func replacing(source: RowSource, cost: WindowCost) -> ViewedSource {
        ViewedSource(target: target, source: source, ordering: ordering, cost: cost, schemaVersion: schemaVersion)
    }

    /// True when the rows before a row are counted (by a window's fetch,
    /// up to `ViewerWindow.rankLimit`, and beyond it in the background):
    /// only where an index reads them, never a scan (an unindexed order, a
    /// view, a filter that the database may scan for, a query). A window
    /// away from the start whose `rowsBefore` is nil then has at least
    /// `ViewerWindow.rankLimit` rows before it.
    package var countsRowsBefore: Bool {
        cost == .indexSearch && source.filter == nil && !source.isQuery
    }
}

/// A window of rows as the live screen observes it: the source as read at
/// this fetch, the rows, and where the selection is now.
package struct ViewerWindow: Equatable, Sendable {
    package var viewed: ViewedSource
    package var window: RowWindow
    /// The anchored row's position now (its sort value may have changed), or
    /// the row that took its place when it is gone.
    package var selection: RowPosition?
    /// 0 at the start; counted up to `rankLimit` on an index search; else nil.
    package var rowsBefore: Int?

    /// Enough for the title to say "row 5,210 of 20,000" after a search or a
    /// few pages, at the cost of reading that many index entries per window.
    /// Beyond, the rows before the selection are counted in the background.
    package static let rankLimit = 10_000


    package init(viewed: ViewedSource, window: RowWindow, selection: RowPosition?, rowsBefore: Int? = nil) {
        self.viewed = viewed
        self.window = window
        self.selection = selection
        self.rowsBefore = rowsBefore ?? (window.reachesStart ? 0 : nil)
    }

    /// Fetches a window in one read of any database: `fetch(_:_:_:)`, with
    /// the source as its database now describes it given by `current`.
    ///
    /// - parameter db: A database connection.
    /// - parameter viewed: The source as last read.
    /// - parameter request: The window; its ordering is replaced by the
    ///   ordering of the source as currently read.
    /// - parameter current: The source as the schema now describes it
    ///   (itself when the schema did not change), read in the same read
    ///   as the window; it throws when the source is gone.
    package static func fetch<Reader: RowReading>(
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
        // A row without identity is its values: one read of every row finds
        // it, or the row in its place, where the lookups and the ranges would
        // run a whole query (a `GROUP BY`) three or four times.
        if request.readsWhole, viewed.source.identity == .none, let whole = try RowWindow.fetchWhole(
            db, viewed.source, request, anchor: anchor, scans: viewed.cost == .scan)
        {
            return ViewerWindow(viewed: viewed, window: whole.window, selection: whole.selection)
        }
        // So is a keyed query's (a frequency sheet's groups), its row found
        // by its identity among them.
        if request.readsWhole, viewed.source.isQuery, viewed.source.identity != .none,
           let whole = try wholeWindow(db, viewed, request, identityOf: anchor)
        {
            return whole
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

    /// Every row, when they fit in the window, from one statement, around
    /// the row with the identity of `anchor`; nil when they do not fit or
    /// no row has it.
    private static func wholeWindow(
        _ db: some RowReading, _ viewed: ViewedSource, _ request: RowWindowRequest, identityOf anchor: RowPosition
    ) throws -> ViewerWindow? {
        let keys = request.ordering.keyColumns.map(\.expression)
        let identity = viewed.source.identityExpressions.compactMap { keys.firstIndex(of: $0) }
        guard identity.count == viewed.source.identityExpressions.count else { return nil }
        let before = max(0, request.before)
        let after = max(0, request.after)
        let all = try RowWindow.fetch(db, viewed.source, RowWindowRequest(
            ordering: request.ordering, anchor: .first, before: 0, after: before + after), scans: viewed.cost == .scan)
        guard all.reachesEnd, let index = all.positions.firstIndex(where: { position in
            identity.allSatisfy { position.key[$0] == anchor.key[$0] }
        }) else { return nil }
        let range = max(0, index - before)..<min(all.rows.count, index + after)
        let window = RowWindow(
            request: request, rows: Array(all.rows[range]), positions: Array(all.positions[range]),
            reachesStart: range.lowerBound == 0, reachesEnd: range.upperBound == all.rows.count,
            changeTokens: all.changeTokens.map { Array($0[range]) })
        return ViewerWindow(viewed: viewed, window: window, selection: all.positions[index])
    }

    /// Found by identity, or at the same position for a source without one.
    private static func currentPosition(of position: RowPosition, _ viewed: ViewedSource, _ db: some RowReading) throws -> RowPosition? {
        try viewed.ordering.currentPosition(of: position, in: viewed.source, db)
    }
}
