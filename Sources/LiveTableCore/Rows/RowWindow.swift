import GRDB

/// Where a row stands in a `RowOrdering`: its key, and, among rows of
/// equal key, how many come before it.
///
/// With a row identity in the key, keys are unique and `occurrence` is
/// always 0. Without one (views, queries), two rows can be equal in every
/// column: such rows can not be told apart, so the position of a row is
/// "the `occurrence`-th row of this key", which pages through duplicates
/// without skipping or repeating any.
public struct RowPosition: Equatable, Sendable {
    /// The values of the key columns of the ordering.
    public var key: [DatabaseValue]
    /// The number of rows of equal key before this one.
    public var occurrence: Int

    /// Creates a position.
    ///
    /// For example:
    ///
    /// ```swift
    /// let position = RowPosition(key: [1200.databaseValue, 42.databaseValue])
    /// ```
    public init(key: [DatabaseValue], occurrence: Int = 0) {
        self.key = key
        self.occurrence = occurrence
    }
}

/// Where a window of rows starts.
public enum RowAnchor: Equatable, Sendable {
    /// The first row of the ordering.
    case first
    /// The last row of the ordering.
    case last
    /// A row position: the row at this position, or, when it is gone, the
    /// place it would have.
    case position(RowPosition)
}

/// The rows a screen wants to see: up to `before` rows before the anchor,
/// and up to `after` rows from the anchor on.
public struct RowWindowRequest: Equatable, Sendable {
    /// The order of the rows.
    public var ordering: RowOrdering
    /// Where the window starts.
    public var anchor: RowAnchor
    /// The number of rows before the anchor (with `.last`, the window has
    /// `before + after` rows, all before the end).
    public var before: Int
    /// The number of rows from the anchor on.
    public var after: Int

    /// Creates a request.
    ///
    /// For example:
    ///
    /// ```swift
    /// // The first 30 rows.
    /// let request = RowWindowRequest(ordering: ordering, anchor: .first, before: 0, after: 30)
    /// ```
    public init(ordering: RowOrdering, anchor: RowAnchor, before: Int, after: Int) {
        self.ordering = ordering
        self.anchor = anchor
        self.before = before
        self.after = after
    }
}

/// Consecutive rows of a source, in an ordering, fetched by keyset (never
/// with `OFFSET`): the cost of a window does not depend on its place in
/// the table, and, when the ordering can use an index (see
/// `RowOrdering.cost(of:in:)`), not on the number of rows either.
public struct RowWindow: Equatable, Sendable {
    /// The request this window answers.
    public var request: RowWindowRequest
    /// The values of the source's columns, row by row.
    public var rows: [[DatabaseValue]]
    /// The position of each row: `.position(positions[i])` anchors a
    /// window on row `i`, and tells a row from another across updates.
    public var positions: [RowPosition]
    /// True when no row comes before `rows.first`.
    public var reachesStart: Bool
    /// True when no row comes after `rows.last`.
    public var reachesEnd: Bool
    /// The change token of each row (`RowSource.changeToken`), or nil
    /// when the source has none.
    public var changeTokens: [DatabaseValue]?

    /// Creates a window; `fetch(_:_:_:)` fetches one.
    public init(
        request: RowWindowRequest, rows: [[DatabaseValue]], positions: [RowPosition],
        reachesStart: Bool, reachesEnd: Bool, changeTokens: [DatabaseValue]? = nil)
    {
        self.request = request
        self.rows = rows
        self.positions = positions
        self.reachesStart = reachesStart
        self.reachesEnd = reachesEnd
        self.changeTokens = changeTokens
    }

