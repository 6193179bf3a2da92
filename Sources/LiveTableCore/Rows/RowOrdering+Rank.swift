import GRDB

// MARK: - Counting rows around a position

extension RowOrdering {
    /// The rows before `position`, counted up to `limit`, in the ranges and
    /// with the statements a window reads, wrapped in `COUNT(*)`: counting
    /// costs what reading costs. SQLite's B-trees do not count a subtree's
    /// entries, so an exact rank far from both ends is a scan: the limit.
    package func countRows(_ db: some RowReading, in source: RowSource, before position: RowPosition, limit: Int) throws -> Int {
        guard limit > 0 else { return 0 }
        var count = 0
        if position.occurrence > 0 {
            count = try countRows(db, in: source, equal(to: position.key, forward: true), limit: min(position.occurrence, limit))
        }
        return count + (try countRows(db, in: source, before(position.key), limit: limit - count))
    }

    /// The exact rank, however far: each range is one `COUNT(*)` without
    /// `ORDER BY` or `LIMIT`, so that the database counts it the cheapest
    /// way (an index-only count). Its cost grows with the rows before the
    /// position: call it off the main thread.
    package func countRows(_ db: some RowReading, in source: RowSource, before position: RowPosition) throws -> Int {
        var count = 0
        if position.occurrence > 0 {
            count = try countRows(db, in: source, equal(to: position.key, forward: true), limit: position.occurrence)
        }
        return count + (try countRows(db, in: source, before(position.key), limit: nil))
    }

    /// The rows from `position` on, its row included, counted up to `limit`.
    package func countRows(_ db: some RowReading, in source: RowSource, from position: RowPosition, limit: Int) throws -> Int {
        guard limit > 0 else { return 0 }
        let equalCount = try countRows(
            db, in: source, equal(to: position.key, forward: true), limit: position.occurrence + limit)
        let count = min(max(0, equalCount - position.occurrence), limit)
        return count + (try countRows(db, in: source, after(position.key), limit: limit - count))
    }

    /// One read of SQLite's count in short reads: the rows before `key` up
    /// to `limit`, and, when there are `limit`, the key of the furthest one,
    /// where the next read goes on. A unique key only, so that the rows
    /// before the furthest one are all those still to count. In each range,
    /// closest first, the row `limit - count` away is looked up (`LIMIT 1
    /// OFFSET ?`, an index walk that reads no row); when it is not there, the
    /// range's fewer rows are counted and the next range is walked.
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

    /// Nil `limit`: all of them.
    private func countRows(_ db: some RowReading, in source: RowSource, _ ranges: [Range], limit: Int?) throws -> Int {
        var count = 0
        for range in ranges where limit.map({ count < $0 }) ?? true {
            guard let limit else {
                let select = source.selectSQL(columns: ["1"], indexedBy: indexName, where: range.condition)
                count += try db.fetchInt(source.dialect.countSQL(of: select), arguments: range.arguments) ?? 0
                continue
            }
            // `RowWindow`'s statement, counted: the same plan, no columns read.
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

    /// Where the row that was at `position` is now, found by its identity
    /// whatever its sort value became (so a selection follows its row when
    /// another process changes it); without identity, the same position
    /// while a row is there. Nil when the row is gone.
    package func currentPosition(of position: RowPosition, in source: RowSource, _ db: some RowReading) throws -> RowPosition? {
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
        // Read as stored, not decoded, so that the key binds back exactly (a
        // blob stays a blob). A row the filter no longer keeps is gone.
        let sql = source.selectSQL(columns: keyExpressions, where: condition) + " LIMIT 1"
        guard let key = try db.firstRowValues(sql, arguments: arguments) else {
            return nil
        }
        return RowPosition(key: key)
    }
}
