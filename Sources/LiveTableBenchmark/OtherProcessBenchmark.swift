import Dispatch
import Foundation
import GRDB
import LiveTableCore
import OpenCombine
import ReactiveGRDB
import SQLiteCommandLine

/// The figures of one journal mode: how fast the commits of another
/// process reach the app's Hall of Fame observation.
package struct OtherProcessFigures: Codable, Equatable, Sendable {
    /// The journal mode of the file: "wal" or "delete".
    package var journal_mode: String
    /// The number of players in the database.
    package var rows: Int
    /// The median latency from the other process's commit to the value
    /// that holds it, at the subscriber.
    package var p50_ms: Double
    /// The 99th percentile of the same latency.
    package var p99_ms: Double
    /// The number of commits measured.
    package var samples: Int
    /// The CPU used in one second while nothing is written, with the watch
    /// running.
    package var idle_cpu_ms: Double
    /// The number of commits of the burst, one transaction each.
    package var burst_commits: Int
    /// The values the subscriber received during the burst: fewer than the
    /// commits, since fetches are coalesced.
    package var burst_values: Int
    /// The time from the burst's last commit to the value that holds it.
    package var burst_final_ms: Double

    /// Creates figures.
    ///
    /// For example:
    ///
    /// ```swift
    /// let figures = OtherProcessFigures(
    ///     journal_mode: "wal", rows: 100_000, p50_ms: 0.8, p99_ms: 2.1, samples: 300,
    ///     idle_cpu_ms: 0.1, burst_commits: 10_000, burst_values: 420, burst_final_ms: 1.2)
    /// ```
    package init(
        journal_mode: String, rows: Int, p50_ms: Double, p99_ms: Double, samples: Int,
        idle_cpu_ms: Double, burst_commits: Int, burst_values: Int, burst_final_ms: Double)
    {
        self.journal_mode = journal_mode
        self.rows = rows
        self.p50_ms = p50_ms
        self.p99_ms = p99_ms
        self.samples = samples
        self.idle_cpu_ms = idle_cpu_ms
        self.burst_commits = burst_commits
        self.burst_values = burst_values
        self.burst_final_ms = burst_final_ms
    }

    /// The targets of these figures: p50 ≤ 2 ms, p99 ≤ 10 ms, no CPU while
    /// nothing is written, and the burst ends with its last commit.
    package var targets: [BenchmarkTarget] {
        let mode = journal_mode.uppercased()
        return [
            BenchmarkTarget("another process's commit p50 ≤ 2 ms (\(mode))", p50_ms, " ms", atMost: 2),
            BenchmarkTarget("another process's commit p99 ≤ 10 ms (\(mode))", p99_ms, " ms", atMost: 10),
            BenchmarkTarget(
                "no CPU while no process writes (≤ 5 ms in 1 s idle, \(mode))", idle_cpu_ms, " ms", atMost: 5),
            BenchmarkTarget(
                name: "a burst of \(burst_commits.formatted()) commits ends with the last one, coalesced (\(mode))",
                measured: "\(burst_values) values, last after " + String(format: "%.2f ms", burst_final_ms),
                met: burst_values < burst_commits && burst_final_ms <= 1000),
        ]
    }

    /// The figures as lines of a table, with a header.
    ///
    /// For example:
    ///
    /// ```swift
    /// print(OtherProcessFigures.table([figures]))
    /// ```
    package static func table(_ figures: [OtherProcessFigures]) -> [String] {
        func pad(_ text: String, _ width: Int) -> String {
            String(repeating: " ", count: max(0, width - text.count)) + text
        }
        let widths = [12, 9, 10, 10, 8, 12, 8, 8, 10]
        let header = ["rows", "journal", "p50 ms", "p99 ms", "samples", "idle CPU ms", "burst", "values", "last ms"]
        var lines = ["commits of another process (sqlite3) → subscriber"]
        lines.append(zip(header, widths).map { pad($0, $1) }.joined())
        for figure in figures {
            let cells = [
                figure.rows.formatted(), figure.journal_mode,
                String(format: "%.2f", figure.p50_ms), String(format: "%.2f", figure.p99_ms),
                "\(figure.samples)", String(format: "%.1f", figure.idle_cpu_ms),
                figure.burst_commits.formatted(), "\(figure.burst_values)", String(format: "%.2f", figure.burst_final_ms),
            ]
            lines.append(zip(cells, widths).map { pad($0, $1) }.joined())
        }
        return lines
    }
}

