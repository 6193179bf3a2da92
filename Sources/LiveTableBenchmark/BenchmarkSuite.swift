import Foundation
import GRDB
import LiveTableCore

/// The figures of both modes on one database size.
package struct BenchmarkSizeReport: Codable, Equatable, Sendable {
    /// The number of players.
    package var rows: Int
    /// The app's path.
    package var pipeline: BenchmarkFigures
    /// The demo apps' observation, nil when skipped.
    package var naive: BenchmarkFigures?
}

/// A performance target of the app, and whether a run met it.
package struct BenchmarkTarget: Codable, Equatable, Sendable {
    /// What is measured, and the limit: "pipeline p99 ≤ 5 ms at 1,000,000 rows".
    package var name: String
    /// The measured figure.
    package var measured: String
    /// Whether the figure is within the limit.
    package var met: Bool
}

extension BenchmarkTarget {
    /// A target met when `value` is at most `limit`, its figure written
    /// with two decimals and `unit` ("12.34 ms"): how most targets read.
    ///
    /// For example:
    ///
    /// ```swift
    /// let target = BenchmarkTarget("End ≤ 30 ms (p50)", 12.345, " ms", atMost: 30)
    /// // target.measured == "12.35 ms", target.met == true
    /// ```
    ///
    /// - parameter unit: written right after the figure: " ms", "x".
    package init(_ name: String, _ value: Double, _ unit: String, atMost limit: Double) {
        self.init(name: name, measured: Self.figure(value, unit), met: value <= limit)
    }

    /// A target met when `value` is at least `limit`, its figure written
    /// with two decimals and `unit` ("123.45x").
    ///
    /// For example:
    ///
    /// ```swift
    /// let target = BenchmarkTarget("≥ 100x faster than naive", 123.456, "x", atLeast: 100)
    /// // target.measured == "123.46x", target.met == true
    /// ```
    ///
    /// - parameter unit: written right after the figure: " ms", "x".
    package init(_ name: String, _ value: Double, _ unit: String, atLeast limit: Double) {
        self.init(name: name, measured: Self.figure(value, unit), met: value >= limit)
    }

    private static func figure(_ value: Double, _ unit: String) -> String {
        String(format: "%.2f", value) + unit
    }
}

