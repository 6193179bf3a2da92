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

// MARK: - Counting in chunks (SQLite only)

// Paged by the rowid, with SQLite's `PRAGMA data_version`: a second
// database counts by its own means (`exactRowCount(_:)` is generic).

extension RowSource {
    /// The number of rows that `countRows(in:chunk:)` counts in one read,
    /// at most: a fraction of a millisecond of a scan.
    public static let countChunk = 20_000

    /// The exact number of rows, counted in short reads that let another
    /// process's writer commit between them. Call it off the main thread.
    ///
    /// A rollback-journal writer can not commit while a read holds the
    /// file, and its busy handler then sleeps (the `sqlite3` command's for
    /// up to 100 ms), so one `COUNT(*)` over millions of rows in one read
    /// (11 ms at 2,000,000 rows, half a second at 10,000,000) slows it down
    /// every time. A rowid table is counted instead in reads of `chunk`
    /// rows, paged by keyset on the rowid; SQLite's lock is released
    /// between them. Reads that see different `PRAGMA data_version` values
    /// saw different states of the file: the count is then `.estimated`.
    /// Other sources (WITHOUT ROWID tables, views, queries) have no rowid
    /// to page by, and are counted with one `COUNT(*)`: `.exact`.
    ///
    /// For example:
    ///
    /// ```swift
    /// switch try source.countRows(in: database.backgroundReader) {
    /// case let .exact(count): print(count)
    /// case let .estimated(count): print("~\(count)") // another process committed meanwhile
    /// case let .atLeast(count): print("\(count)+")  // never returned
    /// }
    /// ```
    public func countRows(in reader: any DatabaseReader, chunk: Int = countChunk) throws -> RowCount {
        try countRows(in: reader, chunk: chunk, betweenReads: {})
    }

    /// `countRows(in:chunk:)`, calling `betweenReads` after each read but
    /// the last (tests commit there).
    func countRows(in reader: any DatabaseReader, chunk: Int, betweenReads: () throws -> Void) throws -> RowCount {
        try countRows(chunk: chunk, read: { body in try reader.read(body) }, betweenReads: betweenReads)
    }

    /// `countRows(in:chunk:)`, each of its reads made by `read`: a read of
    /// `ViewerDatabase` that can be interrupted (`ReadTicket`).
    func countRows(
        chunk: Int, read: ((Database) throws -> Void) throws -> Void, betweenReads: () throws -> Void) throws -> RowCount
    {
        guard !isQuery, case let .rowid(rowid) = identity else {
            var count = 0
            try read { db in count = try exactRowCount(db) }
            return .exact(count)
        }
        let chunk = max(1, chunk)
        // With a filter, a read still walks `chunk` rows of the table, and
        // counts those that the filter keeps: a filter that keeps few rows
        // does not make one read scan the whole table.
        let kept = filter.map { "CASE WHEN (\n\($0)\n) THEN 1 ELSE 0 END" } ?? "1"
        let select = "SELECT COUNT(*), MAX(\"r\"), TOTAL(\"k\") FROM (SELECT \(rowid) AS \"r\", \(kept) AS \"k\" FROM \(from)"
        let first = select + " ORDER BY \(rowid) LIMIT ?)"
        let next = select + " WHERE \(rowid) > ? ORDER BY \(rowid) LIMIT ?)"
        var total = 0
        var after: Int64?
        var firstVersion: Int?
        var lastVersion: Int?
        while true {
            var (counted, last, keptCount, version): (Int, Int64?, Int, Int?) = (0, nil, 0, nil)
            try read { db in
                let row = try after.map { after in
                    try Row.fetchOne(db.cachedStatement(sql: next), arguments: [after, chunk])
                } ?? Row.fetchOne(db.cachedStatement(sql: first), arguments: [chunk])
                version = try Int.fetchOne(db, sql: "PRAGMA data_version")
                (counted, last, keptCount) = ((row?[0] as Int?) ?? 0, row?[1] as Int64?, (row?[2] as Double?).map { Int($0) } ?? 0)
            }
            firstVersion = firstVersion ?? version
            lastVersion = version
            total += keptCount
            guard counted == chunk, let last else { break }
            after = last
            try betweenReads()
        }
        return firstVersion == lastVersion ? .exact(total) : .estimated(total)
    }

    // MARK: - Counting at once

    /// The exact number of rows: `COUNT(*)`, which reads the whole table
    /// (its smallest index) in the read of `db`. Call it off the main
    /// thread; the live screen counts SQLite with `countRows(in:chunk:)`,
    /// which does not hold the file for the whole count.
    ///
    /// For example:
    ///
    /// ```swift
    /// let count = try database.read { db in try source.exactRowCount(db) }
    /// ```
    public func exactRowCount(_ db: some RowReading) throws -> Int {
        try db.fetchInt(selectSQL(columns: ["COUNT(*)"], where: nil), arguments: []) ?? 0
    }

    // MARK: - Quick counts (SQLite only)

    /// The number of rows that `quickRowCount(_:limit:)` counts, at most.
    public static let quickCountLimit = 100_000

    /// The number of rows at a bounded cost, for a list of tables: exact
    /// up to `limit` rows; beyond, estimated from `sqlite_stat1` or from
    /// the rowids, or else "at least `limit`". SQLite only: a second
    /// database estimates from its own statistics.
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
            db, sql: "SELECT COUNT(*) FROM (" + selectSQL(columns: ["1"], where: [], limit: true) + ")",
            arguments: [limit]) ?? 0
        if counted < limit {
            return .exact(counted)
        }
        if !isQuery, filter == nil, let estimate = try statisticsRowCount(db) ?? rowidSpan(db) {
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
