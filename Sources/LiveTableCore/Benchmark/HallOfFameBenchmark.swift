import Dispatch
import Foundation
import GRDB
import OpenCombine
import ReactiveGRDB

/// The two observations that the benchmark compares on the same database
/// and the same writes.
public enum BenchmarkMode: String, CaseIterable, Codable, Sendable {
    /// The app's own path: a window of rows paged by keyset, the
    /// trigger-maintained count, the max read from the index.
    case pipeline
    /// The demo apps' observation: all rows, `COUNT(*)` and `MAX(score)`.
    case naive
}

/// What one measurement of one mode found.
public struct BenchmarkFigures: Codable, Equatable, Sendable {
    /// Commit-to-render latency of sequential single-row writes, median.
    public var p50_ms: Double
    /// Commit-to-render latency of sequential single-row writes, 99th percentile.
    public var p99_ms: Double
    /// The number of latency samples.
    public var samples: Int
    /// Screens rendered per second during a write burst.
    public var updates_per_s: Double
    /// From opening the database to the first rendered screen.
    public var first_frame_ms: Double
    /// From a navigation key (End, Home, PgDn, ordering toggle) to the
    /// rendered screen of the new window, median.
    public var navigation_p50_ms: Double?
    /// CPU time used per second while the database does not change.
    public var idle_cpu_ms: Double
    /// The peak resident memory of the measuring process.
    public var peak_rss_mb: Double
}

/// Measures the app's live-update path, from the commit of a write to the
/// rendering of the screen grid, the way the app runs it: the observation
/// delivers on the main queue through a ReactiveGRDB publisher, `update`
/// folds the value into the state and `render` draws the screen.
///
/// For example:
///
/// ```swift
/// // On the main thread, which must run the main run loop meanwhile:
/// let benchmark = HallOfFameBenchmark(path: "/tmp/players.sqlite", mode: .pipeline)
/// DispatchQueue.global().async {
///     let figures = try benchmark.run()
///     print(figures.p50_ms)
/// }
/// RunLoop.main.run()
/// ```
///
/// `run()` must be called off the main thread, while the main thread runs
/// its run loop: the observation delivers there.
public final class HallOfFameBenchmark: @unchecked Sendable {
    // @unchecked Sendable: the frame log is protected by `condition`; the
    // state and the subscription are only touched on the main queue.

    /// A rendered screen: when, and what it showed. Only the last value is
    /// kept whole, so that the log does not weigh on the peak memory.
    private struct Frame {
        var time: Double
        var playerCount: Int
        var request: WindowRequest
    }

    private let path: String
    private let mode: BenchmarkMode
    private let latencySamples: Int
    private let burstSeconds: Double
    private let idleSeconds: Double
    private let frameTimeout: Double
    private let sampleBudgetSeconds: Double
    private let log: (String) -> Void

    private let condition = NSCondition()
    private var frames: [Frame] = []
    private var lastHallOfFame: HallOfFame?
    private var failure: Error?

    // Main queue only.
    private var state = AppState.initial(width: 100, height: 30)
    private var cancellable: AnyCancellable?
    private var appDatabase: AppDatabase?

    /// Creates a benchmark of one mode on an existing database file.
    ///
    /// - parameter path: The path of a livetable database.
    /// - parameter mode: The observation to measure.
    /// - parameter latencySamples: The number of sequential writes.
    /// - parameter burstSeconds: The duration of the write burst.
    /// - parameter idleSeconds: How long the CPU use is measured while
    ///   nothing changes.
    /// - parameter sampleBudgetSeconds: The latency measurement stops early
    ///   after this duration (the naive observation of a large table takes
    ///   seconds per write), once it has at least 5 samples.
    /// - parameter frameTimeout: How long to wait for an expected screen
    ///   before failing.
    /// - parameter log: Where to report progress.
    public init(
        path: String,
        mode: BenchmarkMode,
        latencySamples: Int = 1000,
        burstSeconds: Double = 2,
        idleSeconds: Double = 1,
        frameTimeout: Double = 600,
        sampleBudgetSeconds: Double = 20,
        log: @escaping (String) -> Void = { _ in })
    {
        self.path = path
        self.mode = mode
        self.latencySamples = latencySamples
        self.burstSeconds = burstSeconds
        self.idleSeconds = idleSeconds
        self.frameTimeout = frameTimeout
        self.sampleBudgetSeconds = sampleBudgetSeconds
        self.log = log
    }

