import Foundation
import GRDB
import LiveTableCore
import PostgresServer
import SQLiteCommandLine

/// `#` at 2,000,000 rows (issue 27), on the app's own loop with the real
/// `ViewerProgram`, on a SQLite file in WAL mode and on a local PostgreSQL
/// server (when installed). It measures the time from the key to the
/// first counts on screen, on an indexed and an unindexed column, three
/// times each. Then, on the indexed column's sheet, another process moves
/// an order from `paid` to `shipped` 5 times a second for 10 s. It
/// measures the time from each commit to the first screen whose `shipped`
/// count holds it, and the share of its commits the writer made. Last, `.`
/// (issue 28): the time from the key to the chart's first bars, on an
/// indexed and an unindexed number column, then time column, three times
/// each.
///
/// For example:
///
/// ```swift
/// // Off the main thread, while the main thread runs its run loop:
/// let figures = try FrequencySheetBenchmark(directory: directory).run()
/// ```
///
/// - important: The other process writes to the files: benchmark files only.
package final class FrequencySheetBenchmark: Sendable {
    static let rows = 2_000_000
    static let commitsPerSecond = 5.0
    static let seconds = 10.0
    /// Both dialects: 40% paid, 30% shipped, 10% each of three others; a
    /// customer among 50,000, not indexed; an amount below 1,000, indexed.
    /// For the charts, two times over 93 days (ISO 8601 text on SQLite,
    /// `timestamp` on PostgreSQL): `placed_at` in order, indexed, and
    /// `paid_at` shuffled, not indexed.
    static let timeStart = 1_764_547_200
    static func status(_ i: String) -> String {
        "CASE WHEN \(i) % 10 < 4 THEN 'paid' WHEN \(i) % 10 < 7 THEN 'shipped' "
            + "WHEN \(i) % 10 = 7 THEN 'new' WHEN \(i) % 10 = 8 THEN 'refunded' ELSE 'cancelled' END"
    }

    private let directory: URL
    private let log: @Sendable (String) -> Void

    package init(directory: URL, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.directory = directory
        self.log = log
    }

    /// Runs the measurement. Call it off the main thread.
    package func run() throws -> FrequencySheetFigures {
        precondition(!Thread.isMainThread, "The app loop runs on the main queue")
        var databases = [try measureSQLite()]
        if let reason = PostgresServer.unavailableReason {
            log("frequency sheet on PostgreSQL skipped: \(reason)")
        } else {
            databases.append(try measurePostgres())
        }
        return FrequencySheetFigures(databases: databases)
    }

    private func measureSQLite() throws -> FrequencySheetFigures.Database {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("orders.sqlite").path
        log("frequency sheet: generating \(Self.rows.formatted()) orders in a SQLite file…")
        let writer = try SQLiteCommand(path: path)
        defer { writer.close() }
        _ = try writer.output("PRAGMA journal_mode=WAL;")
        try writer.run("""
            CREATE TABLE orders(
              id INTEGER PRIMARY KEY, status TEXT NOT NULL, customer INTEGER NOT NULL, amount REAL NOT NULL,
              placed_at TEXT NOT NULL, paid_at TEXT NOT NULL);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(Self.rows))
            INSERT INTO orders SELECT i, \(Self.status("i")), i * 7919 % 50000, i * 7727 % 100000 / 100.0,
              strftime('%Y-%m-%dT%H:%M:%SZ', \(Self.timeStart) + i * 4, 'unixepoch'),
              strftime('%Y-%m-%d %H:%M:%S', \(Self.timeStart) + i * 7919 % \(Self.rows) * 4, 'unixepoch') FROM n;
            CREATE INDEX orders_status ON orders(status);
            CREATE INDEX orders_amount ON orders(amount);
            CREATE INDEX orders_placed_at ON orders(placed_at);
            """, timeout: 600)
        let groupBy = try Self.median { _ = try writer.output(Self.groupBy, timeout: 60) }
        return try measure("SQLite (WAL)", try SQLiteDataSource.open(path: path), groupBy: groupBy) { try writer.run($0) }
    }

    private func measurePostgres() throws -> FrequencySheetFigures.Database {
        log("frequency sheet: starting a PostgreSQL server, generating \(Self.rows.formatted()) orders…")
        let server = try PostgresServer()
        defer { server.remove() }
        try server.createDatabase("bench")
        try server.psql("""
            CREATE TABLE orders(
              id bigint PRIMARY KEY, status text NOT NULL, customer integer NOT NULL, amount double precision NOT NULL,
              placed_at timestamp NOT NULL, paid_at timestamp NOT NULL);
            INSERT INTO orders SELECT i, \(Self.status("i")), (i * 7919 % 50000)::integer, i * 7727 % 100000 / 100.0,
              to_timestamp(\(Self.timeStart) + i * 4) AT TIME ZONE 'UTC',
              to_timestamp(\(Self.timeStart) + i * 7919 % \(Self.rows) * 4) AT TIME ZONE 'UTC'
            FROM generate_series(1::bigint, \(Self.rows)) i;
            CREATE INDEX orders_status ON orders(status);
            CREATE INDEX orders_amount ON orders(amount);
            CREATE INDEX orders_placed_at ON orders(placed_at);
            VACUUM (ANALYZE) orders;
            """, database: "bench", as: server.writer, timeout: 1800)
        let writer = try server.session(database: "bench", as: server.writer)
        defer { writer.close() }
        let dataSource = try PostgresDataSource(server.url(role: server.viewer, database: "bench", host: .tcp))
        let groupBy = try Self.median { _ = try writer.execute(Self.groupBy, timeout: 60) }
        return try measure("PostgreSQL", dataSource, groupBy: groupBy) { try writer.run($0) }
    }

    /// What the database takes for the indexed column's counts, through its
    /// own command line: the floor of the sheet's first counts.
    static let groupBy = "SELECT status, count(*) FROM orders GROUP BY status;"

    static func median(_ body: () throws -> Void) throws -> Double {
        var times: [Double] = []
        for _ in 0..<3 {
            let start = now()
            try body()
            times.append(now() - start)
        }
        return times.sorted()[1]
    }

    // MARK: - Measures

    /// `commit` runs SQL as another process, and returns when it was done,
    /// in `DispatchTime` nanoseconds.
    private func measure(
        _ name: String, _ dataSource: any ViewerDataSource, groupBy: Double, commit: (String) throws -> UInt64
    ) throws -> FrequencySheetFigures.Database {
        log(String(format: "frequency sheet, %@: its command line's GROUP BY on status takes %.3f s", name, groupBy))
        let screen = ViewerScreenRecorder(frameTimeout: 60, probe: Self.shippedCount)
        defer { screen.close() }
        _ = try screen.openTable("orders", of: dataSource, since: now())
        var firstCounts: [Double] = []
        var ordersShown = 0
        for column in ["customer", "status"] {
            // Back to the orders after each, but the last `#` stays open.
            firstCounts.append(try medianFirstRows(
                screen, key: "#", on: column, ordersShown: &ordersShown, leavesLastOpen: column == "status"))
            log(String(format: "frequency sheet, %@: first counts on %@ in %.3f s (median of 3)", name, column, firstCounts.last!))
        }
        let live = try commitLatencies(screen, commit: commit)
        log(String(format: "frequency sheet, %@: a commit on screen p50 %.3f s, max %.3f s; the writer kept %.0f%%",
                   name, live.p50, live.max, live.kept * 100))
        let charts = try chartFirstDraws(screen, name)
        return FrequencySheetFigures.Database(
            database: name, rows: Self.rows, group_by_s: groupBy, first_counts_unindexed_s: firstCounts[0],
            first_counts_indexed_s: firstCounts[1], commit_p50_s: live.p50, commit_max_s: live.max,
            commits: live.commits, writer_kept: live.kept,
            chart_first_draw_unindexed_s: charts[0], chart_first_draw_indexed_s: charts[1],
            time_chart_first_draw_indexed_s: charts[2], time_chart_first_draw_unindexed_s: charts[3])
    }

    /// From the frequency sheet back to the orders, `.` on the unindexed
    /// `customer`, the indexed `amount`, the indexed `placed_at` and the
    /// unindexed `paid_at`: the medians of three times from the key to the
    /// chart's first bars.
    private func chartFirstDraws(_ screen: ViewerScreenRecorder, _ name: String) throws -> [Double] {
        var ordersShown = screen.frameCount
        _ = try screen.latency(of: [.character("q")], stage: "q") { $0.target == .table("orders") }
        var medians: [Double] = []
        for column in ["customer", "amount", "placed_at", "paid_at"] {
            medians.append(try medianFirstRows(screen, key: ".", on: column, ordersShown: &ordersShown, leavesLastOpen: false))
            log(String(format: "chart sheet, %@: first draw on %@ in %.3f s (median of 3)", name, column, medians.last!))
        }
        return medians
    }

    /// The median of three times from `key` on the orders' `column` to its
    /// sheet's first rows, each after the orders' own count ended (it
    /// would share the machine); `q` back to the orders after each, but
    /// the last when `leavesLastOpen`.
    private func medianFirstRows(
        _ screen: ViewerScreenRecorder, key: Character, on column: String, ordersShown: inout Int, leavesLastOpen: Bool
    ) throws -> Double {
        try screen.moveCursor(to: column)
        var times: [Double] = []
        for _ in 0..<3 {
            _ = try screen.waitForFrame(after: ordersShown, stage: "the orders counted") {
                $0.target == .table("orders") && $0.exactCount != nil
            }
            Thread.sleep(forTimeInterval: 0.2)
            times.append(try screen.latency(of: [.character(key)], stage: "\(key) on \(column)") { frame in
                guard case .sheet = frame.target else { return false }
                return frame.hasRows
            })
            if times.count < 3 || !leavesLastOpen {
                ordersShown = screen.frameCount
                _ = try screen.latency(of: [.character("q")], stage: "q") { $0.target == .table("orders") }
            }
        }
        return times.sorted()[1]
    }

    /// The writer on its schedule, then each commit matched with the first
    /// screen whose `shipped` count holds it.
    private func commitLatencies(
        _ screen: ViewerScreenRecorder, commit: (String) throws -> UInt64
    ) throws -> (p50: Double, max: Double, commits: Int, kept: Double) {
        Thread.sleep(forTimeInterval: 1)
        let framesBefore = screen.frameCount
        guard let before = screen.probes(since: 0).last?.value else {
            throw ViewerScreenBenchmarkError("no shipped count on the frequency sheet")
        }
        var committed: [Double] = []
        let start = now()
        while now() - start < Self.seconds {
            // The k-th order with id % 10 == 0 is paid until then.
            let id = 10 * (committed.count + 1)
            committed.append(Double(try commit("UPDATE orders SET status = 'shipped' WHERE id = \(id);")) / 1e9)
            let wait = start + Double(committed.count) / Self.commitsPerSecond - now()
            if wait > 0 { Thread.sleep(forTimeInterval: wait) }
        }
        let asked = Self.seconds * Self.commitsPerSecond
        _ = try screen.waitForFrame(after: framesBefore, stage: "the last commit") {
            ($0.probed ?? 0) >= before + Int64(committed.count)
        }
        let probes = screen.probes(since: framesBefore)
        let latencies = committed.enumerated().map { index, time in
            let shown = probes.first { ($0.value ?? 0) >= before + Int64(index + 1) }?.time ?? .infinity
            return max(0, shown - time)
        }.sorted()
        return (latencies[latencies.count / 2], latencies.last ?? 0, committed.count, Double(committed.count) / asked)
    }

    /// The `shipped` count on a frequency sheet of `status`.
    @Sendable private static func shippedCount(_ state: ViewerState) -> Int64? {
        guard let rows = state.table?.window?.rows else { return nil }
        let row = rows.first { $0.count > 1 && $0[0] == "shipped".databaseValue }
        return row.flatMap { Int64.fromDatabaseValue($0[1]) }
    }
}

