import Dispatch
import Foundation
import GRDB
import LiveTableCore

/// Measures the viewer's data layer on a file: the time from opening it to
/// the first window, and the time of the windows that keys ask for (End,
/// Home, PgDn), through the same calls the viewer makes.
///
/// For example:
///
/// ```swift
/// try ViewerBenchmark.makeTable(atPath: "/tmp/big.sqlite", rows: 2_000_000)
/// let figures = try ViewerBenchmark.measure(path: "/tmp/big.sqlite", table: "item", sortColumn: "score")
/// print(figures.firstWindow, figures.end.p50)
/// ```
public enum ViewerBenchmark {
    /// What one measure found.
    public struct Figures: Sendable {
        /// The number of rows of the table.
        public var rowCount: Int
        /// Whether the windows are index searches or scans.
        public var cost: WindowCost
        /// From opening the file to the first window fetched (schema,
        /// ordering, cost, window), in milliseconds: the time to first rows,
        /// the screen aside.
        public var firstWindow: Double
        /// The window at the end (End, G).
        public var end: LatencySummary
        /// The window at the start (Home, g).
        public var home: LatencySummary
        /// The next window from the middle of the table (PgDn).
        public var pageDown: LatencySummary
        /// The exact row count (done off the main thread by the viewer),
        /// in milliseconds.
        public var exactCount: Double
    }

    /// Creates (or replaces) the table `item(id INTEGER PRIMARY KEY, name
    /// TEXT, score INTEGER, note TEXT)` with `rows` rows and an index on
    /// `score` (not on `name`), in a rollback-journal file, as another
    /// program would.
    ///
    /// - parameter path: The database file (created if missing).
    /// - parameter rows: The number of rows.
    public static func makeTable(atPath path: String, rows: Int) throws {
        let dbQueue = try DatabaseQueue(path: path)
        defer { try? dbQueue.close() }
        try dbQueue.write { db in
            try db.execute(sql: """
                DROP TABLE IF EXISTS item;
                CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, score INTEGER, note TEXT);
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
                INSERT INTO item(name, score, note)
                SELECT printf('Name %07d', (i * 7919) % ?), (i * 104729) % 100000,
                       CASE WHEN i % 10 = 0 THEN NULL ELSE 'note ' || i END
                FROM n;
                CREATE INDEX item_on_score ON item(score);
                """, arguments: [rows, max(rows, 1)])
        }
    }

    /// Measures the windows of `table` in `path`, sorted on `sortColumn`
    /// (nil: the rowid), `visibleRows` rows at a time, `repetitions` times
    /// each.
    public static func measure(
        path: String, table: String, sortColumn: String?, descending: Bool = false,
        visibleRows: Int = 30, repetitions: Int = 20) throws -> Figures
    {
        let start = now()
        let database = try ViewerDatabase.open(path: path)
        let (source, ordering, cost, first) = try database.read { db in
            let source = RowSource.table(try ViewerTable.named(table, in: db))
            let ordering = try RowOrdering(source, sortColumn: sortColumn, descending: descending)
            let cost = try ordering.cost(of: source, in: db)
            let first = try RowWindow.fetch(db, source, RowWindowRequest(
                ordering: ordering, anchor: .first, before: 0, after: visibleRows))
            return (source, ordering, cost, first)
        }
        let firstWindow = (now() - start) * 1000
        _ = first

        func time(_ anchor: () throws -> RowAnchor, before: Int, after: Int) throws -> LatencySummary {
            var samples: [Double] = []
            for _ in 0..<max(1, repetitions) {
                let anchor = try anchor()
                let start = now()
                _ = try database.read { db in
                    try RowWindow.fetch(db, source, RowWindowRequest(
                        ordering: ordering, anchor: anchor, before: before, after: after))
                }
                samples.append(now() - start)
            }
            return LatencySummary(seconds: samples)!
        }

        let countStart = now()
        let rowCount = try database.read(background: true) { db in try source.exactRowCount(db) }
        let exactCount = (now() - countStart) * 1000

        // The middle of the table, found by rowid rather than by a window.
        let middle = try database.read { db -> RowAnchor in
            let window = try RowWindow.fetch(db, source, RowWindowRequest(
                ordering: try RowOrdering(source), anchor: .position(RowPosition(key: [(rowCount / 2).databaseValue])),
                before: 0, after: 1))
            guard let row = window.rows.first else { return .first }
            let key = ordering.keyColumns.map { column -> DatabaseValue in
                let index = source.columnExpressions.firstIndex(of: column.expression)
                return index.map { row[$0] } ?? window.positions[0].key[0]
            }
            return .position(RowPosition(key: key))
        }
        return Figures(
            rowCount: rowCount,
            cost: cost,
            firstWindow: firstWindow,
            end: try time({ .last }, before: visibleRows, after: 0),
            home: try time({ .first }, before: 0, after: visibleRows),
            pageDown: try time({ middle }, before: 0, after: visibleRows),
            exactCount: exactCount)
    }
}

