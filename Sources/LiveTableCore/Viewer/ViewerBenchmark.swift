import Dispatch
import Foundation
import GRDB

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

/// A monotonic clock, in seconds.
private func now() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1_000_000_000
}
