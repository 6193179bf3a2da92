import GRDB

// MARK: - Counting rows around a position

extension RowOrdering {
    /// The number of rows before `position`, counting no further than
    /// `limit`: the exact rank of a row near the start of the ordering, at
    /// the cost of at most `limit` index entries.
    ///
    /// The rows are counted in the ranges that a window reads (see
    /// `RowWindow.fetch(_:_:_:)`), with the same statements but for a
    /// `COUNT(*)` around them, so that counting costs what reading costs.
    /// SQLite's B-trees do not count the entries of a subtree: an exact
    /// rank far from both ends costs a scan, which the limit prevents.
    ///
    /// For example:
    ///
    /// ```swift
    /// let rank = try ordering.countRows(db, in: source, before: position, limit: 1000)
    /// if rank < 1000 { print("row \(rank + 1)") }
    /// ```
    ///
    /// - parameter db: A database connection.
    /// - parameter source: The table, view or query.
    /// - parameter position: A row position; its row need not exist.
    /// - parameter limit: The count at which counting stops.
    /// - returns: The number of rows before `position`, or `limit` when
    ///   there are at least that many.
    public func countRows(_ db: some RowReading, in source: RowSource, before position: RowPosition, limit: Int) throws -> Int {
        guard limit > 0 else { return 0 }
        // Rows of the position's key that come first, then rows before the key.
        var count = 0
        if position.occurrence > 0 {
            count = try countRows(db, in: source, equal(to: position.key, forward: true), limit: min(position.occurrence, limit))
        }
        return count + (try countRows(db, in: source, before(position.key), limit: limit - count))
    }

    /// The exact number of rows before `position`, however many: the rank
    /// of a row anywhere in the ordering, for where
    /// `countRows(_:in:before:limit:)` stops. Call it off the main thread.
    ///
    /// The ranges are those of the bounded count, each counted with one
    /// `COUNT(*)` without `ORDER BY` or `LIMIT`, so that the database
    /// counts a range the cheapest way it knows (an index-only count of
    /// the sort column's index, the table's smallest index for the rowid):
    /// its cost grows with the number of rows before the position.
    ///
    /// For example:
    ///
    /// ```swift
    /// let rank = try ordering.countRows(db, in: source, before: selection)
    /// print("row \(rank + 1)")
    /// ```
    ///
    /// - parameter db: A database connection.
    /// - parameter source: The table, view or query.
    /// - parameter position: A row position; its row need not exist.
    /// - returns: The number of rows before `position`.
    public func countRows(_ db: some RowReading, in source: RowSource, before position: RowPosition) throws -> Int {
        var count = 0
        if position.occurrence > 0 {
            count = try countRows(db, in: source, equal(to: position.key, forward: true), limit: position.occurrence)
        }
        return count + (try countRows(db, in: source, before(position.key), limit: nil))
    }

    /// The number of rows from `position` on (its row included), counting
    /// no further than `limit`: with the row count, the exact rank of a
    /// row near the end of the ordering.
    ///
    /// For example:
    ///
    /// ```swift
    /// let fromRow = try ordering.countRows(db, in: source, from: position, limit: 1000)
    /// if fromRow < 1000 { print("row \(rowCount - fromRow + 1)") }
    /// ```
    ///
    /// - parameter db: A database connection.
    /// - parameter source: The table, view or query.
    /// - parameter position: A row position; its row need not exist.
    /// - parameter limit: The count at which counting stops.
    /// - returns: The number of rows from `position` on, or `limit` when
    ///   there are at least that many.
    public func countRows(_ db: some RowReading, in source: RowSource, from position: RowPosition, limit: Int) throws -> Int {
        guard limit > 0 else { return 0 }
        // Rows of the position's key but the first `occurrence` ones, then
        // rows after the key.
        let equalCount = try countRows(
            db, in: source, equal(to: position.key, forward: true), limit: position.occurrence + limit)
        let count = min(max(0, equalCount - position.occurrence), limit)
        return count + (try countRows(db, in: source, after(position.key), limit: limit - count))
    }

