import Dispatch
import Foundation
import GRDB
import OpenCombine
import ReactiveGRDB
import SQLiteCommandLine
import Synchronization

/// Many subscriptions to the commits of another process on one database
/// (issue 25): what one commit costs, whatever their number, and whether
/// they disturb each other.
package struct ScaleFigures: Codable, Equatable, Sendable {
    /// The fetches of one shared observation for `commits` commits, with
    /// `consumers` consumers of `values(includingOtherProcessesIn:)`.
    package struct SharedFetches: Codable, Equatable, Sendable {
        package var consumers: Int
        package var fetches: Int
    }

    /// The commits of each measure of fetches.
    package var commits: Int
    package var shared: [SharedFetches]
    /// One publisher of the shared observation subscribed 50 times.
    package var publisher_50_fetches: Int
    /// `notifyChanges` runs on the writer, with 50 consumers.
    package var notifications_50: Int
    /// The values of an observation that did not ask for other processes,
    /// beside a shared one that asked, for `crosstalk_commits` commits: a
    /// pool publishes its first value twice, so 2 is none from them.
    package var crosstalk_commits: Int
    package var bystander_values: Int
    /// A plain observation of a writable pool, after its first values.
    package var pool_values: Int
    package var pool_fetches: Int
    /// An async feed beside a sink that takes 1 s per value.
    package var feed_commits: Int
    package var feed_states: Int
    package var feed_p50_ms: Double
    package var feed_max_ms: Double

    /// Issue 25's targets.
    package var targets: [BenchmarkTarget] {
        var targets = shared.map { figure in
            BenchmarkTarget(
                name: "shared observation, \(figure.consumers) consumers: ≤ 1 fetch per commit",
                measured: "\(figure.fetches) fetches / \(commits) commits", met: figure.fetches <= commits)
        }
        targets += [
            BenchmarkTarget(
                name: "one shared publisher subscribed 50 times: ≤ 1 fetch per commit",
                measured: "\(publisher_50_fetches) fetches / \(commits) commits", met: publisher_50_fetches <= commits),
            BenchmarkTarget(
                name: "50 consumers: ≤ 1 notifyChanges per commit",
                measured: "\(notifications_50) / \(commits) commits", met: notifications_50 <= commits),
            BenchmarkTarget(
                name: "an observation that did not ask is not refreshed (2 values: a pool's first, twice)",
                measured: "\(bystander_values) values / \(crosstalk_commits) commits", met: bystander_values <= 2),
            BenchmarkTarget(
                name: "plain observation of a writable pool: 1 fetch and 1 value per commit",
                measured: "\(pool_fetches) fetches, \(pool_values) values / \(commits) commits",
                met: pool_fetches <= commits && pool_values <= commits),
            BenchmarkTarget(
                name: "async feed beside a 1 s sink: ≥ \(feed_commits - 1) of \(feed_commits) states, p50 ≤ 20 ms",
                measured: "\(feed_states) states, p50 " + String(format: "%.2f ms, max %.2f ms", feed_p50_ms, feed_max_ms),
                met: feed_states >= feed_commits - 1 && feed_p50_ms <= 20),
        ]
        return targets
    }

    /// The figures as lines of a table; `targets` tells which are met.
    package var table: [String] {
        var lines = ["observations at scale: \(commits) commits of another process (sqlite3), one writable DatabasePool"]
        lines.append("  shared observation, fetches: " + shared.map { "\($0.fetches) with \($0.consumers) consumers" }
            .joined(separator: ", "))
        lines.append("  one shared publisher subscribed 50 times: \(publisher_50_fetches) fetches, "
            + "\(notifications_50) notifyChanges with 50 consumers")
        lines.append("  an observation that did not ask: \(bystander_values) values for \(crosstalk_commits) commits")
        lines.append("  plain observation of the pool: \(pool_fetches) fetches, \(pool_values) values")
        lines.append("  async feed beside a 1 s sink: \(feed_states) of \(feed_commits) states, p50 "
            + String(format: "%.2f ms, max %.2f ms", feed_p50_ms, feed_max_ms))
        return lines
    }
}