/// The result of `livetable bench`.
package struct BenchmarkReport: Codable, Equatable, Sendable {
    /// One entry per database size.
    package var sizes: [BenchmarkSizeReport]
    /// The highest peak resident memory of the app's path, over all sizes.
    package var peak_rss_mb: Double
    /// The targets that the measured sizes can check.
    package var targets: [BenchmarkTarget]
    /// How fast the commits of another process reach the app, per journal
    /// mode (see `OtherProcessBenchmark`), nil when not measured.
    package var other_processes: [OtherProcessFigures]?
    /// The async form of an observation of other processes' commits beside
    /// its publisher, per journal mode (see `AsyncValuesBenchmark`), nil
    /// when not measured.
    package var async_values: [AsyncValuesFigures]?
    /// How fast the writes of another machine (behind a FUSE mount) reach
    /// the subscriber and the viewer's screen, and what polling costs (see
    /// `RemoteFileBenchmark`), nil when not measured.
    package var remote_files: RemoteFileFigures?
    /// A rollback-journal writer committing back to back, watched (see
    /// `RollbackJournalBenchmark`), nil when not measured.
    package var rollback_journal: RollbackJournalFigures?
    /// The viewer's screen on generated tables, one entry per size (see
    /// `ViewerScreenBenchmark`), nil when not measured.
    package var viewer: [ViewerScreenFigures]?
    /// The viewer on a table of a local PostgreSQL server (see
    /// `PostgresBenchmark`), nil when not measured.
    package var postgres: PostgresFigures?
    /// The viewer of a busy file (see `ViewerBusyFileBenchmark`), nil when
    /// not measured.
    package var viewer_busy_file: ViewerBusyFileFigures?
    /// Many subscriptions to other processes' commits on one database (see
    /// `ScaleBenchmark`), nil when not measured.
    package var scale: ScaleFigures?
    /// The frequency sheet (`#`) at 2,000,000 rows (see
    /// `FrequencySheetBenchmark`), nil when not measured.
    package var sheets: FrequencySheetFigures?

    /// Creates a report, and checks the targets against its figures.
    ///
    /// For example:
    ///
    /// ```swift
    /// let report = BenchmarkReport(sizes: sizes)
    /// let allMet = report.targets.allSatisfy(\.met)
    /// ```
    package init(sizes: [BenchmarkSizeReport]) {
        self.sizes = sizes
        self.peak_rss_mb = sizes.map(\.pipeline.peak_rss_mb).max() ?? 0
        self.targets = Self.targets(sizes)
    }

    /// The app's performance targets, for the sizes that were measured.
    private static func targets(_ sizes: [BenchmarkSizeReport]) -> [BenchmarkTarget] {
        var targets: [BenchmarkTarget] = []
        if let size = sizes.first(where: { $0.rows == 1_000_000 }) {
            targets.append(BenchmarkTarget(
                "pipeline p99 ≤ 5 ms at 1,000,000 rows", size.pipeline.p99_ms, " ms", atMost: 5))
            targets.append(BenchmarkTarget(
                "first frame ≤ 200 ms at 1,000,000 rows", size.pipeline.first_frame_ms, " ms", atMost: 200))
        }
        if let size = sizes.first(where: { $0.rows == 100_000 }), let naive = size.naive {
            targets.append(BenchmarkTarget(
                "pipeline ≥ 100x faster than naive at p50 at 100,000 rows",
                naive.p50_ms / size.pipeline.p50_ms, "x", atLeast: 100))
        }
        if let size = sizes.first(where: { $0.rows == 10_000_000 }) {
            targets.append(BenchmarkTarget(
                "peak RSS ≤ 64 MB at 10,000,000 rows", size.pipeline.peak_rss_mb, " MB", atMost: 64))
        }
        // An observation that polls would burn CPU every second; a few
        // milliseconds are the run loop's own wake-ups.
        guard !sizes.isEmpty else { return targets }
        let idle = sizes.map(\.pipeline.idle_cpu_ms).max() ?? 0
        targets.append(BenchmarkTarget(
            "no CPU while nothing changes (≤ 5 ms in 1 s idle, every size)", idle, " ms", atMost: 5))
        return targets
    }

    /// The report as a table, then the naive/pipeline ratios.
    ///
    /// For example:
    ///
    /// ```swift
    /// print(report.table)
    /// ```
    package var table: String {
        func format(_ value: Double?, _ decimals: Int = 2) -> String {
            guard let value else { return "—" }
            return String(format: "%.\(decimals)f", value)
        }
        func pad(_ text: String, _ width: Int) -> String {
            String(repeating: " ", count: max(0, width - text.count)) + text
        }
        var lines: [String] = []
        // None with `--only viewer`, for example.
        if !sizes.isEmpty {
            let header = ["rows", "mode", "p50 ms", "p99 ms", "samples", "updates/s", "first frame ms",
                          "navigation ms", "idle CPU ms", "peak RSS MB"]
            let widths = [12, 9, 10, 10, 8, 10, 15, 14, 12, 12]
            lines.append(zip(header, widths).map { pad($0, $1) }.joined())
            for size in sizes {
                for (mode, figures) in [("pipeline", size.pipeline), ("naive", size.naive)] {
                    let cells: [String]
                    if let figures {
                        cells = [
                            size.rows.formatted(), mode, format(figures.p50_ms), format(figures.p99_ms),
                            "\(figures.samples)", format(figures.updates_per_s, 1), format(figures.first_frame_ms, 1),
                            format(figures.navigation_p50_ms), format(figures.idle_cpu_ms, 1),
                            format(figures.peak_rss_mb, 1),
                        ]
                    } else {
                        cells = [size.rows.formatted(), mode, "skipped"] + Array(repeating: "", count: 7)
                    }
                    lines.append(zip(cells, widths).map { pad($0, $1) }.joined())
                }
            }
            lines.append("")
            lines.append("naive / pipeline")
            lines.append(["rows", "p50", "p99", "updates/s", "first frame"].map { pad($0, 12) }.joined())
            for size in sizes {
                guard let naive = size.naive else { continue }
                let pipeline = size.pipeline
                let ratios = [
                    naive.p50_ms / pipeline.p50_ms,
                    naive.p99_ms / pipeline.p99_ms,
                    pipeline.updates_per_s / naive.updates_per_s,
                    naive.first_frame_ms / pipeline.first_frame_ms,
                ]
                lines.append(([size.rows.formatted()] + ratios.map { format($0, 1) + "x" }).map { pad($0, 12) }.joined())
            }
            lines.append("")
            lines.append("peak RSS of the app's path: \(format(peak_rss_mb, 1)) MB")
        }
        if let other_processes {
            lines.append("")
            lines += OtherProcessFigures.table(other_processes)
        }
        if let async_values {
            lines.append("")
            lines += AsyncValuesFigures.table(async_values)
        }
        if let remote_files {
            lines.append("")
            lines += remote_files.table
        }
        if let rollback_journal {
            lines.append("")
            lines += RollbackJournalFigures.table(rollback_journal)
        }
        if let viewer {
            lines.append("")
            lines += ViewerScreenFigures.table(viewer)
        }
        if let scale {
            lines.append("")
            lines += scale.table
        }
        if let postgres {
            lines.append("")
            lines += PostgresFigures.table([postgres])
        }
        if let viewer_busy_file {
            lines.append("")
            lines += viewer_busy_file.table
        }
        if let sheets {
            lines.append("")
            lines += sheets.table
        }
        lines.append("")
        lines.append("targets")
        for target in targets {
            lines.append("  \(target.met ? "met    " : "MISSED ") \(target.name): \(target.measured)")
        }
        while lines.first == "" {
            lines.removeFirst()
        }
        return lines.joined(separator: "\n")
    }
}

