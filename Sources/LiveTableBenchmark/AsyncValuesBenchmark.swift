import Dispatch
import Foundation
import GRDB
import OpenCombine
import ReactiveGRDB
import SQLiteCommandLine

/// The figures of one journal mode: the async form of an observation that
/// includes other processes (`DatabaseValues`), beside its publisher.
package struct AsyncValuesFigures: Codable, Equatable, Sendable {
    /// The journal mode of the file: "wal" or "delete".
    package var journal_mode: String
    /// The median latency from the other process's commit to the value, at
    /// a subscriber of the publisher.
    package var publisher_p50_ms: Double
    /// The 99th percentile of the publisher's latency.
    package var publisher_p99_ms: Double
    /// The median latency from the commit to the value, at a `for try
    /// await` loop over the async sequence.
    package var async_p50_ms: Double
    /// The 99th percentile of the async sequence's latency.
    package var async_p99_ms: Double
    /// The CPU the app's process used per commit with the publisher, in
    /// milliseconds: the watch, the fetch and the delivery.
    package var publisher_cpu_ms: Double
    /// The same with the async sequence.
    package var async_cpu_ms: Double
    /// The number of commits measured with each form.
    package var samples: Int

    /// Creates figures.
    ///
    /// For example:
    ///
    /// ```swift
    /// let figures = AsyncValuesFigures(
    ///     journal_mode: "wal", publisher_p50_ms: 0.8, publisher_p99_ms: 2, async_p50_ms: 0.85,
    ///     async_p99_ms: 2.1, publisher_cpu_ms: 0.2, async_cpu_ms: 0.21, samples: 300)
    /// ```
    package init(
        journal_mode: String, publisher_p50_ms: Double, publisher_p99_ms: Double,
        async_p50_ms: Double, async_p99_ms: Double, publisher_cpu_ms: Double, async_cpu_ms: Double,
        samples: Int)
    {
        self.journal_mode = journal_mode
        self.publisher_p50_ms = publisher_p50_ms
        self.publisher_p99_ms = publisher_p99_ms
        self.async_p50_ms = async_p50_ms
        self.async_p99_ms = async_p99_ms
        self.publisher_cpu_ms = publisher_cpu_ms
        self.async_cpu_ms = async_cpu_ms
        self.samples = samples
    }

    /// The target of these figures: the async form's p50 within 1.1 times
    /// the publisher's.
    package var targets: [BenchmarkTarget] {
        let ratio = publisher_p50_ms > 0 ? async_p50_ms / publisher_p50_ms : .infinity
        return [
            BenchmarkTarget(
                name: "async sequence p50 ≤ 1.1x the publisher's (\(journal_mode.uppercased()))",
                measured: String(format: "%.2f ms vs %.2f ms (%.2fx)", async_p50_ms, publisher_p50_ms, ratio),
                met: ratio <= 1.1),
        ]
    }

    /// The figures as lines of a table, with a header.
    ///
    /// For example:
    ///
    /// ```swift
    /// print(AsyncValuesFigures.table([figures]).joined(separator: "\n"))
    /// ```
    package static func table(_ figures: [AsyncValuesFigures]) -> [String] {
        func pad(_ text: String, _ width: Int) -> String {
            String(repeating: " ", count: max(0, width - text.count)) + text
        }
        let widths = [12, 9, 10, 10, 12, 8]
        let header = ["form", "journal", "p50 ms", "p99 ms", "CPU/commit", "samples"]
        var lines = ["commits of another process (sqlite3) → publisher, and → for try await"]
        lines.append(zip(header, widths).map { pad($0, $1) }.joined())
        for figure in figures {
            for (form, p50, p99, cpu) in [
                ("publisher", figure.publisher_p50_ms, figure.publisher_p99_ms, figure.publisher_cpu_ms),
                ("async", figure.async_p50_ms, figure.async_p99_ms, figure.async_cpu_ms),
            ] {
                let cells = [
                    form, figure.journal_mode, String(format: "%.2f", p50), String(format: "%.2f", p99),
                    String(format: "%.3f ms", cpu), "\(figure.samples)",
                ]
                lines.append(zip(cells, widths).map { pad($0, $1) }.joined())
            }
        }
        return lines
    }
}