/// The figures of `FrequencySheetBenchmark`.
package struct FrequencySheetFigures: Codable, Equatable, Sendable {
    package struct Database: Codable, Equatable, Sendable {
        /// "SQLite (WAL)", "PostgreSQL".
        package var database: String
        package var rows: Int
        /// The database's own command line, for the indexed column.
        package var group_by_s: Double
        package var first_counts_unindexed_s: Double
        package var first_counts_indexed_s: Double
        /// From another process's commit to the screen of its counts.
        package var commit_p50_s: Double
        package var commit_max_s: Double
        package var commits: Int
        /// The share of its 5 commits a second the writer made.
        package var writer_kept: Double
        /// `.`: from the key to the chart's first bars.
        package var chart_first_draw_unindexed_s: Double
        package var chart_first_draw_indexed_s: Double
        /// `.` on a time column: rows per day.
        package var time_chart_first_draw_indexed_s: Double
        package var time_chart_first_draw_unindexed_s: Double
    }

    package var databases: [Database]

    package var targets: [BenchmarkTarget] {
        databases.flatMap { item in
            [
                BenchmarkTarget("\(item.database) #: first counts on an indexed column ≤ 0.5 s",
                                item.first_counts_indexed_s, " s", atMost: 0.5),
                BenchmarkTarget("\(item.database) #: first counts on an unindexed column ≤ 2.5 s",
                                item.first_counts_unindexed_s, " s", atMost: 2.5),
                // PostgreSQL paces a burst's reads to 4% of the time (issue 25):
                // its figure is printed, without a target.
                item.database.hasPrefix("SQLite") ? BenchmarkTarget(
                    "\(item.database) #: a commit's counts on screen within 1 s", item.commit_max_s, " s", atMost: 1) : nil,
                BenchmarkTarget("\(item.database) #: the writer keeps ≥ 85% of its commits",
                                item.writer_kept * 100, "%", atLeast: 85),
                BenchmarkTarget("\(item.database) .: a chart's first draw on an indexed column ≤ 1 s",
                                item.chart_first_draw_indexed_s, " s", atMost: 1),
                BenchmarkTarget("\(item.database) .: a chart's first draw on an unindexed column ≤ 3 s",
                                item.chart_first_draw_unindexed_s, " s", atMost: 3),
                BenchmarkTarget("\(item.database) .: a time chart's first draw on an indexed column ≤ 1 s",
                                item.time_chart_first_draw_indexed_s, " s", atMost: 1),
                BenchmarkTarget("\(item.database) .: a time chart's first draw on an unindexed column ≤ 3 s",
                                item.time_chart_first_draw_unindexed_s, " s", atMost: 3),
            ].compactMap { $0 }
        }
    }

    package var table: [String] {
        ["frequency sheet (#) and chart sheet (.) at 2,000,000 rows; a writer moving a row between groups 5 times a second"]
            + databases.map { item in
                String(format: "  %@: first counts %.3f s indexed (its command line's GROUP BY %.3f s), %.3f s unindexed; "
                       + "commit → screen p50 %.3f s, max %.3f s over %d commits; the writer kept %.0f%%",
                       item.database, item.first_counts_indexed_s, item.group_by_s, item.first_counts_unindexed_s,
                       item.commit_p50_s, item.commit_max_s, item.commits, item.writer_kept * 100)
                    + String(format: "; chart (.) first draw %.3f s indexed, %.3f s unindexed; "
                             + "time chart %.3f s indexed, %.3f s unindexed",
                             item.chart_first_draw_indexed_s, item.chart_first_draw_unindexed_s,
                             item.time_chart_first_draw_indexed_s, item.time_chart_first_draw_unindexed_s)
            }
    }
}