/// Measures how fast the commits of another process reach the app's Hall of
/// Fame observation, in WAL and in rollback-journal (DELETE) mode.
///
/// The other process is the `sqlite3` command, which keeps its connection
/// open and inserts one player per statement, each its own transaction.
/// The app's side is the app's own: `observeExternalChanges()` and
/// `observeHallOfFame(_:scheduling:)`, delivering on a queue of its own
/// instead of the main queue. A WAL database is opened as the app opens it
/// (a `DatabasePool`); a DELETE one with a `DatabaseQueue`, since a pool
/// would turn it to WAL.
///
/// For example:
///
/// ```swift
/// let figures = try OtherProcessBenchmark(directory: directory).run()
/// ```
package struct OtherProcessBenchmark: Sendable {
    /// Where the databases are generated. It is removed at the end.
    package var directory: URL
    /// The number of players.
    package var rows: Int
    /// The number of commits whose latency is measured, per journal mode.
    package var samples: Int
    /// The number of commits of the burst.
    package var burstCommits: Int

    /// Creates a benchmark.
    package init(directory: URL, rows: Int = 100_000, samples: Int = 300, burstCommits: Int = 10_000) {
        self.directory = directory
        self.rows = rows
        self.samples = samples
        self.burstCommits = burstCommits
    }

    /// Measures both journal modes.
    ///
    /// - parameter log: Where to report progress.
    /// - throws: An error if the `sqlite3` command can not run, or a
    ///   commit does not reach the subscriber within 5 seconds.
    package func run(log: (String) -> Void = { _ in }) throws -> [OtherProcessFigures] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let template = directory.appendingPathComponent("other-processes-template.sqlite").path
        log("generating \(rows.formatted()) players for the other-process commits…")
        try BenchmarkSuite.generateDatabase(at: template, rows: rows)
        return try ["wal", "delete"].map { journalMode in
            let path = directory.appendingPathComponent("other-processes-\(journalMode).sqlite").path
            try FileManager.default.copyItem(atPath: template, toPath: path)
            defer {
                for suffix in ["", "-wal", "-shm", "-journal"] {
                    try? FileManager.default.removeItem(atPath: path + suffix)
                }
            }
            log("measuring the commits of another process (\(journalMode))…")
            return try measure(path: path, journalMode: journalMode)
        }
    }

    private func measure(path: String, journalMode: String) throws -> OtherProcessFigures {
        let other = try SQLiteCommand(path: path)
        defer { other.close() }
        _ = try other.run("PRAGMA journal_mode = \(journalMode);")

        let appDatabase: AppDatabase
        if journalMode == "wal" {
            appDatabase = try AppDatabase.open(path: path)
        } else {
            appDatabase = try AppDatabase(DatabaseQueue(path: path))
        }
        defer { try? appDatabase.close() }
        let externalChanges = appDatabase.observeExternalChanges()
        defer { externalChanges.cancel() }

        // The subscriber records when each player count arrives.
        let arrivals = Arrivals()
        let queue = DispatchQueue(label: "livetable.bench.otherProcesses")
        let request = WindowRequest(ordering: .byScore, anchor: .first, before: 0, after: 30)
        let cancellable = appDatabase
            .observeHallOfFame(request, scheduling: .async(onQueue: queue))
            .sink(receiveCompletion: { _ in }, receiveValue: { arrivals.receive($0.playerCount) })
        defer { cancellable.cancel() }
        _ = try arrivals.wait(forCount: rows, "\(journalMode), first value")
        var count = rows

        // Sequential commits, a few milliseconds apart, as a script that
        // inserts one row at a time.
        var latencies: [Double] = []
        for index in 0..<samples {
            Thread.sleep(forTimeInterval: Double(2 + index % 7) / 1000)
            let committed = try other.run("INSERT INTO player(name, score) VALUES ('other \(index)', \(index));")
            count += 1
            let arrived = try arrivals.wait(forCount: count, "\(journalMode), commit \(index)")
            latencies.append(max(0, Double(Int64(arrived) - Int64(committed))) / 1e9)
        }
        let latency = LatencySummary(seconds: latencies)!

        // Idle: nothing written for a second.
        Thread.sleep(forTimeInterval: 0.5)
        let cpuBefore = ProcessMetrics.cpuSeconds()
        Thread.sleep(forTimeInterval: 1)
        let idleCPU = (ProcessMetrics.cpuSeconds() - cpuBefore) * 1000

        // A burst of commits, as fast as the other process goes.
        let valuesBefore = arrivals.valueCount
        _ = try other.run("PRAGMA synchronous = OFF;")
        let inserts = String(repeating: "INSERT INTO player(name, score) VALUES ('burst', 1);\n", count: burstCommits)
        let burstEnd = try other.run(inserts, timeout: 300)
        count += burstCommits
        let finalArrival = try arrivals.wait(forCount: count, "\(journalMode), burst")
        let burstValues = arrivals.valueCount - valuesBefore

        return OtherProcessFigures(
            journal_mode: journalMode, rows: rows, p50_ms: latency.p50, p99_ms: latency.p99,
            samples: latency.count, idle_cpu_ms: idleCPU, burst_commits: burstCommits,
            burst_values: burstValues,
            burst_final_ms: max(0, Double(Int64(finalArrival) - Int64(burstEnd))) / 1e6)
    }
}

// MARK: - Support

/// The player counts that reached the subscriber, and when.
// @unchecked Sendable: `arrivals` and `valueCount` are only accessed with
// `condition` locked.
private final class Arrivals: @unchecked Sendable {
    private let condition = NSCondition()
    private var arrivals: [Int: UInt64] = [:]
    private var _valueCount = 0

    var valueCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return _valueCount
    }

    func receive(_ count: Int) {
        let now = DispatchTime.now().uptimeNanoseconds
        condition.lock()
        _valueCount += 1
        if arrivals[count] == nil {
            arrivals[count] = now
        }
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until a value with `count` players arrived, and returns when.
    func wait(forCount count: Int, timeout: TimeInterval = 5, _ stage: @autoclosure () -> String) throws -> UInt64 {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while arrivals[count] == nil {
            guard condition.wait(until: deadline) else {
                throw OtherProcessBenchmarkError("\(stage()): the value of \(count) players did not reach the subscriber in \(Int(timeout)) s (last: \(arrivals.keys.max() ?? 0))")
            }
        }
        return arrivals[count]!
    }
}

/// An error of the benchmark, in one line.
struct OtherProcessBenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