/// Measures `ScaleFigures` on a small WAL database that the `sqlite3`
/// command writes, one row per commit, each commit waited for.
package struct ScaleBenchmark: Sendable {
    /// Where the databases are made. It is removed at the end.
    package var directory: URL
    package var commits: Int
    package var consumerCounts: [Int]

    package init(directory: URL, commits: Int = 100, consumerCounts: [Int] = [1, 10, 50, 200]) {
        self.directory = directory
        self.commits = commits
        self.consumerCounts = consumerCounts
    }

    package func run(log: (String) -> Void = { _ in }) throws -> ScaleFigures {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var shared: [ScaleFigures.SharedFetches] = []
        var notifications50 = 0
        for consumers in consumerCounts {
            log("measuring a shared observation with \(consumers) consumers…")
            let (fetches, notifications) = try withDatabase("shared-\(consumers)") { pool, other in
                try measureShared(pool, other, consumers: consumers, form: .values)
            }
            shared.append(.init(consumers: consumers, fetches: fetches))
            if consumers == 50 { notifications50 = notifications }
        }
        log("measuring one shared publisher subscribed 50 times…")
        let (publisherFetches, _) = try withDatabase("publisher") { pool, other in
            try measureShared(pool, other, consumers: 50, form: .publisher)
        }
        log("measuring an observation that did not ask…")
        let crosstalkCommits = 10
        let bystander = try withDatabase("crosstalk") { pool, other in
            try measureBystander(pool, other, commits: crosstalkCommits)
        }
        log("measuring a plain observation of a writable pool…")
        let (poolFetches, poolValues) = try withDatabase("pool") { pool, other in
            try measurePlain(pool, other)
        }
        log("measuring an async feed beside a slow sink…")
        let feedCommits = 15
        let feed = try withDatabase("feed") { pool, other in
            try measureFeed(pool, other, commits: feedCommits)
        }
        return ScaleFigures(
            commits: commits, shared: shared, publisher_50_fetches: publisherFetches,
            notifications_50: notifications50, crosstalk_commits: crosstalkCommits, bystander_values: bystander,
            pool_values: poolValues, pool_fetches: poolFetches, feed_commits: feedCommits,
            feed_states: feed.states, feed_p50_ms: feed.p50, feed_max_ms: feed.max)
    }

    private enum Form { case values, publisher }

    /// The fetches of the shared observation and the notifications of the
    /// writer for `commits` commits, each waited for by every consumer.
    private func measureShared(
        _ pool: DatabasePool, _ other: SQLiteCommand, consumers: Int, form: Form) throws -> (Int, Int)
    {
        let fetches = Counter()
        let notifications = NotificationCounter()
        try pool.write { db in db.add(transactionObserver: notifications) }
        let sharedObservation = Self.playerCount(fetches)
            .shared(in: pool, scheduling: .async(onQueue: DispatchQueue(label: "livetable.bench.scale.shared")))
        let progress = Progress(consumers: consumers)
        var cancellables: [AnyCancellable] = []
        defer { cancellables.forEach { $0.cancel() } }
        let publisher = sharedObservation.publisher(includingOtherProcessesIn: pool)
        for consumer in 0..<consumers {
            switch form {
            case .values:
                let values = sharedObservation.values(includingOtherProcessesIn: pool)
                let task = Task.detached {
                    for try await count in values { progress.receive(count, from: consumer) }
                }
                cancellables.append(AnyCancellable { task.cancel() })
            case .publisher:
                cancellables.append(publisher.sink(
                    receiveCompletion: { _ in }, receiveValue: { progress.receive($0, from: consumer) }))
            }
        }
        try progress.wait(forAll: 0, "first value")
        Self.settle()
        let fetchesBefore = fetches.value
        let notificationsBefore = notifications.value
        for index in 1...commits {
            _ = try other.run("INSERT INTO player(name) VALUES ('p\(index)');")
            try progress.wait(forAll: index, "commit \(index)")
        }
        Self.settle()
        return (fetches.value - fetchesBefore, notifications.value - notificationsBefore)
    }

    /// The values of an observation that did not ask, beside a shared one
    /// with 10 consumers that did.
    private func measureBystander(_ pool: DatabasePool, _ other: SQLiteCommand, commits: Int) throws -> Int {
        let bystanderValues = Counter()
        let bystander = Self.playerCount(Counter())
            .publisher(in: pool, scheduling: .async(onQueue: DispatchQueue(label: "livetable.bench.scale.bystander")))
            .sink(receiveCompletion: { _ in }, receiveValue: { _ in bystanderValues.increment() })
        defer { bystander.cancel() }
        let sharedObservation = Self.playerCount(Counter())
            .shared(in: pool, scheduling: .async(onQueue: DispatchQueue(label: "livetable.bench.scale.shared")))
        let progress = Progress(consumers: 10)
        let cancellables = (0..<10).map { consumer in
            sharedObservation.publisher(includingOtherProcessesIn: pool)
                .sink(receiveCompletion: { _ in }, receiveValue: { progress.receive($0, from: consumer) })
        }
        defer { cancellables.forEach { $0.cancel() } }
        try progress.wait(forAll: 0, "first value")
        for index in 1...commits {
            _ = try other.run("INSERT INTO player(name) VALUES ('p\(index)');")
            try progress.wait(forAll: index, "commit \(index)")
        }
        Self.settle()
        return bystanderValues.value
    }

    /// The fetches and values of a plain observation of a writable pool,
    /// after its first values.
    private func measurePlain(_ pool: DatabasePool, _ other: SQLiteCommand) throws -> (Int, Int) {
        let fetches = Counter()
        let values = Counter()
        let progress = Progress(consumers: 1)
        let cancellable = Self.playerCount(fetches)
            .publisher(in: pool, scheduling: .async(onQueue: DispatchQueue(label: "livetable.bench.scale.plain")))
            .includingOtherProcesses()
            .sink(receiveCompletion: { _ in }, receiveValue: { count in
                values.increment()
                progress.receive(count, from: 0)
            })
        defer { cancellable.cancel() }
        try progress.wait(forAll: 0, "first value")
        Self.settle()
        let (fetchesBefore, valuesBefore) = (fetches.value, values.value)
        for index in 1...commits {
            _ = try other.run("INSERT INTO player(name) VALUES ('p\(index)');")
            try progress.wait(forAll: index, "commit \(index)")
        }
        Self.settle()
        return (fetches.value - fetchesBefore, values.value - valuesBefore)
    }

    /// The states that an async feed saw, and how late, while a sink of
    /// the same pool takes 1 s per value.
    private func measureFeed(
        _ pool: DatabasePool, _ other: SQLiteCommand, commits: Int) throws -> (states: Int, p50: Double, max: Double)
    {
        let observation = Self.playerCount(Counter())
        let slow = observation
            .publisher(in: pool, scheduling: .async(onQueue: DispatchQueue(label: "livetable.bench.scale.slow")))
            .includingOtherProcesses()
            .sink(receiveCompletion: { _ in }, receiveValue: { _ in Thread.sleep(forTimeInterval: 1) })
        defer { slow.cancel() }
        let progress = Progress(consumers: 1)
        let values = observation.rx.values(in: pool).includingOtherProcesses()
        let task = Task.detached {
            for try await count in values { progress.receive(count, from: 0) }
        }
        defer { task.cancel() }
        try progress.wait(forAll: 0, "first value")
        var commitTimes: [Int: UInt64] = [:]
        for index in 1...commits {
            Thread.sleep(forTimeInterval: 0.15)
            commitTimes[index] = try other.run("INSERT INTO player(name) VALUES ('p\(index)');")
        }
        // The last state arrives in the end, at the latest after the
        // sink's values.
        try progress.wait(forAll: commits, timeout: 30, "last commit")
        let arrivals = progress.arrivals(of: 0)
        let latencies = (1...commits).compactMap { index -> Double? in
            guard let arrival = arrivals[index], let commit = commitTimes[index] else { return nil }
            return max(0, Double(Int64(arrival) - Int64(commit))) / 1e9
        }
        let summary = LatencySummary(seconds: latencies)
        return (latencies.count, summary?.p50 ?? 0, (latencies.max() ?? 0) * 1000)
    }

    // MARK: - Support

    private static func playerCount(_ fetches: Counter) -> ValueObservation<ValueReducers.Fetch<Int>> {
        ValueObservation.trackingConstantRegion { db in
            fetches.increment()
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") ?? 0
        }
    }

    private func withDatabase<T>(_ name: String, _ body: (DatabasePool, SQLiteCommand) throws -> T) throws -> T {
        let path = directory.appendingPathComponent("scale-\(name).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm", "-journal"] {
                try? FileManager.default.removeItem(atPath: path + suffix)
            }
        }
        let other = try SQLiteCommand(path: path)
        defer { other.close() }
        _ = try other.run("PRAGMA journal_mode = wal; CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT);")
        let pool = try DatabasePool(path: path)
        defer { try? pool.close() }
        return try body(pool, other)
    }

    /// Lets the checks and fetches that follow a commit end.
    private static func settle() {
        Thread.sleep(forTimeInterval: 0.3)
    }
}