/// Generates benchmark databases and measures both modes on each.
///
/// Each mode is measured by `measure`, which the command line runs in a
/// child process, so that the peak memory of one measurement is not the
/// peak of another.
///
/// For example:
///
/// ```swift
/// let suite = BenchmarkSuite(sizes: [1000, 100_000])
/// let report = try suite.run { mode, path in try measureInChildProcess(mode, path) }
/// print(report.table)
/// ```
package struct BenchmarkSuite: Sendable {
    /// The numbers of players to measure.
    package var sizes: [Int]
    /// Above this many players, the naive observation is skipped: it would
    /// hold every player in memory and take minutes per write.
    package var naiveMaxRows: Int
    /// Where databases are generated.
    package var directory: URL

    /// Creates a suite.
    package init(sizes: [Int], naiveMaxRows: Int = 1_000_000, directory: URL? = nil) {
        self.sizes = sizes
        self.naiveMaxRows = naiveMaxRows
        self.directory = directory ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("livetable-bench-\(ProcessInfo.processInfo.processIdentifier)")
    }

    /// Generates each database, measures both modes, and removes the
    /// databases.
    ///
    /// - parameter log: Where to report progress.
    /// - parameter measure: Measures a mode on a database file.
    /// - returns: The report.
    package func run(
        log: (String) -> Void = { _ in },
        measure: (BenchmarkMode, String) throws -> BenchmarkFigures) throws -> BenchmarkReport
    {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var sizes: [BenchmarkSizeReport] = []
        for rows in self.sizes {
            let path = directory.appendingPathComponent("players-\(rows).sqlite").path
            let start = Date()
            log("generating \(rows.formatted()) players…")
            try Self.generateDatabase(at: path, rows: rows)
            log(String(format: "generated in %.1f s", Date().timeIntervalSince(start)))
            let pipeline = try measure(.pipeline, path)
            let naive = rows <= naiveMaxRows ? try measure(.naive, path) : nil
            if naive == nil {
                log("naive skipped at \(rows.formatted()) players (above \(naiveMaxRows.formatted()))")
            }
            sizes.append(BenchmarkSizeReport(rows: rows, pipeline: pipeline, naive: naive))
            for suffix in ["", "-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: path + suffix)
            }
        }
        return BenchmarkReport(sizes: sizes)
    }

    /// Creates a livetable database of `rows` random players.
    ///
    /// - parameter path: A path where no file exists.
    /// - parameter rows: The number of players.
    package static func generateDatabase(at path: String, rows: Int) throws {
        let appDatabase = try AppDatabase.open(path: path, seed: UInt64(rows))
        let writer = appDatabase.writer
        // A large page cache for the bulk insert only: the two indexes are
        // written in random order.
        try writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA cache_size = -262144")
        }
        let chunk = 500_000
        var inserted = 0
        while inserted < rows {
            let count = min(chunk, rows - inserted)
            try writer.write { db in try appDatabase.insertRandomPlayers(db, count: count) }
            inserted += count
        }
        try writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA cache_size = -2000")
            try db.checkpoint(.truncate)
        }
        try appDatabase.close()
    }
}