    /// Runs the measurement. Call it off the main thread.
    ///
    /// - returns: The figures of the mode.
    public func run() throws -> BenchmarkFigures {
        precondition(!Thread.isMainThread, "The observation delivers on the main queue")

        // First frame: open, observe, render.
        let start = now()
        let appDatabase = try AppDatabase.open(path: path)
        // As in the app, the writes of other processes are watched: each
        // write of the benchmark is also checked for them.
        let externalChanges = try appDatabase.observeExternalChanges()
        defer { externalChanges.cancel() }
        let writer = appDatabase.writer
        onMain {
            self.appDatabase = appDatabase
            self.send(.resize(width: 100, height: 30))
        }
        let firstFrame = try waitForFrame(after: 0, timeout: frameTimeout, stage: "first frame") { _, _ in true }
        let firstFrameSeconds = firstFrame.time - start
        log("\(mode): first frame in \(Self.milliseconds(firstFrameSeconds)) ms")

        // No change, no work: the observation must not poll.
        let idleStart = ProcessMetrics.cpuSeconds()
        Thread.sleep(forTimeInterval: idleSeconds)
        let idleCPU = (ProcessMetrics.cpuSeconds() - idleStart) / idleSeconds

        // Sequential single-row writes: insert a player, then delete it.
        // Each changes the count, so each has its own value to wait for.
        let baseCount = try writer.read { db in try AppDatabase.playerCount(db) }
        var latencies: [Double] = []
        var insertedID: Int64?
        let sampling = now()
        for index in 0..<latencySamples {
            if index >= 5 && now() - sampling > sampleBudgetSeconds { break }
            let framesBefore = frameCount()
            let expectedCount: Int
            // The clock starts at the commit itself: a pool may deliver
            // before `write` returns.
            let commit = CommitTime()
            if let id = insertedID {
                _ = try writer.write { db in
                    db.afterNextTransaction { _ in commit.record() }
                    return try Player.deleteOne(db, id: id)
                }
                insertedID = nil
                expectedCount = baseCount
            } else {
                insertedID = try writer.write { db in
                    db.afterNextTransaction { _ in commit.record() }
                    return try appDatabase.insertRandomPlayer(db).id
                }
                expectedCount = baseCount + 1
            }
            let frame = try waitForFrame(after: framesBefore, timeout: frameTimeout, stage: "latency") { frame, _ in
                frame.playerCount == expectedCount
            }
            latencies.append(frame.time - commit.time)
        }
        if let id = insertedID {
            _ = try writer.write { db in try Player.deleteOne(db, id: id) }
        }
        let latency = LatencySummary(seconds: latencies)!
        log("\(mode): latency p50 \(Self.milliseconds(latency.p50 / 1000)) ms, p99 \(Self.milliseconds(latency.p99 / 1000)) ms over \(latency.count) writes")

        // Write burst: as many single-row inserts as possible, while the
        // observation coalesces what it can. Each insert makes a new count,
        // so the last rendered value, which must match the database, can
        // only be the one of the last write.
        let framesBeforeBurst = frameCount()
        let burstStart = now()
        var burstIDs: [Int64] = []
        while now() - burstStart < burstSeconds {
            let id = try writer.write { db in try appDatabase.insertRandomPlayer(db).id }
            burstIDs.append(id!)
        }
        let expected = try writer.read { db in try self.expectedValue(db) }
        let lastFrame = try waitForFrame(after: framesBeforeBurst, timeout: frameTimeout, stage: "burst") { _, last in last == expected }
        let burstFrames = frameCount(since: framesBeforeBurst, until: lastFrame.time)
        let updatesPerSecond = Double(burstFrames) / (lastFrame.time - burstStart)
        log("\(mode): \(burstFrames) screens for \(burstIDs.count) writes in the burst")
        // Counted before the write: its value may be on screen before the
        // write returns.
        let framesBeforeCleanUp = frameCount()
        _ = try writer.write { db in try Player.deleteAll(db, ids: burstIDs) }
        _ = try waitForFrame(after: framesBeforeCleanUp, timeout: frameTimeout, stage: "burst clean-up") { frame, _ in frame.playerCount == baseCount }

        // Navigation: the app's own keys, each answered by a new window.
        var navigation: [Double] = []
        if mode == .pipeline {
            for key in [Key.end, .home, .pageDown, .pageDown, .character("o"), .character("o")] {
                let framesBefore = frameCount()
                let pressed = now()
                // A move within the window asks for no new window.
                guard let request = onMain({ self.send(.key(key)) }) else { continue }
                let frame = try waitForFrame(after: framesBefore, timeout: frameTimeout, stage: "navigation") { frame, _ in frame.request == request }
                navigation.append(frame.time - pressed)
            }
        }

        // Closed here, not whenever the last reference goes: the database
        // is free for the next measurement as soon as this one returns.
        onMain {
            self.cancellable = nil
            self.appDatabase = nil
        }
        externalChanges.cancel()
        try appDatabase.close()
        return BenchmarkFigures(
            p50_ms: latency.p50,
            p99_ms: latency.p99,
            samples: latency.count,
            updates_per_s: updatesPerSecond,
            first_frame_ms: firstFrameSeconds * 1000,
            navigation_p50_ms: LatencySummary(seconds: navigation)?.p50,
            idle_cpu_ms: idleCPU * 1000,
            peak_rss_mb: Double(ProcessMetrics.peakResidentBytes()) / 1_048_576)
    }

