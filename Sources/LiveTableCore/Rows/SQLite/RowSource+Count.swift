import GRDB

// MARK: - Counting in chunks (SQLite only)

// Paged by a key (the rowid, or an ordering's key), with SQLite's `PRAGMA
// data_version`: a second database counts by its own means
// (`exactRowCount(_:)` and `RowOrdering.countRows(_:in:before:)` are
// generic).

extension RowCount {
    /// A count in short reads, each made by `read`, with `betweenReads`
    /// called between two (tests commit there): `step` counts the rows of
    /// one read, from where the read before it stopped (nil for the
    /// first), and says where the next one starts (nil: the count is
    /// done). SQLite's lock is released between two reads, so that a
    /// writer of a rollback-journal file commits there rather than waits
    /// for the whole count.
    ///
    /// Reads that see different `PRAGMA data_version` values saw different
    /// states of the file (another process committed meanwhile): the count
    /// is then `.estimated`; `.exact` otherwise.
    static func inShortReads<Place>(
        read: ((Database) throws -> Void) throws -> Void, betweenReads: () throws -> Void,
        _ step: (_ db: Database, _ from: Place?) throws -> (count: Int, next: Place?)) throws -> RowCount
    {
        var total = 0
        var place: Place?
        var firstVersion: Int?
        var lastVersion: Int?
        while true {
            var counted: (count: Int, next: Place?) = (0, nil)
            var version: Int?
            // Not escaping: `read` runs it before it returns (a closure
            // that calls a non-escaping `step` can not be passed to it).
            try withoutActuallyEscaping(step) { step in
                try read { db in
                    counted = try step(db, place)
                    version = try Int.fetchOne(db, sql: "PRAGMA data_version")
                }
            }
            firstVersion = firstVersion ?? version
            lastVersion = version
            total += counted.count
            guard let next = counted.next else { break }
            place = next
            try betweenReads()
        }
        return firstVersion == lastVersion ? .exact(total) : .estimated(total)
    }
}

extension RowOrdering {
    /// The exact number of rows of `source` before `position`, counted in
    /// short reads of `chunk` rows that let another process's writer
    /// commit between them, as `RowSource.countRows(in:chunk:)` counts all
    /// rows: `.estimated` when another process committed during the
    /// count. Call it off the main thread.
    ///
    /// One `COUNT(*)` of the rows before a row far down holds a
    /// rollback-journal file for 0.04–0.1 s per million rows, and its
    /// writer waits (20,000 rows a read: under a millisecond each). The rows are read instead by the index that gives
    /// this order, `chunk` at a time back from `position`, each read
    /// starting before the furthest row of the one before it
    /// (`countRows(_:in:before:upTo:)`). Only where an index reads the
    /// rows (`cost` is `.indexSearch`) and their keys are unique, in a
    /// table without filter: elsewhere each read would scan or sort the
    /// rows again, and the rows are counted in one read
    /// (`countRows(_:in:before:)`): `.exact`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let before = try ordering.countRows(
    ///     in: source, before: selection, cost: .indexSearch, chunk: RowSource.countChunk,
    ///     read: { body in try reader.read(body) }, betweenReads: {})
    /// print("row \(before.value + 1)")
    /// ```
    func countRows(
        in source: RowSource, before position: RowPosition, cost: WindowCost, chunk: Int,
        read: ((Database) throws -> Void) throws -> Void, betweenReads: () throws -> Void) throws -> RowCount
    {
        guard cost == .indexSearch, isUnique, position.occurrence == 0, !source.isQuery, source.filter == nil else {
            var count = 0
            try read { db in count = try countRows(db, in: source, before: position) }
            return .exact(count)
        }
        let chunk = max(1, chunk)
        return try RowCount.inShortReads(read: read, betweenReads: betweenReads) { db, after in
            try countRows(db, in: source, before: after ?? position.key, upTo: chunk)
        }
    }
}

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
    /// `SQLiteDataSource` that can be interrupted (`ReadTicket`).
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
        return try RowCount.inShortReads(read: read, betweenReads: betweenReads) { db, after -> (count: Int, next: Int64?) in
            let row = try after.map { after in
                try Row.fetchOne(db.cachedStatement(sql: next), arguments: [after, chunk])
            } ?? Row.fetchOne(db.cachedStatement(sql: first), arguments: [chunk])
            let counted = (row?[0] as Int?) ?? 0
            let keptCount = (row?[2] as Double?).map { Int($0) } ?? 0
            // A full chunk: more rows may follow its last rowid.
            return (keptCount, counted == chunk ? row?[1] as Int64? : nil)
        }
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