/// Measures the async form of an observation that includes other
/// processes (`rx.values(in:).includingOtherProcesses()`) beside its
/// publisher (`publisher(in:scheduling:).includingOtherProcesses()`), in WAL
/// and in rollback-journal (DELETE) mode.
///
/// Both observe the same value, the highest player id, whose fetch costs
/// little, so that the latency is the library's: the watch, the restart of
/// the observation, and the delivery. The publisher delivers on a queue of
/// its own (no main queue), the sequence to a task. The forms take turns, in
/// blocks of commits, so that the machine's drifts weigh on both alike.
///
/// For example:
///
/// ```swift
/// let figures = try AsyncValuesBenchmark(directory: directory).run()
/// ```
package struct AsyncValuesBenchmark: Sendable {
    /// Where the databases are made. It is removed at the end.
    package var directory: URL
    /// The number of commits measured with each form, per journal mode.
    package var samples: Int
    /// The number of commits of one turn of a form.
    package var block: Int

    /// Creates a benchmark.
    package init(directory: URL, samples: Int = 300, block: Int = 25) {
        self.directory = directory
        self.samples = samples
        self.block = block
    }

    /// Measures both journal modes.
    ///
    /// - parameter log: Where to report progress.
    /// - throws: An error if the `sqlite3` command can not run, or a
    ///   commit does not reach the subscriber within 5 seconds.
    package func run(log: (String) -> Void = { _ in }) throws -> [AsyncValuesFigures] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try ["wal", "delete"].map { journalMode in
            let path = directory.appendingPathComponent("async-values-\(journalMode).sqlite").path
            defer {
                for suffix in ["", "-wal", "-shm", "-journal"] {
                    try? FileManager.default.removeItem(atPath: path + suffix)
                }
            }
            log("measuring the async form beside the publisher (\(journalMode))…")
            return try measure(path: path, journalMode: journalMode)
        }
    }

    private func measure(path: String, journalMode: String) throws -> AsyncValuesFigures {
        let other = try SQLiteCommand(path: path)
        defer { other.close() }
        try other.execute("""
            PRAGMA journal_mode = \(journalMode);
            CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            """)
        // Read-only, as a viewer of a file that another program writes: the
        // commits of the other process are the only changes.
        var configuration = Configuration()
        configuration.readonly = true
        let dbQueue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? dbQueue.close() }
        let observation = ValueObservation.trackingConstantRegion { db in
            try Int.fetchOne(db, sql: "SELECT IFNULL(MAX(id), 0) FROM player") ?? 0
        }

        var latencies: [Form: [Double]] = [:]
        var cpu: [Form: Double] = [:]
        var lastID = 0
        var measured = 0
        var form = Form.publisher
        while measured < samples * 2 {
            let arrivals = IDArrivals()
            let subscription = form.subscribe(observation, in: dbQueue, arrivals: arrivals)
            defer { subscription.cancel() }
            _ = try arrivals.wait(forID: lastID, "\(journalMode), \(form), first value")
            let cpuBefore = ProcessMetrics.cpuSeconds()
            for index in 0..<block {
                Thread.sleep(forTimeInterval: Double(2 + index % 7) / 1000)
                let committed = try other.run("INSERT INTO player(name) VALUES ('other');")
                lastID += 1
                let arrived = try arrivals.wait(forID: lastID, "\(journalMode), \(form), commit \(lastID)")
                latencies[form, default: []].append(max(0, Double(Int64(arrived) - Int64(committed))) / 1e9)
            }
            cpu[form, default: 0] += ProcessMetrics.cpuSeconds() - cpuBefore
            measured += block
            form = form == .publisher ? .async : .publisher
        }
        let publisher = LatencySummary(seconds: latencies[.publisher] ?? [])!
        let async = LatencySummary(seconds: latencies[.async] ?? [])!
        return AsyncValuesFigures(
            journal_mode: journalMode,
            publisher_p50_ms: publisher.p50, publisher_p99_ms: publisher.p99,
            async_p50_ms: async.p50, async_p99_ms: async.p99,
            publisher_cpu_ms: (cpu[.publisher] ?? 0) * 1000 / Double(publisher.count),
            async_cpu_ms: (cpu[.async] ?? 0) * 1000 / Double(async.count),
            samples: min(publisher.count, async.count))
    }

    private enum Form: String, CustomStringConvertible {
        case publisher
        case async

        var description: String { rawValue }

        /// Starts observing, and records the arrival of each value.
        func subscribe<Reducer>(
            _ observation: ValueObservation<Reducer>,
            in reader: DatabaseQueue,
            arrivals: IDArrivals)
        -> any Cancellable
        where Reducer.Value == Int
        {
            switch self {
            case .publisher:
                return observation
                    .publisher(in: reader, scheduling: .async(onQueue: DispatchQueue(label: "livetable.bench.asyncValues")))
                    .includingOtherProcesses()
                    .sink(receiveCompletion: { _ in }, receiveValue: { arrivals.receive($0) })
            case .async:
                let values = observation.rx.values(in: reader).includingOtherProcesses()
                let task = Task.detached {
                    for try await id in values {
                        arrivals.receive(id)
                    }
                }
                return AnyCancellable { task.cancel() }
            }
        }
    }
}

/// The highest ids that reached the subscriber, and when.
// @unchecked Sendable: `arrivals` is only accessed with `condition` locked.
private final class IDArrivals: @unchecked Sendable {
    private let condition = NSCondition()
    private var arrivals: [Int: UInt64] = [:]

    func receive(_ id: Int) {
        let now = DispatchTime.now().uptimeNanoseconds
        condition.lock()
        if arrivals[id] == nil {
            arrivals[id] = now
        }
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until the value `id` arrived, and returns when.
    func wait(forID id: Int, timeout: TimeInterval = 5, _ stage: @autoclosure () -> String) throws -> UInt64 {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while arrivals[id] == nil {
            guard condition.wait(until: deadline) else {
                throw OtherProcessBenchmarkError("\(stage()): the value \(id) did not reach the subscriber in \(Int(timeout)) s")
            }
        }
        return arrivals[id]!
    }
}
