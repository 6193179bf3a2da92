import Foundation

/// What one measurement of the viewer's screen found, on one table.
package struct ViewerScreenFigures: Codable, Equatable, Sendable {
    /// The number of rows of the table.
    package var rows: Int
    /// From opening the file to the first drawn screen that shows rows.
    package var first_rows_ms: Double
    /// From the End key to the drawn screen of the last rows, median.
    package var end_ms: Double
    /// From the Home key to the drawn screen of the first rows, median.
    package var home_ms: Double
    /// The number of End and of Home presses.
    package var jumps: Int
    /// From another process's commit of an update of a visible row to the
    /// drawn screen that shows it, median.
    package var update_p50_ms: Double
    /// The same latency, 99th percentile.
    package var update_p99_ms: Double
    /// The number of updates measured.
    package var update_samples: Int
    /// Commits per second of another process that updates rows one
    /// transaction at a time, while no viewer is open: the mean of a run
    /// before the viewer opens and one after it closes.
    package var writer_commits_per_s: Double
    /// The same writer's commits per second while the viewer is open.
    package var writer_commits_per_s_viewing: Double
    /// The screens the viewer drew while that writer wrote.
    package var viewer_screens_while_writing: Int
    /// The peak resident memory of the viewer's process.
    package var peak_rss_mb: Double
    /// From `]` on a column with an index (from the natural order, the
    /// selection kept) to the drawn screen of the sorted window, median.
    package var sort_indexed_ms: Double
    /// The same, on a column without an index: a scan of the table.
    package var sort_unindexed_ms: Double
    /// The number of `]` presses on each column.
    package var sort_samples: Int
    /// From another process's commit of an update of a visible row to the
    /// drawn screen that shows it, while sorted by a column without an
    /// index (each update scans the table), median.
    package var update_sorted_unindexed_p50_ms: Double
    /// The same latency, 99th percentile.
    package var update_sorted_unindexed_p99_ms: Double
    /// The number of those updates measured.
    package var update_sorted_unindexed_samples: Int
    /// From Enter in the search prompt (`/`) to the drawn screen of a
    /// match near the end of the table, in the unindexed note column.
    package var search_ms: Double
    /// From `n` to the drawn screen that says the search wrapped: the next
    /// match is the same row, after a walk of the whole table.
    package var search_next_ms: Double
    /// From Enter in the filter prompt (`f`) to the drawn screen of the
    /// first rows of a filter that scans (`note LIKE '%77777%'`).
    package var filter_first_rows_ms: Double
    /// From the same Enter to the drawn screen of the filter's exact count.
    package var filter_count_ms: Double
    /// The number of rows that the filter keeps.
    package var filter_rows: Int
    /// `livetable view FILE item --format csv` beside `sqlite3 -csv`, nil
    /// when not measured (see `ExportBenchmark`).
    package var export: ExportBenchmark.Figures?

    /// Creates figures.
    ///
    /// For example:
    ///
    /// ```swift
    /// let figures = ViewerScreenFigures(
    ///     rows: 2_000_000, first_rows_ms: 12, end_ms: 1.5, home_ms: 1.2, jumps: 10,
    ///     update_p50_ms: 1.1, update_p99_ms: 3, update_samples: 200,
    ///     writer_commits_per_s: 110, writer_commits_per_s_viewing: 100,
    ///     viewer_screens_while_writing: 180, peak_rss_mb: 30,
    ///     sort_indexed_ms: 2, sort_unindexed_ms: 900, sort_samples: 3,
    ///     update_sorted_unindexed_p50_ms: 900, update_sorted_unindexed_p99_ms: 950,
    ///     update_sorted_unindexed_samples: 10)
    /// ```
    package init(
        rows: Int, first_rows_ms: Double, end_ms: Double, home_ms: Double, jumps: Int,
        update_p50_ms: Double, update_p99_ms: Double, update_samples: Int,
        writer_commits_per_s: Double, writer_commits_per_s_viewing: Double,
        viewer_screens_while_writing: Int, peak_rss_mb: Double,
        sort_indexed_ms: Double, sort_unindexed_ms: Double, sort_samples: Int,
        update_sorted_unindexed_p50_ms: Double, update_sorted_unindexed_p99_ms: Double,
        update_sorted_unindexed_samples: Int,

        search_ms: Double = 0, search_next_ms: Double = 0, filter_first_rows_ms: Double = 0,
        filter_count_ms: Double = 0, filter_rows: Int = 0)
    {
        self.rows = rows
        self.first_rows_ms = first_rows_ms
        self.end_ms = end_ms
        self.home_ms = home_ms
        self.jumps = jumps
        self.update_p50_ms = update_p50_ms
        self.update_p99_ms = update_p99_ms
        self.update_samples = update_samples
        self.writer_commits_per_s = writer_commits_per_s
        self.writer_commits_per_s_viewing = writer_commits_per_s_viewing
        self.viewer_screens_while_writing = viewer_screens_while_writing
        self.peak_rss_mb = peak_rss_mb
        self.sort_indexed_ms = sort_indexed_ms
        self.sort_unindexed_ms = sort_unindexed_ms
        self.sort_samples = sort_samples
        self.update_sorted_unindexed_p50_ms = update_sorted_unindexed_p50_ms
        self.update_sorted_unindexed_p99_ms = update_sorted_unindexed_p99_ms
        self.update_sorted_unindexed_samples = update_sorted_unindexed_samples
        self.search_ms = search_ms
        self.search_next_ms = search_next_ms
        self.filter_first_rows_ms = filter_first_rows_ms
        self.filter_count_ms = filter_count_ms
        self.filter_rows = filter_rows
    }

    /// The share of its commits per second that the writer keeps while the
    /// viewer is open.
    package var writerShareViewing: Double {
        writer_commits_per_s > 0 ? writer_commits_per_s_viewing / writer_commits_per_s : 0
    }

    /// The viewer's targets that these figures can check: at 2,000,000
    /// rows, first rows ≤ 100 ms, End and Home ≤ 20 ms, another process's
    /// update on screen p50 ≤ 5 ms; at 10,000,000 rows, peak memory ≤ 64
    /// MB; at every size, a writer keeps at least half its commits per
    /// second while the viewer is open.
    package var targets: [BenchmarkTarget] {
        let size = rows.formatted()
        var targets: [BenchmarkTarget] = []
        if rows == 2_000_000 {
            targets += [
                BenchmarkTarget(
                    "viewer: first rows on screen ≤ 100 ms at \(size) rows", first_rows_ms, " ms", atMost: 100),
                BenchmarkTarget("viewer: End ≤ 20 ms at \(size) rows (p50)", end_ms, " ms", atMost: 20),
                BenchmarkTarget("viewer: Home ≤ 20 ms at \(size) rows (p50)", home_ms, " ms", atMost: 20),
                BenchmarkTarget(
                    "viewer: another process's update on screen p50 ≤ 5 ms at \(size) rows",
                    update_p50_ms, " ms", atMost: 5),
            ]
        }
        if rows == 10_000_000 {
            targets.append(BenchmarkTarget("viewer: peak RSS ≤ 64 MB at \(size) rows", peak_rss_mb, " MB", atMost: 64))
        }
        if let export {
            targets.append(BenchmarkTarget(
                name: "export: livetable --format csv no slower than sqlite3 -csv at \(size) rows",
                measured: String(format: "%.2f s (sqlite3 %.2f s)", export.livetable_csv_s, export.sqlite3_csv_s),
                met: export.livetable_csv_s <= export.sqlite3_csv_s))
        }
        targets.append(BenchmarkTarget(
            name: "viewer: a writer keeps ≥ 50% of its commits/s with the viewer open at \(size) rows",
            measured: String(format: "%.0f%% (%.1f of %.1f commits/s)",
                             writerShareViewing * 100, writer_commits_per_s_viewing, writer_commits_per_s),
            met: writerShareViewing >= 0.5))
        return targets
    }

    /// The figures as lines of a table, with a title and a header.
    ///
    /// For example:
    ///
    /// ```swift
    /// print(ViewerScreenFigures.table([figures]).joined(separator: "\n"))
    /// ```
    package static func table(_ figures: [ViewerScreenFigures]) -> [String] {
        func pad(_ text: String, _ width: Int) -> String {
            String(repeating: " ", count: max(0, width - text.count)) + text
        }
        let widths = [12, 15, 8, 8, 12, 12, 8, 13, 15, 12]
        let header = ["rows", "first rows ms", "End ms", "Home ms", "update p50", "update p99", "samples",
                      "writer/s", "writer/s view", "peak RSS MB"]
        var lines = ["the viewer (livetable view) on a generated table; updates and writer: sqlite3"]
        lines.append(zip(header, widths).map { pad($0, $1) }.joined())
        for figure in figures {
            let cells = [
                figure.rows.formatted(), String(format: "%.1f", figure.first_rows_ms),
                String(format: "%.2f", figure.end_ms), String(format: "%.2f", figure.home_ms),
                String(format: "%.2f", figure.update_p50_ms), String(format: "%.2f", figure.update_p99_ms),
                "\(figure.update_samples)", String(format: "%.1f", figure.writer_commits_per_s),
                String(format: "%.1f", figure.writer_commits_per_s_viewing), String(format: "%.1f", figure.peak_rss_mb),
            ]
            lines.append(zip(cells, widths).map { pad($0, $1) }.joined())
        }
        let sortWidths = [12, 16, 18, 24, 24, 8]
        let sortHeader = ["rows", "] indexed ms", "] unindexed ms", "update p50 unindexed", "update p99 unindexed",
                          "samples"]
        lines.append("sorting with ] (an indexed column, an unindexed one), and updates while sorted by the unindexed one")
        lines.append(zip(sortHeader, sortWidths).map { pad($0, $1) }.joined())
        for figure in figures {
            let cells = [
                figure.rows.formatted(), String(format: "%.2f", figure.sort_indexed_ms),
                String(format: "%.1f", figure.sort_unindexed_ms),
                String(format: "%.1f", figure.update_sorted_unindexed_p50_ms),
                String(format: "%.1f", figure.update_sorted_unindexed_p99_ms),
                "\(figure.update_sorted_unindexed_samples)",
            ]
            lines.append(zip(cells, sortWidths).map { pad($0, $1) }.joined())
        }
        let searchWidths = [12, 12, 10, 18, 16, 14]
        lines.append("the viewer's search (/, n) in the unindexed note column, and filter (f) note LIKE '%77777%'")
        lines.append(zip(["rows", "/ far ms", "n ms", "f first rows ms", "f count ms", "f rows"], searchWidths)
            .map { pad($0, $1) }.joined())
        for figure in figures {
            let cells = [
                figure.rows.formatted(), String(format: "%.1f", figure.search_ms),
                String(format: "%.1f", figure.search_next_ms), String(format: "%.1f", figure.filter_first_rows_ms),
                String(format: "%.1f", figure.filter_count_ms), figure.filter_rows.formatted(),
            ]
            lines.append(zip(cells, searchWidths).map { pad($0, $1) }.joined())
        }
        let exports = figures.compactMap { figure in figure.export.map { (figure.rows, $0) } }
        if !exports.isEmpty {
            let exportWidths = [12, 22, 18, 22]
            lines.append("the export, livetable view FILE item --format csv beside sqlite3 -csv, to /dev/null")
            lines.append(zip(["rows", "livetable csv s", "sqlite3 csv s", "livetable peak RSS MB"], exportWidths)
                .map { pad($0, $1) }.joined())
            for (rows, export) in exports {
                let cells = [
                    rows.formatted(), String(format: "%.2f", export.livetable_csv_s),
                    String(format: "%.2f", export.sqlite3_csv_s), String(format: "%.1f", export.livetable_peak_rss_mb),
                ]
                lines.append(zip(cells, exportWidths).map { pad($0, $1) }.joined())
            }
        }
        return lines
    }
}
