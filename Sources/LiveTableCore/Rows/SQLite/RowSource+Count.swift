import GRDB

// MARK: - Counting in chunks (SQLite only)

// Paged by a key, with SQLite's `PRAGMA data_version`: another database
// counts by its own means.

extension RowCount {
    /// A count in short reads, `step` counting one read's rows from where
    /// the last stopped and saying where the next starts (nil: done).
    /// SQLite's lock is released between reads, so that a rollback-journal
    /// writer commits there rather than waits for the whole count. Reads
    /// that saw different `PRAGMA data_version` values saw another process
    /// commit: the count is then `.estimated`.
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
            // A closure that calls a non-escaping `step` can not be passed
            // to `read`, which runs it before it returns.
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
    /// The rank of a row far down, in short reads: one `COUNT(*)` holds a
    /// rollback-journal file for 0.04–0.1 s per million rows, and its writer
    /// waits. Instead the ordering's index is read `chunk` rows at a time
    /// back from `position`, each read starting before the furthest row of
    /// the one before. Only with an index search, unique keys, and no
    /// filter: elsewhere each read would scan or sort again, so one read.
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
    /// A fraction of a millisecond of a scan.
    package static let countChunk = 20_000

    /// The exact number of rows, off the main thread. A rollback-journal
    /// writer can not commit during a read, and its busy handler then
    /// sleeps (the `sqlite3` command's up to 100 ms), so one `COUNT(*)` over
    /// millions of rows (half a second at 10,000,000) slows it every time.
    /// A rowid table is counted in reads of `chunk` rows, by keyset on the
    /// rowid; other sources have no rowid to page by: one `COUNT(*)`.
    package func countRows(in reader: any DatabaseReader, chunk: Int = countChunk) throws -> RowCount {
        try countRows(in: reader, chunk: chunk, betweenReads: {})
    }

    /// Tests commit in `betweenReads`.
    func countRows(in reader: any DatabaseReader, chunk: Int, betweenReads: () throws -> Void) throws -> RowCount {
        try countRows(chunk: chunk, read: { body in try reader.read(body) }, betweenReads: betweenReads)
    }

    /// `read`: a read of the viewer that can be interrupted (`ReadTicket`).
    func countRows(
        chunk: Int, read: ((Database) throws -> Void) throws -> Void, betweenReads: () throws -> Void) throws -> RowCount
    {
        guard !isQuery, case let .rowid(rowid) = identity else {
            var count = 0
            try read { db in count = try exactRowCount(db) }
            return .exact(count)
        }
        let chunk = max(1, chunk)
        // With a filter, a read still walks `chunk` rows of the table, so
        // that a filter that keeps few rows does not make one read scan all.
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

    /// One read that holds the file for the whole count: the live screen
    /// counts SQLite with `countRows(in:chunk:)`.
    package func exactRowCount(_ db: some RowReading) throws -> Int {
        try db.fetchInt(selectSQL(columns: ["COUNT(*)"], where: nil), arguments: []) ?? 0
    }

    // MARK: - Quick counts (SQLite only)

    package static let quickCountLimit = 100_000

    /// For a list of tables: exact up to `limit` rows; beyond, estimated
    /// from `sqlite_stat1` or the rowids, or else "at least `limit`".
    package func quickRowCount(_ db: Database, limit: Int = quickCountLimit) throws -> RowCount {
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

    /// The largest number of the table's `sqlite_stat1` rows (a partial
    /// index holds fewer rows than the table).
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

    /// Two searches.
    private func rowidSpan(_ db: Database) throws -> Int? {
        guard case let .rowid(rowid) = identity else { return nil }
        let row = try Row.fetchOne(db, sql: "SELECT MIN(\(rowid)), MAX(\(rowid)) FROM " + from)
        guard let low = row?[0] as Int64?, let high = row?[1] as Int64? else { return nil }
        let (span, overflow) = high.subtractingReportingOverflow(low)
        return overflow || span >= Int64(Int.max) ? Int.max : Int(span) + 1
    }
}