    /// The rows before `key`, counted up to `limit` in the read of `db`:
    /// how many, and when they are `limit`, the key of the furthest one,
    /// before which the next count goes on (more rows may be there). One
    /// read of SQLite's count in short reads
    /// (`countRows(in:before:cost:chunk:read:betweenReads:)`); a unique
    /// key only, so that the rows before the furthest one are all those
    /// still to count.
    ///
    /// The ranges before `key` are walked from the closest, as the
    /// bounded count walks them: in each, the row `limit - count` rows
    /// away is looked up (`LIMIT 1 OFFSET ?`, a walk of the index that
    /// reads no row); when it is not there, the range holds fewer rows,
    /// which are counted, and the next range is walked.
    ///
    /// For example:
    ///
    /// ```swift
    /// let (count, next) = try ordering.countRows(db, in: source, before: selection.key, upTo: 20_000)
    /// if let next { print("\(count) rows, and more before \(next)") }
    /// ```
    func countRows(
        _ db: some RowReading, in source: RowSource, before key: [DatabaseValue], upTo limit: Int
    ) throws -> (count: Int, next: [DatabaseValue]?)
    {
        var count = 0
        for range in before(key) {
            let select = source.selectSQL(
                columns: keyColumns.map(\.expression), indexedBy: indexName, where: [range.condition].compactMap { $0 },
                orderBy: orderBy(forward: range.forward), limit: true, offset: true)
            let offset = Int64(limit - count - 1)
            if let furthest = try db.firstRowValues(select, arguments: range.arguments + [1.databaseValue, offset.databaseValue]) {
                return (limit, furthest)
            }
            count += try countRows(db, in: source, [range], limit: limit - count)
        }
        return (count, nil)
    }

    /// The number of rows in `ranges`, counting no further than `limit`
    /// (nil: all of them).
    private func countRows(_ db: some RowReading, in source: RowSource, _ ranges: [Range], limit: Int?) throws -> Int {
        var count = 0
        for range in ranges where limit.map({ count < $0 }) ?? true {
            guard let limit else {
                // Unbounded: no order to keep, nothing to stop at.
                let select = source.selectSQL(columns: ["1"], indexedBy: indexName, where: range.condition)
                count += try db.fetchInt(source.dialect.countSQL(of: select), arguments: range.arguments) ?? 0
                continue
            }
            // The statement of `RowWindow`'s range, bounded, counted: the
            // same plan, without reading the columns.
            let select = source.selectSQL(
                columns: ["1"], indexedBy: indexName, where: range.condition,
                orderBy: orderBy(forward: range.forward), limit: true)
            count += try db.fetchInt(
                source.dialect.countSQL(of: select),
                arguments: range.arguments + [DatabaseValue(value: Int64(limit - count))!]) ?? 0
        }
        return max(0, count)
    }

    // MARK: - Following a row

    /// The position now of the row that was at `position`: found by its
    /// identity (the rowid or primary key, which the key of an ordering of
    /// a table holds), whatever its sort value became; or, for a source
    /// without identity, at the same position while a row is there. Nil
    /// when the row is gone.
    ///
    /// This is how a selection stays on its row when another process
    /// changes the row's sort value: the viewer's selection and the Hall
    /// of Fame's selected player follow their row this way.
    ///
    /// For example:
    ///
    /// ```swift
    /// // Barbara's score is now 10: her position by score is now lower.
    /// let now = try ordering.currentPosition(of: barbara, in: source, db) ?? barbara
    /// ```
    ///
    /// - parameter position: A position of this ordering.
    /// - parameter source: The table, view or query.
    /// - parameter db: A database connection.
    public func currentPosition(of position: RowPosition, in source: RowSource, _ db: some RowReading) throws -> RowPosition? {
        let keyExpressions = keyColumns.map(\.expression)
        guard source.identity != .none else {
            // A row without identity is its values: it is there or not.
            let equal = equal(to: position.key, forward: true)[0]
            let sql = source.selectSQL(columns: ["COUNT(*)"], where: equal.condition)
            let count = try db.fetchInt(sql, arguments: equal.arguments) ?? 0
            return position.occurrence < count ? position : nil
        }
        var values: [DatabaseValue] = []
        for expression in source.identityExpressions {
            guard let index = keyExpressions.firstIndex(of: expression) else { return nil }
            values.append(position.key[index])
        }
        let (condition, arguments) = matching(source.identityExpressions, values)
        // The key values are read as stored, not decoded, so that they bind
        // back exactly (a blob stays a blob). A row that the filter no
        // longer keeps is gone.
        let sql = source.selectSQL(columns: keyExpressions, where: condition) + " LIMIT 1"
        guard let key = try db.firstRowValues(sql, arguments: arguments) else {
            return nil
        }
        return RowPosition(key: key)
    }
}
