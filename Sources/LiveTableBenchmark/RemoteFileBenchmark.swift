import Dispatch
import Foundation
import GRDB
import LiveTableCore
import OpenCombine
import ReactiveGRDB
import SQLiteCommandLine

/// The figures of a file that another machine writes: how fast a write
/// made behind a FUSE mount reaches the subscriber and the viewer's
/// screen, polled every `OtherProcessCommits.fallbackPollingInterval`
/// without any option, and what the polling costs while nothing is
/// written, beside a local file, which costs nothing.
package struct RemoteFileFigures: Codable, Equatable, Sendable {
    /// Why the FUSE part was not measured (no bindfs, no /dev/fuse), or
    /// nil when it was.
    package var fuse_skipped: String?
    /// The interval of the checks, in milliseconds.
    package var interval_ms: Double
    /// From the commit behind the mount to the value at the subscriber.
    package var subscriber_p50_ms: Double?
    /// The 90th percentile of the same latency.
    package var subscriber_p90_ms: Double?
    /// From the commit behind the mount to the viewer's screen that shows it.
    package var screen_p50_ms: Double?
    /// The 90th percentile of the same latency.
    package var screen_p90_ms: Double?
    /// The number of commits measured, for each latency.
    package var samples: Int
    /// The CPU used in one second while nothing is written, with the watch
    /// polling the file on the FUSE mount.
    package var fuse_idle_cpu_ms: Double?
    /// The CPU used in one second while nothing is written, with the watch
    /// on a local file.
    package var local_idle_cpu_ms: Double

    /// Creates figures; the FUSE ones are nil when the FUSE part is skipped.
    ///
    /// For example:
    ///
    /// ```swift
    /// let figures = RemoteFileFigures(
    ///     fuse_skipped: nil, interval_ms: 100, subscriber_p50_ms: 50, subscriber_p90_ms: 90,
    ///     screen_p50_ms: 55, screen_p90_ms: 95, samples: 40, fuse_idle_cpu_ms: 3, local_idle_cpu_ms: 0.01)
    /// ```
    package init(
        fuse_skipped: String?, interval_ms: Double,
        subscriber_p50_ms: Double? = nil, subscriber_p90_ms: Double? = nil,
        screen_p50_ms: Double? = nil, screen_p90_ms: Double? = nil,
        samples: Int, fuse_idle_cpu_ms: Double? = nil, local_idle_cpu_ms: Double)
    {
        self.fuse_skipped = fuse_skipped
        self.interval_ms = interval_ms
        self.subscriber_p50_ms = subscriber_p50_ms
        self.subscriber_p90_ms = subscriber_p90_ms
        self.screen_p50_ms = screen_p50_ms
        self.screen_p90_ms = screen_p90_ms
        self.samples = samples
        self.fuse_idle_cpu_ms = fuse_idle_cpu_ms
        self.local_idle_cpu_ms = local_idle_cpu_ms
    }

    /// The targets: the screen within the interval + 20 ms (p90), polling
    /// costs at most 5 ms of CPU a second, a local file nothing.
    package var targets: [BenchmarkTarget] {
        var targets: [BenchmarkTarget] = []
        let interval = String(format: "%g", interval_ms / 1000)
        if let screen_p90_ms {
            targets.append(BenchmarkTarget(
                "a write behind a FUSE mount reaches the screen within \(interval) s + 20 ms (p90)",
                screen_p90_ms, " ms", atMost: interval_ms + 20))
        }
        if let fuse_idle_cpu_ms {
            targets.append(BenchmarkTarget(
                "polling every \(interval) s costs ≤ 5 ms of CPU a second", fuse_idle_cpu_ms, " ms", atMost: 5))
        }
        targets.append(BenchmarkTarget(
            "a local file costs no CPU while nothing is written (≤ 1 ms in 1 s)", local_idle_cpu_ms, " ms",
            atMost: 1))
        return targets
    }

    /// The figures as lines of a table, with a title.
    ///
    /// For example:
    ///
    /// ```swift
    /// print(figures.table.joined(separator: "\n"))
    /// ```
    package var table: [String] {
        func format(_ value: Double?) -> String {
            value.map { String(format: "%.2f", $0) } ?? "-"
        }
        var lines = ["writes behind a FUSE mount (another machine), polled every \(format(interval_ms)) ms"]
        if let fuse_skipped {
            lines.append("  skipped: \(fuse_skipped)")
        } else {
            lines.append("  subscriber p50 \(format(subscriber_p50_ms)) ms, p90 \(format(subscriber_p90_ms)) ms; "
                + "screen p50 \(format(screen_p50_ms)) ms, p90 \(format(screen_p90_ms)) ms (\(samples) samples)")
            lines.append("  idle CPU polling: \(format(fuse_idle_cpu_ms)) ms a second")
        }
        lines.append("  idle CPU on a local file: \(format(local_idle_cpu_ms)) ms a second")
        return lines
    }
}

