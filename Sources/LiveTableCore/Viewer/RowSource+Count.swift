import GRDB

/// A number of rows, and how sure it is.
public enum RowCount: Equatable, Sendable {
    /// Counted.
    case exact(Int)
    /// Estimated without counting: from `sqlite_stat1` (as of the last
    /// `ANALYZE`), or from the span of the rowids.
    case estimated(Int)
    /// Counting stopped at this many rows, and nothing cheaper tells more.
    case atLeast(Int)

    /// The number, exact or not.
    ///
    /// For example:
    ///
    /// ```swift
    /// RowCount.estimated(2_000_000).value // 2000000
    /// ```
    public var value: Int {
        switch self {
        case let .exact(count), let .estimated(count), let .atLeast(count): return count
        }
    }

    /// True for `.exact`.
    public var isExact: Bool {
        if case .exact = self { return true }
        return false
    }
}

extension RowSource {
    /// The number of rows that `quickRowCount(_:limit:)` counts, at most.
    public static let quickCountLimit = 100_000

    /// The exact number of rows: `COUNT(*)`, which reads the whole table
    /// (its smallest index). Call it off the main thread.
    ///
    /// For example:
    ///
    /// ```swift
    /// let count = try database.read { db in try source.exactRowCount(db) }
    /// ```
    public func exactRowCount(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: prefix + "SELECT COUNT(*) FROM " + from) ?? 0
    }

    /// The number of rows at a bounded cost, for a list of tables: exact
    /// up to `limit` rows; beyond, estimated from `sqlite_stat1` or from
    /// the rowids, or else "at least `limit`".
    ///
    /// For example:
    ///
    /// ```swift
    /// switch try source.quickRowCount(db) {
    /// case let .exact(count): print(count)
    /// case let .estimated(count): print("~\(count)")
    /// case let .atLeast(count): print("\(count)+")
    /// }
    /// ```
    public func quickRowCount(_ db: Database, limit: Int = quickCountLimit) throws -> RowCount {
        let counted = try Int.fetchOne(
            db, sql: prefix + "SELECT COUNT(*) FROM (SELECT 1 FROM " + from + " LIMIT ?)",
            arguments: [limit]) ?? 0
        if counted < limit {
            return .exact(counted)
        }
        if !isQuery, let estimate = try statisticsRowCount(db) ?? rowidSpan(db) {
            return .estimated(max(estimate, limit))
        }
        return .atLeast(limit)
    }

    /// The row count that the last `ANALYZE` stored: the first number of
    /// the `sqlite_stat1` rows of the table (the largest: a partial index
    /// holds fewer rows than the table).
    private func statisticsRowCount(_ db: Database) throws -> Int? {
        // Not GRDB's `tableExists`: its schema cache does not see the
        // ANALYZE of another process.
        let hasStatistics = try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE name = 'sqlite_stat1')") ?? false
        guard hasStatistics else { return nil }
        return try Int.fetchOne(
            db, sql: "SELECT MAX(CAST(stat AS INTEGER)) FROM sqlite_stat1 WHERE tbl = ?",
            arguments: [name])
    }

    /// One more than the difference of the extreme rowids: two searches.
    private func rowidSpan(_ db: Database) throws -> Int? {
        guard case let .rowid(rowid) = identity else { return nil }
        let row = try Row.fetchOne(db, sql: "SELECT MIN(\(rowid)), MAX(\(rowid)) FROM " + from)
        guard let low = row?[0] as Int64?, let high = row?[1] as Int64? else { return nil }
        let (span, overflow) = high.subtractingReportingOverflow(low)
        return overflow || span >= Int64(Int.max) ? Int.max : Int(span) + 1
    }
}
