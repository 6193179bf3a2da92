import Dispatch
import Foundation
import GRDB
import LiveTableCore
import SQLiteCommandLine

/// Measures the viewer's screen (`livetable view FILE item`) on the app's
/// own loop: `AppLoop` runs the real `ViewerProgram` on a file opened as
/// `livetable view` opens it, with the benchmarks' host, which draws
/// nothing. The other process is the `sqlite3` command, its connection kept
/// open, on the rollback-journal file of `ViewerBenchmark.makeTable`.
///
/// It measures, in order: the commits per second of the other process,
/// alone; the time from opening the file to the first screen with rows;
/// End and Home, from the key to the screen of the new window; the latency
/// from the other process's update of a visible row to the screen that
/// shows it; `]` on the indexed column `score` and on the unindexed
/// `name`, from the key to the screen of the sorted window, and the same
/// update latency while sorted by `name`; the other process's commits per
/// second while the viewer is open, and once it is closed; and the peak
/// memory.
///
/// For example:
///
/// ```swift
/// // On the main thread, which must run the main run loop meanwhile:
/// let benchmark = ViewerScreenBenchmark(path: "/tmp/items.sqlite")
/// DispatchQueue.global().async {
///     let figures = try benchmark.run()
///     print(figures.first_rows_ms)
/// }
/// RunLoop.main.run()
/// ```
///
/// `run()` must be called off the main thread, while the main thread runs
/// its run loop: the loop runs there.
///
/// - important: The other process writes to the file: use it on benchmark
///   tables only.
package final class ViewerScreenBenchmark: @unchecked Sendable {
    // @unchecked Sendable: the screen protects itself; the other
    // properties are constants.

    /// The table of `ViewerBenchmark.makeTable`.
    private static let table = "item"

    /// How much a run measures: the number of each kind of sample.
    package struct Samples: Sendable {
        /// The number of End and of Home presses.
        package var jumps = 10
        /// The number of updates of the other process.
        package var updates = 200
        /// The number of `]` presses on each column.
        package var sorts = 3
        /// The number of updates of the other process while sorted by the
        /// unindexed column (each one a scan).
        package var sortedUpdates = 10
        /// How long the writer writes, alone, then with the viewer open.
        package var writerSeconds: Double = 2

        /// The default samples of `livetable bench`.
        package init() {}
    }

    private let path: String
    private let samples: Samples
    private let frameTimeout: Double
    private let log: (String) -> Void

    /// The viewer's program on the benchmarks' host, and its screens.
    private let screen: ViewerScreenRecorder

    /// Creates a benchmark of the viewer on a table of
    /// `ViewerBenchmark.makeTable`.
    ///
    /// - parameter path: The database file.
    /// - parameter samples: How much the run measures.
    /// - parameter frameTimeout: How long to wait for an expected screen
    ///   before failing.
    /// - parameter log: Where to report progress.
    package init(
        path: String, samples: Samples = Samples(), frameTimeout: Double = 60,
        log: @escaping (String) -> Void = { _ in })
    {
        self.path = path
        self.samples = samples
        self.frameTimeout = frameTimeout
        self.log = log
        screen = ViewerScreenRecorder(frameTimeout: frameTimeout)
    }

    /// Runs the measurement. Call it off the main thread.
    ///
    /// - returns: The figures.
    package func run() throws -> ViewerScreenFigures {
        precondition(!Thread.isMainThread, "The app loop runs on the main queue")
        let other = try SQLiteCommand(path: path)
        defer { other.close() }
        let rows = try Int(other.output("SELECT MAX(rowid) FROM \(Self.table);")) ?? 0

        // The writer alone, before the viewer opens the file.
        let alone = try write(other, rows: rows)
        log(String(format: "viewer: writer alone, %.1f commits/s", alone.perSecond))

        // First rows: open the file and the table as `livetable view FILE
        // item` does, start the loop, draw.
        let start = now()
        // Through the data source's protocol, as the command does.
        let dataSource: any ViewerDataSource = try SQLiteDataSource.open(path: path)
        // On error too: the loop of a failed measurement stops.
        defer { screen.close() }
        let firstRows = try screen.openTable(Self.table, of: dataSource, since: start)
        log("viewer: first rows in \(milliseconds(firstRows)) ms")

        // End and Home: the key, then the screen of the window at that end.
        let (end, home) = try screen.jumpLatencies(count: samples.jumps)
        log("viewer: End \(milliseconds(end.p50 / 1000)) ms, Home \(milliseconds(home.p50 / 1000)) ms (p50)")

        // Updates of visible rows (the first rows, after Home), a few
        // milliseconds apart, as a script that writes one row at a time.
        var latencies: [Double] = []
        for index in 0..<samples.updates {
            Thread.sleep(forTimeInterval: Double(2 + index % 7) / 1000)
            let value = "live \(index)"
            latencies.append(try screen.latencyToScreen(of: value, stage: "update \(index)") {
                try other.run("UPDATE \(Self.table) SET note = '\(value)' WHERE rowid = \(2 + index % 10);")
            })
        }
        let update = LatencySummary(seconds: latencies)!
        log("viewer: another process's update on screen p50 \(milliseconds(update.p50 / 1000)) ms, "
            + "p99 \(milliseconds(update.p99 / 1000)) ms")

        // Sorting: `]` on the column under the cursor, from the natural
        // order, the selection on the first row; `]` again goes back.
        let sortIndexed = try sortLatency(column: "score")
        log("viewer: ] on an indexed column \(milliseconds(sortIndexed.p50 / 1000)) ms (p50)")
        let sortUnindexed = try sortLatency(column: "name")
        log("viewer: ] on an unindexed column \(milliseconds(sortUnindexed.p50 / 1000)) ms (p50)")
        let sortedUpdate = try sortedUpdateLatency(column: "name", other: other)
        log("viewer: another process's update on screen, sorted by an unindexed column, p50 "
            + "\(milliseconds(sortedUpdate.p50 / 1000)) ms, p99 \(milliseconds(sortedUpdate.p99 / 1000)) ms")
        let searchAndFilter = try searchAndFilter(rows: rows)

        // The writer again, the viewer open.
        let framesBeforeWriter = screen.frameCount
        screen.setErrorsAreFatal(false)
        let viewing = try write(other, rows: rows)
        let screens = screen.frameCount - framesBeforeWriter
        let errors = screen.setErrorsAreFatal(true)
        log(String(format: "viewer: writer with the viewer open, %.1f commits/s (%d screens, %d failed reads)",
                   viewing.perSecond, screens, errors))

        // The writer alone again, the viewer closed: the disk's pace
        // drifts, so the writer alone is the mean of before and after.
        screen.close()
        let aloneAfter = try write(other, rows: rows)
        log(String(format: "viewer: writer alone again, %.1f commits/s", aloneAfter.perSecond))

        return ViewerScreenFigures(
            rows: rows,
            first_rows_ms: firstRows * 1000,
            end_ms: end.p50,
            home_ms: home.p50,
            jumps: samples.jumps,
            update_p50_ms: update.p50,
            update_p99_ms: update.p99,
            update_samples: update.count,
            writer_commits_per_s: (alone.perSecond + aloneAfter.perSecond) / 2,
            writer_commits_per_s_viewing: viewing.perSecond,
            viewer_screens_while_writing: screens,
            peak_rss_mb: Double(ProcessMetrics.peakResidentBytes()) / 1_048_576,
            sort_indexed_ms: sortIndexed.p50,
            sort_unindexed_ms: sortUnindexed.p50,
            sort_samples: sortIndexed.count,
            update_sorted_unindexed_p50_ms: sortedUpdate.p50,
            update_sorted_unindexed_p99_ms: sortedUpdate.p99,
            update_sorted_unindexed_samples: sortedUpdate.count,
            search_ms: searchAndFilter.search * 1000,
            search_next_ms: searchAndFilter.next * 1000,
            filter_first_rows_ms: searchAndFilter.filterFirstRows * 1000,
            filter_count_ms: searchAndFilter.filterCount * 1000,
            filter_rows: searchAndFilter.filterRows)
    }

    // MARK: - Sorting

    /// Presses `]` with the cursor on `column`: the time from the key to
    /// the screen of the first window sorted by it, `samples.sorts` times;
    /// each time `]` again goes back to the natural order.
    private func sortLatency(column: String) throws -> LatencySummary {
        try screen.moveCursor(to: column)
        var seconds: [Double] = []
        for _ in 0..<max(1, samples.sorts) {
            seconds.append(try pressSortKey(until: column))
            _ = try pressSortKey(until: nil)
        }
        return LatencySummary(seconds: seconds)!
    }

    /// Presses `]`, and returns the time to the screen of the first window
    /// in the order of `column` (nil: the natural order).
    private func pressSortKey(until column: String?) throws -> Double {
        try screen.latency(of: [.character("]")], stage: "] to \(column ?? "the natural order")") { frame in
            frame.sortColumn == column && frame.hasRows
        }
    }

    /// Sorts by `column` (`]`, then Home), and measures the latency from
    /// the other process's update of a visible row to the screen that shows
    /// it, `samples.sortedUpdates` times; then goes back to the natural order.
    private func sortedUpdateLatency(column: String, other: SQLiteCommand) throws -> LatencySummary {
        try screen.moveCursor(to: column)
        _ = try pressSortKey(until: column)
        _ = try screen.latency(of: [.home], stage: "Home sorted by \(column)") { frame in
            frame.sortColumn == column && frame.anchor == .first && frame.hasRows
        }
        // The rowids of the visible rows (the table's first column, `id`).
        let ids = screen.state { state -> [String] in
            guard let table = state.table, let window = table.window else { return [] }
            return window.rows.dropFirst(table.scrollTop).prefix(10).compactMap { row in
                row.first.flatMap { Int64.fromDatabaseValue($0) }.map { "\($0)" }
            }
        } ?? []
        guard !ids.isEmpty else { throw ViewerScreenBenchmarkError("no visible row sorted by \(column)") }
        var latencies: [Double] = []
        for index in 0..<max(1, samples.sortedUpdates) {
            let value = "sorted \(index)"
            latencies.append(try screen.latencyToScreen(of: value, stage: "sorted update \(index)") {
                try other.run(
                    "UPDATE \(Self.table) SET note = '\(value)' WHERE rowid = \(ids[index % ids.count]);",
                    timeout: frameTimeout)
            })
        }
        _ = try pressSortKey(until: nil)
        return LatencySummary(seconds: latencies)!
    }

    /// Search and filter, by their keys: `/` to a match near the end of
    /// the table in the note column (no index), `n` (which wraps round the
    /// whole table to the same row), then `f` with a filter that scans,
    /// to its first rows and to its exact count; Esc clears it.
    private func searchAndFilter(rows: Int) throws
        -> (search: Double, next: Double, filterFirstRows: Double, filterCount: Double, filterRows: Int)
    {
        _ = try screen.latency(of: [.home], stage: "Home before the search") { $0.anchor == .first && $0.hasRows }
        // The column cursor on note; the text typed in capitals, as the
        // search ignores the case of ASCII letters.
        let target = "note \(max(1, rows - 5))"
        try screen.moveCursor(to: "note")
        screen.press([.character("/")] + target.uppercased().map { Key.character($0) })
        var framesBefore = screen.frameCount
        screen.setAwaited(target.databaseValue)
        var pressed = now()
        screen.press([.enter])
        let search = try screen.waitForFrame(after: framesBefore, stage: "search") { $0.showsAwaited && !$0.isSearching }.time
            - pressed
        screen.setAwaited(nil)
        framesBefore = screen.frameCount
        pressed = now()
        screen.press([.character("n")])
        let next = try screen.waitForFrame(after: framesBefore, stage: "n") {
            $0.status == "search wrapped" && !$0.isSearching
        }.time - pressed
        log("viewer: / to a far match \(milliseconds(search)) ms, n (round the table) \(milliseconds(next)) ms")

        let filter = "note LIKE '%77777%'"
        screen.press([.character("f")] + filter.map { Key.character($0) })
        framesBefore = screen.frameCount
        pressed = now()
        screen.press([.enter])
        let firstRows = try screen.waitForFrame(after: framesBefore, stage: "filter") { $0.filter == filter }
        let counted = try screen.waitForFrame(after: framesBefore, stage: "filter count") {
            $0.filter == filter && $0.exactCount != nil
        }
        log("viewer: f \(filter): first rows \(milliseconds(firstRows.time - pressed)) ms, exact count "
            + "\(counted.exactCount ?? 0) in \(milliseconds(counted.time - pressed)) ms"
            + (firstRows.filterScannedRows.map { " (each update scans \($0.formatted()) rows)" } ?? ""))
        framesBefore = screen.frameCount
        screen.press([.escape])
        _ = try screen.waitForFrame(after: framesBefore, stage: "filter cleared") {
            $0.filter == nil && $0.hasRows && $0.exactCount != nil
        }
        return (search, next, firstRows.time - pressed, counted.time - pressed, counted.exactCount ?? 0)
    }

    /// The other process updates rows, one transaction each, without pause,
    /// for `samples.writerSeconds`.
    private func write(_ other: SQLiteCommand, rows: Int) throws -> (commits: Int, perSecond: Double) {
        let batch = 20
        var commits = 0
        let start = now()
        var end = start
        while end - start < samples.writerSeconds {
            let statements = (commits..<commits + batch).map { index in
                "UPDATE \(Self.table) SET score = score + 1 WHERE rowid = \((index * 7919) % max(rows, 1) + 1);\n"
            }
            end = Double(try other.run(statements.joined(), timeout: frameTimeout)) / 1e9
            commits += batch
        }
        return (commits, Double(commits) / (end - start))
    }
}