/// Measures a file that another machine writes, modelled by a FUSE mount
/// (`FuseMount`, bindfs): the `sqlite3` command writes the file behind
/// the mount, where no inotify event reaches the watch; the subscriber
/// (`includingOtherProcesses()`, no option) and the viewer (its program on
/// the app loop, as `livetable view` runs it, with a host that draws
/// nothing) read it through the mount.
///
/// Call `run` on the main thread: the viewer's loop runs on the main
/// queue, which `run` drains while it waits.
///
/// For example:
///
/// ```swift
/// let figures = try RemoteFileBenchmark(directory: directory).run()
/// ```
package struct RemoteFileBenchmark: Sendable {
    /// Where the files are made. It is removed at the end.
    package var directory: URL
    /// The number of commits measured, for each latency.
    package var samples: Int

    /// Creates a benchmark.
    package init(directory: URL, samples: Int = 40) {
        self.directory = directory
        self.samples = samples
    }

    /// Measures, or skips the FUSE part with its reason when no mount can
    /// be made here.
    ///
    /// - parameter log: Where to report progress.
    /// - throws: An error if the `sqlite3` command can not run, or a
    ///   commit does not show within 5 seconds.
    @MainActor
    package func run(log: (String) -> Void = { _ in }) throws -> RemoteFileFigures {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let interval = OtherProcessCommits.fallbackPollingInterval
        log("measuring the idle cost of a local file…")
        let localIdle = try idleCPU(path: try makeFile(in: directory), directory: directory)
        var figures = RemoteFileFigures(
            fuse_skipped: FuseMount.unavailableReason, interval_ms: interval * 1000, samples: 0,
            local_idle_cpu_ms: localIdle)
        if let reason = figures.fuse_skipped {
            log("skipping the FUSE part: \(reason)")
            return figures
        }
        let mount = try FuseMount(in: directory.appendingPathComponent("fuse", isDirectory: true))
        defer { mount.unmount() }
        let behind = try makeFile(in: mount.source)
        let seen = mount.mountPoint.appendingPathComponent(behind.lastPathComponent).path
        let other = try SQLiteCommand(path: behind.path)
        defer { other.close() }

        // First, while no other watch of this process runs.
        log("measuring the idle cost of polling…")
        let fuseIdle = try idleCPU(path: URL(fileURLWithPath: seen), directory: directory)
        log("measuring writes behind a FUSE mount to the subscriber…")
        let subscriber = try subscriberLatencies(path: seen, other: other)
        log("measuring writes behind a FUSE mount to the viewer's screen…")
        let screen = try screenLatencies(path: seen, other: other)
        figures.subscriber_p50_ms = subscriber.percentile(50)
        figures.subscriber_p90_ms = subscriber.percentile(90)
        figures.screen_p50_ms = screen.percentile(50)
        figures.screen_p90_ms = screen.percentile(90)
        figures.samples = samples
        figures.fuse_idle_cpu_ms = fuseIdle
        return figures
    }

    // MARK: - Measures

    /// The latencies from a commit behind the mount to the subscriber, in
    /// seconds. The commits come at random moments of the interval.
    // Nonisolated: the subscriber runs on a queue of its own.
    nonisolated private func subscriberLatencies(path: String, other: SQLiteCommand) throws -> [Double] {
        let reader = try Self.readOnly(path)
        let arrivals = ValueArrivals()
        let queue = DispatchQueue(label: "livetable.bench.remoteFiles")
        let cancellable = ValueObservation
            .trackingConstantRegion { db in try Int.fetchOne(db, sql: "SELECT price FROM item WHERE id = 1") ?? 0 }
            .publisher(in: reader, scheduling: .async(onQueue: queue))
            .includingOtherProcesses()
            .sink(receiveCompletion: { _ in }, receiveValue: { arrivals.receive($0) })
        defer { cancellable.cancel() }
        _ = try arrivals.wait(for: 1)
        var latencies: [Double] = []
        for index in 0..<samples {
            Thread.sleep(forTimeInterval: Double.random(in: 0..<0.1))
            let price = 1_000 + index
            let committed = try other.run("UPDATE item SET price = \(price) WHERE id = 1;")
            let arrived = try arrivals.wait(for: price)
            latencies.append(max(0, Double(Int64(arrived) - Int64(committed))) / 1e9)
        }
        return latencies
    }

    /// The latencies from a commit behind the mount to the viewer's screen
    /// that shows it, in seconds.
    @MainActor
    private func screenLatencies(path: String, other: SQLiteCommand) throws -> [Double] {
        let dataSource: any ViewerDataSource = try SQLiteDataSource.open(path: path)
        let viewed = try dataSource.open(.table("item"), sortColumn: nil, descending: false, ticket: ReadTicket())
        var shownPrices: [Int64: UInt64] = [:]
        let host = BenchmarkHost(
            program: ViewerProgram(dataSource: dataSource),
            state: ViewerState.initial(
                databaseName: "app.sqlite", opened: viewed,
                width: BenchmarkHost<ViewerProgram>.width, height: BenchmarkHost<ViewerProgram>.height)) { state in
            if case let .int64(price)? = state.table?.window?.rows.first?[2].storage, shownPrices[price] == nil {
                shownPrices[price] = DispatchTime.now().uptimeNanoseconds
            }
        }
        defer { host.loop.stop() }
        func waitForScreen(_ price: Int64) throws -> UInt64 {
            let deadline = Date(timeIntervalSinceNow: 5)
            while shownPrices[price] == nil {
                guard Date() < deadline else {
                    throw OtherProcessBenchmarkError("the price \(price) did not reach the viewer's screen in 5 s")
                }
                RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.001))
            }
            return shownPrices[price]!
        }
        _ = try waitForScreen(Int64(1_000 + samples - 1))
        var latencies: [Double] = []
        for index in 0..<samples {
            // The main queue runs meanwhile: the screen may show the commit
            // while the next one waits.
            RunLoop.main.run(until: Date(timeIntervalSinceNow: Double.random(in: 0..<0.1)))
            let price = Int64(2_000 + index)
            let committed = try other.run("UPDATE item SET price = \(price) WHERE id = 1;")
            let shown = try waitForScreen(price)
            latencies.append(max(0, Double(Int64(shown) - Int64(committed))) / 1e9)
        }
        return latencies
    }

    /// The CPU used in one second while nothing is written, with a
    /// subscriber watching the file, over three seconds.
    // Nonisolated: the subscriber runs on a queue of its own.
    nonisolated private func idleCPU(path: URL, directory: URL) throws -> Double {
        let reader = try Self.readOnly(path.path)
        let arrivals = ValueArrivals()
        let cancellable = ValueObservation
            .trackingConstantRegion { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item") ?? 0 }
            .publisher(in: reader, scheduling: .async(onQueue: DispatchQueue(label: "livetable.bench.idle")))
            .includingOtherProcesses()
            .sink(receiveCompletion: { _ in }, receiveValue: { arrivals.receive($0) })
        defer { cancellable.cancel() }
        _ = try arrivals.wait(for: 50)
        Thread.sleep(forTimeInterval: 0.5)
        let before = ProcessMetrics.cpuSeconds()
        Thread.sleep(forTimeInterval: 3)
        return (ProcessMetrics.cpuSeconds() - before) * 1000 / 3
    }

    // MARK: - Support

    /// A rollback-journal file of `item` (50 rows): WAL needs memory shared
    /// between the connections, which a network file system does not give.
    private func makeFile(in directory: URL) throws -> URL {
        let file = directory.appendingPathComponent("app.sqlite")
        let writer = try SQLiteCommand(path: file.path)
        defer { writer.close() }
        _ = try writer.run("""
            PRAGMA journal_mode = delete;
            CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price INTEGER);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50)
            INSERT INTO item(name, price) SELECT printf('item %03d', i), i FROM n;
            """)
        return file
    }

    private static func readOnly(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        return try DatabaseQueue(path: path, configuration: configuration)
    }
}

/// The values that reached a subscriber, and when.
// @unchecked Sendable: `arrivals` is only accessed with `condition` locked.
private final class ValueArrivals: @unchecked Sendable {
    private let condition = NSCondition()
    private var arrivals: [Int: UInt64] = [:]

    func receive(_ value: Int) {
        let now = DispatchTime.now().uptimeNanoseconds
        condition.lock()
        if arrivals[value] == nil {
            arrivals[value] = now
        }
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until `value` arrived, and returns when.
    func wait(for value: Int, timeout: TimeInterval = 5) throws -> UInt64 {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while arrivals[value] == nil {
            guard condition.wait(until: deadline) else {
                throw OtherProcessBenchmarkError("the value \(value) did not reach the subscriber in \(Int(timeout)) s")
            }
        }
        return arrivals[value]!
    }
}

extension Array where Element == Double {
    /// The nearest-rank percentile of latencies in seconds, in milliseconds.
    fileprivate func percentile(_ p: Double) -> Double? {
        guard !isEmpty else { return nil }
        let sorted = self.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1] * 1000
    }
}