private final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}

/// Counts `notifyChanges(in:)` on the writer.
private final class NotificationCounter: TransactionObserver, Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
    func databaseDidChange() { count.withLock { $0 += 1 } }
    func databaseDidChange(with event: DatabaseEvent) { }
    func databaseDidCommit(_ db: Database) { }
    func databaseDidRollback(_ db: Database) { }
}

/// The last value each consumer received, and when each value arrived.
// @unchecked Sendable: `last` and `times` are only accessed with
// `condition` locked.
private final class Progress: @unchecked Sendable {
    private let condition = NSCondition()
    private var last: [Int]
    private var times: [[Int: UInt64]]

    init(consumers: Int) {
        last = Array(repeating: -1, count: consumers)
        times = Array(repeating: [:], count: consumers)
    }

    func receive(_ value: Int, from consumer: Int) {
        let now = DispatchTime.now().uptimeNanoseconds
        condition.lock()
        last[consumer] = value
        if times[consumer][value] == nil { times[consumer][value] = now }
        condition.broadcast()
        condition.unlock()
    }

    func arrivals(of consumer: Int) -> [Int: UInt64] {
        condition.lock()
        defer { condition.unlock() }
        return times[consumer]
    }

    func wait(forAll value: Int, timeout: TimeInterval = 10, _ stage: @autoclosure () -> String) throws {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !last.allSatisfy({ $0 >= value }) {
            guard condition.wait(until: deadline) else {
                throw OtherProcessBenchmarkError("observations at scale, \(stage()): not every consumer saw \(value) rows in \(Int(timeout)) s")
            }
        }
    }
}
