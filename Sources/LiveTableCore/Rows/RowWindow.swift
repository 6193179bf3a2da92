import GRDB

/// Where a row stands in a `RowOrdering`: its key, and its rank among rows
/// of equal key. With a row identity in the key, `occurrence` is always 0.
/// Without one (views, queries), rows equal in every column can not be told
/// apart, so a position is "the `occurrence`-th row of this key", which
/// pages through duplicates without skipping or repeating any.
package struct RowPosition: Equatable, Sendable {
    package var key: [DatabaseValue]
    package var occurrence: Int
    package init(key: [DatabaseValue], occurrence: Int = 0) {
        self.key = key
        self.occurrence = occurrence
    }
}

/// Where a window of rows starts.
package enum RowAnchor: Equatable, Sendable {
    case first
    case last
    /// The row at this position, or, when it is gone, the place it would have.
    case position(RowPosition)
}

/// Up to `before` rows before the anchor and up to `after` rows from it on.
package struct RowWindowRequest: Equatable, Sendable {
    package var ordering: RowOrdering
    package var anchor: RowAnchor
    /// With `.last`, the window has `before + after` rows, all before the end.
    package var before: Int
    package var after: Int
    /// The last window held every row: read them all in one statement
    /// rather than a statement per side, which matters when each runs a
    /// whole query (a `GROUP BY`). When they no longer fit, or the anchor
    /// is gone, the window is read by ranges after all.
    package var readsWhole: Bool
    package init(ordering: RowOrdering, anchor: RowAnchor, before: Int, after: Int, readsWhole: Bool = false) {
        self.ordering = ordering
        self.anchor = anchor
        self.before = before
        self.after = after
        self.readsWhole = readsWhole
    }
}