/// An error of the viewer's benchmark, in one line.
package struct ViewerScreenBenchmarkError: Error, CustomStringConvertible {
    /// What went wrong.
    package var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Generates the tables of the viewer's benchmark, and measures the viewer
/// on each.
///
/// Each size is measured by `measure`, which the command line runs in a
/// child process, so that the peak memory of one measurement is not the
/// peak of another.
///
/// For example:
///
/// ```swift
/// let suite = ViewerScreenSuite(sizes: [2_000_000], directory: directory)
/// let figures = try suite.run { path in try measureInChildProcess(path) }
/// ```
package struct ViewerScreenSuite: Sendable {
    /// The numbers of rows of the tables.
    package var sizes: [Int]
    /// Where the tables are generated. It is removed at the end.
    package var directory: URL

    /// Creates a suite.
    package init(sizes: [Int], directory: URL) {
        self.sizes = sizes
        self.directory = directory
    }

    /// Generates each table (`ViewerBenchmark.makeTable`), measures the
    /// viewer on it, and removes it.
    ///
    /// - parameter log: Where to report progress.
    /// - parameter measure: Measures the viewer on a database file.
    /// - returns: The figures, one per size.
    package func run(
        log: (String) -> Void = { _ in },
        measure: (String) throws -> ViewerScreenFigures) throws -> [ViewerScreenFigures]
    {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try sizes.map { rows in
            let path = directory.appendingPathComponent("items-\(rows).sqlite").path
            defer {
                for suffix in ["", "-journal", "-wal", "-shm"] {
                    try? FileManager.default.removeItem(atPath: path + suffix)
                }
            }
            let start = Date()
            log("generating a table of \(rows.formatted()) rows for the viewer…")
            try ViewerBenchmark.makeTable(atPath: path, rows: rows)
            log(String(format: "generated in %.1f s", Date().timeIntervalSince(start)))
            return try measure(path)
        }
    }
}