extension ViewerBenchmark {
    /// Commits per second of a writer of single-row updates on the
    /// rollback-journal file of `makeTable(atPath:rows:)`, for `duration`
    /// seconds, alone or while a viewer re-reads the last window without
    /// pause (the worst case: a real viewer reads once per commit).
    ///
    /// The figure shows whether the viewer starves writers: each of its
    /// reads is one short transaction, so the writer waits for one window
    /// fetch at most, never for the viewer as a whole.
    ///
    /// - important: This writes to the file: use it on benchmark tables only.
    /// - returns: The commits per second, the windows the viewer read, and
    ///   the reads that failed because the writer held the lock for longer
    ///   than the viewer's busy timeout.
    public static func writerThroughput(
        path: String, duration: TimeInterval, whileViewing: Bool) throws
        -> (commitsPerSecond: Double, windows: Int, lockedReads: Int)
    {
        let viewer = Viewer()
        let group = DispatchGroup()
        if whileViewing {
            let database = try ViewerDatabase.open(path: path)
            let (source, ordering) = try database.read { db in
                let source = RowSource.table(try ViewerTable.named("item", in: db))
                return (source, try RowOrdering(source, sortColumn: "score", descending: true))
            }
            DispatchQueue.global().async(group: group) {
                while !viewer.isStopped {
                    do {
                        _ = try database.read { db in
                            try RowWindow.fetch(db, source, RowWindowRequest(
                                ordering: ordering, anchor: .last, before: 30, after: 0))
                        }
                        viewer.count()
                    } catch ViewerError.locked {
                        // A writer that commits without pause can keep a
                        // reader of a rollback-journal file out for longer
                        // than its busy timeout: counted, not fatal.
                        viewer.countLocked()
                    } catch {
                        viewer.fail(error)
                    }
                }
            }
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        let writer = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? writer.close() }
        let rowCount = try writer.read { db in try Int.fetchOne(db, sql: "SELECT MAX(id) FROM item") ?? 1 }
        var commits = 0
        let start = now()
        while now() - start < duration {
            let id = (commits * 7919) % max(rowCount, 1) + 1
            try writer.write { db in
                try db.execute(sql: "UPDATE item SET score = score + 1 WHERE id = ?", arguments: [id])
            }
            commits += 1
        }
        let elapsed = now() - start
        viewer.stop()
        group.wait()
        if let error = viewer.error {
            throw error
        }
        return (Double(commits) / elapsed, viewer.windows, viewer.lockedReads)
    }

    /// The state of the reading thread.
    // @unchecked Sendable: every member is accessed under the lock.
    private final class Viewer: @unchecked Sendable {
        private let lock = NSLock()
        private var stopped = false
        private var windowCount = 0
        private var lockedCount = 0
        private var firstError: (any Error)?

        var isStopped: Bool { lock.withLock { stopped } }
        var windows: Int { lock.withLock { windowCount } }
        var lockedReads: Int { lock.withLock { lockedCount } }
        var error: (any Error)? { lock.withLock { firstError } }

        func stop() { lock.withLock { stopped = true } }
        func count() { lock.withLock { windowCount += 1 } }
        func countLocked() { lock.withLock { lockedCount += 1 } }
        func fail(_ error: any Error) {
            lock.withLock {
                if firstError == nil { firstError = error }
                stopped = true
            }
        }
    }
}

/// A monotonic clock, in seconds.
private func now() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1_000_000_000
}