/// Consecutive rows of a source, in an ordering, fetched by keyset (never
/// with `OFFSET`): the cost of a window does not depend on its place in
/// the table, and, when the ordering can use an index (see
/// `RowOrdering.cost(of:in:)`), not on the number of rows either.
package struct RowWindow: Equatable, Sendable {
    package var request: RowWindowRequest
    package var rows: [[DatabaseValue]]
    /// `.position(positions[i])` anchors a window on row `i`, and tells a
    /// row from another across updates.
    package var positions: [RowPosition]
    package var reachesStart: Bool
    package var reachesEnd: Bool
    /// The change token of each row (`RowSource.changeToken`), if any.
    package var changeTokens: [DatabaseValue]?
    package init(
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

    /// Fetches a window of rows, in one read. Example: "Fetching a window"
    /// in Docs/ViewerDesign.md (compiled by scripts/doc-examples.py).
    ///
    /// `scans` is true when no index serves the ordering: the ranges on each
    /// side of the anchor are then read with one statement, so that a window
    /// scans the table once per side rather than once per range.
    package static func fetch(
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
            if request.readsWhole,
               let whole = try fetcher.wholeWindow(request, anchor: anchor, before: before, after: after)
            {
                return whole.window
            }
            let ordering = request.ordering
            // From the anchor on: the rows of its key, but the
            // `occurrence` first ones, then the rows after its key.
            let equal = try fetcher.rows(
                in: ordering.equal(to: anchor.key, forward: true), limit: anchor.occurrence + after + 1)
            // A position is never negative, whatever rows changed between
            // statements (`random()` in a query).
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

extension RowWindow {
    /// The window of every row around `anchor`, from one statement, and
    /// the position of the anchor's row, or of the row in its place when
    /// no row has its key (the next one, else the last); nil when the rows
    /// do not all fit, or the place takes the ranges to find.
    package static func fetchWhole(
        _ db: some RowReading, _ source: RowSource, _ request: RowWindowRequest, anchor: RowPosition, scans: Bool = false
    ) throws -> (window: RowWindow, selection: RowPosition?)? {
        let fetcher = Fetcher(db: db, source: source, ordering: request.ordering, combinesRanges: scans)
        guard let whole = try fetcher.wholeWindow(
            request, anchor: anchor, before: max(0, request.before), after: max(0, request.after))
        else { return nil }
        let index = min(whole.anchorIndex, whole.positions.count - 1)
        return (whole.window, index >= 0 ? whole.positions[index] : nil)
    }
}

// MARK: - Fetcher

private struct Fetcher<Reader: RowReading> {
    struct FetchedRow {
        var values: [DatabaseValue]
        var key: [DatabaseValue]
        var changeToken: DatabaseValue?
    }

    let db: Reader
    let source: RowSource
    let ordering: RowOrdering
    /// True when the ranges of a side are read with one statement.
    let combinesRanges: Bool
    /// Key expressions that are not columns of the source, selected after them.
    let extraExpressions: [String]
    let keyIndices: [Int]
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

    func changeTokens(_ rows: some Sequence<FetchedRow>) -> [DatabaseValue]? {
        changeTokenIndex == nil ? nil : rows.map { $0.changeToken ?? .null }
    }

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
                result.append(fetchedRow(shown, values))
            }
        }
        return result
    }

    /// The window around `anchor` from one read of every row, and the
    /// index of the anchor's row among them (where its key would be, when
    /// no row has it: the ranges read the same window); nil when there are
    /// more rows than the window holds, or no row has the key and the
    /// database can not place it in the same statement (`rowsPlacing`).
    func wholeWindow(
        _ request: RowWindowRequest, anchor: RowPosition, before: Int, after: Int
    ) throws -> (window: RowWindow, positions: [RowPosition], anchorIndex: Int)? {
        let (rows, place) = try rowsPlacing(anchor.key, limit: before + after + 1)
        guard rows.count <= before + after else { return nil }
        let index: Int
        if let first = rows.firstIndex(where: { sameKey($0.key, anchor.key) }) {
            let run = rows[first...].prefix { sameKey($0.key, anchor.key) }.count
            index = first + min(max(0, anchor.occurrence), run)
        } else {
            guard let place else { return nil }
            index = place
        }
        let range = max(0, index - before)..<min(rows.count, index + after)
        let window = Array(rows[range])
        let positions = forwardPositions(rows, startingAt: nil)
        return (RowWindow(
            request: request, rows: window.map(\.values),
            positions: Array(positions[range]),
            reachesStart: range.lowerBound == 0, reachesEnd: range.upperBound == rows.count,
            changeTokens: changeTokens(window)), positions, index)
    }

    /// The first `limit` rows, and how many of them come before `key` as the
    /// database orders it, collations included: in SQLite, a row of the
    /// key's own, marked, joins the rows in the same `ORDER BY` (before the
    /// rows equal to it, as the ranges read them). Elsewhere the place is nil.
    private func rowsPlacing(_ key: [DatabaseValue], limit: Int) throws -> (rows: [FetchedRow], place: Int?) {
        guard source.dialect == .sqlite, key.count == keyIndices.count else {
            return (try rows(in: ordering.all(forward: true), limit: limit), nil)
        }
        let columns = (source.shownExpressions ?? source.columnExpressions) + extraExpressions
        var keyRow = [DatabaseValue](repeating: .null, count: columns.count)
        for (index, value) in zip(keyIndices, key) {
            keyRow[index] = value
        }
        // By column number: a compound's ORDER BY names its result columns,
        // and sorts them with the collations of the first SELECT's.
        let terms = zip(ordering.keyColumns, keyIndices).map { column, index in
            "\(index + 1)" + (column.descending ? " DESC" : "")
                + (column.nullsFirst.map { $0 ? " NULLS FIRST" : " NULLS LAST" } ?? "")
        }
        let sql = source.selectSQL(columns: columns + ["1"], indexedBy: ordering.indexName, where: nil)
            + " UNION ALL SELECT " + Array(repeating: "?", count: columns.count + 1).joined(separator: ", ")
            + " ORDER BY " + (terms + ["\(columns.count + 1)"]).joined(separator: ", ") + " LIMIT ?"
        var rows: [FetchedRow] = []
        var place: Int?
        let arguments = keyRow + [DatabaseValue(value: Int64(0))!, DatabaseValue(value: Int64(limit + 1))!]
        try db.forEachRow(sql, arguments: arguments, shownColumns: source.columnExpressions.count) { shown, values in
            if values.last == DatabaseValue(value: Int64(0)) {
                place = rows.count
                return
            }
            rows.append(fetchedRow(shown, values))
        }
        return (rows, place)
    }

    private func fetchedRow(_ shown: [DatabaseValue], _ values: [DatabaseValue]) -> FetchedRow {
        FetchedRow(
            values: shown, key: keyIndices.map { values[$0] },
            changeToken: changeTokenIndex.flatMap { values.indices.contains($0) ? values[$0] : nil })
    }

    /// `start` is the anchor's position (nil: the first row of the ordering).
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

    /// Rows read backwards (closest first). Rows of the anchor's key come
    /// just before `anchor`; each other key is entered from its last row, so
    /// its occurrences count down from its number of rows: known when the
    /// window holds them all, counted for the furthest key otherwise.
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

    /// Equal as SQLite's `IS` with BINARY: numbers by value (3 is 3.0), text
    /// byte for byte (Swift's `==` takes "é" and "e\u{301}" for one string).
    /// NOCASE columns too, which only matters for rows without identity
    /// equal but for case; PostgreSQL orders those by their text last
    /// (`RowSource.tieBreakExpression`), so that its keys agree.
    private func sameKey(_ a: [DatabaseValue], _ b: [DatabaseValue]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { a, b in
            if case let .string(a) = a.storage, case let .string(b) = b.storage {
                return a.utf8.elementsEqual(b.utf8)
            }
            return a == b
        }
    }

    private func count(of key: [DatabaseValue]) throws -> Int {
        let range = ordering.equal(to: key, forward: true)[0]
        let sql = source.selectSQL(columns: ["COUNT(*)"], where: range.condition)
        return try db.fetchInt(sql, arguments: range.arguments) ?? 0
    }
}