    /// Fetches a window of rows, in one read.
    ///
    /// For example:
    ///
    /// ```swift
    /// let window = try database.read { db in
    ///     try RowWindow.fetch(db, source, RowWindowRequest(
    ///         ordering: ordering, anchor: .last, before: 30, after: 0))
    /// }
    /// ```
    ///
    /// - parameter db: A database connection (GRDB's `Database`, or
    ///   another database's `RowReading`).
    /// - parameter source: The table, view or query.
    /// - parameter request: The window.
    /// - parameter scans: True when no index serves the ordering
    ///   (`WindowCost.scan`): the ranges on each side of the anchor are then
    ///   read with one statement, so that a window scans the table once
    ///   per side rather than once per range. With an index, each range is
    ///   its own index search.
    public static func fetch(
        _ db: some RowReading, _ source: RowSource, _ request: RowWindowRequest, scans: Bool = false) throws -> RowWindow
    {
        let fetcher = Fetcher(db: db, source: source, ordering: request.ordering, combinesRanges: scans)
        let before = max(0, request.before)
        let after = max(0, request.after)

        switch request.anchor {
        case .first:
            let rows = try fetcher.rows(in: request.ordering.all(forward: true), limit: after + 1)
            let window = Array(rows.prefix(after))
            return RowWindow(
                request: request, rows: window.map(\.values),
                positions: fetcher.forwardPositions(window, startingAt: nil),
                reachesStart: true, reachesEnd: rows.count <= after,
                changeTokens: fetcher.changeTokens(window))

        case .last:
            let size = before + after
            let rows = try fetcher.rows(in: request.ordering.all(forward: false), limit: size + 1)
            let window = Array(rows.prefix(size))
            let reachesStart = rows.count <= size
            return RowWindow(
                request: request, rows: window.reversed().map(\.values),
                positions: try fetcher.backwardPositions(window, reachesStart: reachesStart).reversed(),
                reachesStart: reachesStart, reachesEnd: true,
                changeTokens: fetcher.changeTokens(window.reversed()))

        case let .position(anchor):
            let ordering = request.ordering
            // From the anchor on: the rows of its key, but the
            // `occurrence` first ones, then the rows after its key.
            let equal = try fetcher.rows(
                in: ordering.equal(to: anchor.key, forward: true), limit: anchor.occurrence + after + 1)
            // A position is never negative, whatever another window made of
            // rows that changed between its statements (`random()` in a
            // query).
            let skipped = min(max(0, anchor.occurrence), equal.count)
            var from = Array(equal.dropFirst(skipped))
            if from.count <= after {
                from += try fetcher.rows(in: ordering.after(anchor.key), limit: after + 1 - from.count)
            }
            // Before the anchor: the rows of its key that come first (they
            // are equal in every column, so any of them will do), then the
            // rows before its key.
            var back = Array(equal.prefix(min(skipped, before + 1)).reversed())
            if back.count <= before {
                back += try fetcher.rows(in: ordering.before(anchor.key), limit: before + 1 - back.count)
            }
            let windowFrom = Array(from.prefix(after))
            let windowBack = Array(back.prefix(before))
            let reachesStart = back.count <= before

            let fromPositions = fetcher.forwardPositions(
                windowFrom, startingAt: RowPosition(key: anchor.key, occurrence: skipped))
            let backPositions = try fetcher.backwardPositions(
                windowBack, reachesStart: reachesStart,
                anchor: RowPosition(key: anchor.key, occurrence: skipped))
            return RowWindow(
                request: request,
                rows: windowBack.reversed().map(\.values) + windowFrom.map(\.values),
                positions: backPositions.reversed() + fromPositions,
                reachesStart: reachesStart,
                reachesEnd: from.count <= after,
                changeTokens: fetcher.changeTokens(windowBack.reversed() + windowFrom))
        }
    }
}

// MARK: - Fetcher

/// Runs the range statements of a window.
private struct Fetcher<Reader: RowReading> {
    /// One fetched row: the source's columns, and the key.
    struct FetchedRow {
        var values: [DatabaseValue]
        var key: [DatabaseValue]
        /// The row's change token, when the source has one.
        var changeToken: DatabaseValue?
    }

    let db: Reader
    let source: RowSource
    let ordering: RowOrdering
    /// True when the ranges of a side are read with one statement (see
    /// `RowWindow.fetch(_:_:_:scans:)`).
    let combinesRanges: Bool
    /// Key expressions that are not columns of the source, selected after them.
    let extraExpressions: [String]
    /// For each key column, its index in the selected values.
    let keyIndices: [Int]
    /// The index of the change token in the selected values, selected
    /// last, if the source has one.
    let changeTokenIndex: Int?

    init(db: Reader, source: RowSource, ordering: RowOrdering, combinesRanges: Bool) {
        self.db = db
        self.source = source
        self.ordering = ordering
        self.combinesRanges = combinesRanges
        var extra: [String] = []
        var indices: [Int] = []
        // A column shown cut is read whole again for its key.
        let shown = source.shownExpressions ?? source.columnExpressions
        for column in ordering.keyColumns {
            if let index = shown.firstIndex(of: column.expression) {
                indices.append(index)
            } else if let index = extra.firstIndex(of: column.expression) {
                indices.append(shown.count + index)
            } else {
                indices.append(shown.count + extra.count)
                extra.append(column.expression)
            }
        }
        keyIndices = indices
        if let token = source.changeToken {
            changeTokenIndex = source.columnExpressions.count + extra.count
            extra.append(token)
        } else {
            changeTokenIndex = nil
        }
        extraExpressions = extra
    }

    /// The change tokens of `rows`, nil when the source has none.
    func changeTokens(_ rows: some Sequence<FetchedRow>) -> [DatabaseValue]? {
        changeTokenIndex == nil ? nil : rows.map { $0.changeToken ?? .null }
    }