    // MARK: - The app's path (main queue)

    /// Feeds a message to `update`, runs the effects the benchmark cares
    /// about, and renders.
    ///
    /// - returns: The window the message asked to observe, if any.
    @discardableResult
    private func send(_ message: Message) -> WindowRequest? {
        var observed: WindowRequest?
        for effect in update(&state, message) {
            if case let .observe(request) = effect {
                observe(request)
                observed = request
            }
        }
        _ = render(state)
        return observed
    }

    private func observe(_ request: WindowRequest) {
        guard let appDatabase else { return }
        let publisher: DatabasePublishers.Value<HallOfFame>
        switch mode {
        case .pipeline:
            publisher = appDatabase.observeHallOfFame(request)
        case .naive:
            publisher = ValueObservation
                .trackingConstantRegion { db in try Self.fetchNaive(db, request) }
                .publisher(in: appDatabase.writer)
        }
        cancellable = publisher.sink(
            receiveCompletion: { [weak self] completion in
                guard let self, case let .failure(error) = completion else { return }
                condition.lock()
                failure = error
                condition.broadcast()
                condition.unlock()
            },
            receiveValue: { [weak self] hallOfFame in
                guard let self else { return }
                send(.hallOfFame(hallOfFame))
                let frame = Frame(time: now(), playerCount: hallOfFame.playerCount, request: hallOfFame.request)
                condition.lock()
                frames.append(frame)
                lastHallOfFame = hallOfFame
                condition.broadcast()
                condition.unlock()
            })
    }

    /// The demo apps' observation: every player, `COUNT(*)` and
    /// `MAX(score)`, answered as a Hall of Fame for the app's request.
    private static func fetchNaive(_ db: Database, _ request: WindowRequest) throws -> HallOfFame {
        let players = try Player.fetchAll(
            db, sql: "SELECT * FROM player ORDER BY \(request.ordering.orderByClause)")
        let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") ?? 0
        let maxScore = try DatabaseValue.fetchOne(db, sql: "SELECT MAX(score) FROM player")
            .flatMap { $0.isNull ? nil : Score(databaseValue: $0) }
        return HallOfFame(
            playerCount: count, maxScore: maxScore, request: request, players: players,
            firstRank: 0, rankIsExact: true, reachesStart: true, reachesEnd: true)
    }

    /// What the observation must eventually show, fetched afresh.
    private func expectedValue(_ db: Database) throws -> HallOfFame {
        let request = onMain { self.state.observedRequest }!
        switch mode {
        case .pipeline: return try HallOfFame.fetch(db, request)
        case .naive: return try Self.fetchNaive(db, request)
        }
    }

    // MARK: - Waiting for frames (benchmark thread)

    private func frameCount() -> Int {
        condition.lock()
        defer { condition.unlock() }
        return frames.count
    }

    private func frameCount(since index: Int, until time: Double) -> Int {
        condition.lock()
        defer { condition.unlock() }
        return frames[index...].filter { $0.time <= time }.count
    }

    /// Waits for a frame rendered after the first `index` frames that
    /// matches `predicate`, given the frame and, for the last frame only,
    /// its whole value.
    private func waitForFrame(
        after index: Int,
        timeout: Double,
        stage: String,
        where predicate: (Frame, HallOfFame?) -> Bool) throws -> Frame
    {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        var checked = index
        while true {
            if let failure { throw failure }
            while checked < frames.count {
                let isLast = checked == frames.count - 1
                if predicate(frames[checked], isLast ? lastHallOfFame : nil) { return frames[checked] }
                checked += 1
            }
            if !condition.wait(until: deadline) {
                throw BenchmarkError.timeout(mode, stage: stage)
            }
        }
    }

    private func onMain<T>(_ body: @escaping () -> T) -> T {
        DispatchQueue.main.sync(execute: body)
    }

    private static func milliseconds(_ seconds: Double) -> String {
        String(format: "%.2f", seconds * 1000)
    }
}

/// A benchmark that could not complete.
public enum BenchmarkError: Error, CustomStringConvertible {
    /// The observation did not deliver an expected value in time.
    case timeout(BenchmarkMode, stage: String)

    /// A one-line description of the error.
    public var description: String {
        switch self {
        case let .timeout(mode, stage):
            return "the \(mode.rawValue) observation did not deliver the expected value in time (\(stage))"
        }
    }
}

/// The time of a commit, recorded on the writer's queue and read by the
/// benchmark thread once the write has returned.
// @unchecked Sendable: `time` is written before `write` returns, and only
// read after.
private final class CommitTime: @unchecked Sendable {
    private(set) var time: Double = 0
    func record() { time = now() }
}

/// A monotonic clock, in seconds.
private func now() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1_000_000_000
}