    /// Up to `limit` rows from `ranges`, in order.
    func rows(in ranges: [RowOrdering.Range], limit: Int) throws -> [FetchedRow] {
        if combinesRanges, ranges.count > 1, let forward = ranges.first?.forward,
            ranges.allSatisfy({ $0.forward == forward })
        {
            // The ranges are disjoint and follow each other in the order
            // read: their union, in that order, gives the same rows.
            return try rows(in: [RowOrdering.Range(union: ranges, forward: forward, dialect: source.dialect)], limit: limit)
        }
        var result: [FetchedRow] = []
        let columnCount = source.columnExpressions.count
        for range in ranges where result.count < limit {
            // Statements are cached by the connection (`RowReading`):
            // compiling them would cost more than running them.
            let sql = source.selectSQL(
                columns: (source.shownExpressions ?? source.columnExpressions) + extraExpressions,
                indexedBy: ordering.indexName, where: range.condition,
                orderBy: ordering.orderBy(forward: range.forward), limit: true)
            let arguments = range.arguments + [DatabaseValue(value: Int64(limit - result.count))!]
            // What is shown, as stored (a NUL, invalid UTF-8); the key as
            // the connection reads and binds it back.
            try db.forEachRow(sql, arguments: arguments, shownColumns: columnCount) { shown, values in
                result.append(FetchedRow(
                    values: shown, key: keyIndices.map { values[$0] },
                    changeToken: changeTokenIndex.flatMap { values.indices.contains($0) ? values[$0] : nil }))
            }
        }
        return result
    }

    /// The positions of rows read forwards. The first row is at `start`
    /// when it has its key (nil: the first row of the ordering).
    func forwardPositions(_ rows: [FetchedRow], startingAt start: RowPosition?) -> [RowPosition] {
        var positions: [RowPosition] = []
        for row in rows {
            let occurrence: Int
            if ordering.isUnique {
                occurrence = 0
            } else if let previous = positions.last, sameKey(previous.key, row.key) {
                occurrence = previous.occurrence + 1
            } else if positions.isEmpty, let start, sameKey(start.key, row.key) {
                occurrence = start.occurrence
            } else {
                occurrence = 0
            }
            positions.append(RowPosition(key: row.key, occurrence: occurrence))
        }
        return positions
    }

    /// The positions of rows read backwards (closest first). Rows of the
    /// anchor's key come first, just before `anchor`; each other key is
    /// entered from its last row, so its occurrences count down from its
    /// number of rows: known when the window holds all of them, counted
    /// otherwise (only the furthest key, when the window does not reach
    /// the start).
    func backwardPositions(
        _ rows: [FetchedRow], reachesStart: Bool, anchor: RowPosition? = nil) throws -> [RowPosition]
    {
        if ordering.isUnique {
            return rows.map { RowPosition(key: $0.key) }
        }
        // Runs of equal keys, closest first.
        var runs: [(key: [DatabaseValue], count: Int)] = []
        for row in rows {
            if let last = runs.last, sameKey(last.key, row.key) {
                runs[runs.count - 1].count += 1
            } else {
                runs.append((row.key, 1))
            }
        }
        var positions: [RowPosition] = []
        for (index, run) in runs.enumerated() {
            let isAnchorRun = index == 0 && anchor.map { sameKey($0.key, run.key) } == true
            let isCut = index == runs.count - 1 && !reachesStart
            let last: Int  // occurrence of the closest row of the run
            // Never fewer rows than the window holds: a count can see fewer
            // when the rows change between statements (a query on
            // `random()`, a view of another process's rows).
            if isAnchorRun, let anchor {
                last = max(anchor.occurrence, run.count) - 1
            } else if isCut {
                last = max(try count(of: run.key), run.count) - 1
            } else {
                last = run.count - 1
            }
            for offset in 0..<run.count {
                positions.append(RowPosition(key: run.key, occurrence: last - offset))
            }
        }
        return positions
    }

    /// Whether two keys are equal as SQLite's `IS` compares them with the
    /// BINARY collation: numbers by value (3 is 3.0), text byte for byte
    /// (Swift's `==` would take "é" and "e\u{301}" for one string).
    /// Columns of other collations (NOCASE) are compared byte for byte too,
    /// which only matters for rows without identity that are equal but for
    /// case. PostgreSQL's sources order such rows by their text last
    /// (`RowSource.tieBreakExpression`), so that its keys agree.
    private func sameKey(_ a: [DatabaseValue], _ b: [DatabaseValue]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { a, b in
            if case let .string(a) = a.storage, case let .string(b) = b.storage {
                return a.utf8.elementsEqual(b.utf8)
            }
            return a == b
        }
    }

    /// The number of rows whose key is `key`.
    private func count(of key: [DatabaseValue]) throws -> Int {
        let range = ordering.equal(to: key, forward: true)[0]
        let sql = source.selectSQL(columns: ["COUNT(*)"], where: range.condition)
        return try db.fetchInt(sql, arguments: range.arguments) ?? 0
    }
}
