import Dispatch
import Foundation
import GRDB
import LiveTableCore
import ReactiveGRDB

/// The two observations that the benchmark compares on the same database
/// and the same writes.
package enum BenchmarkMode: String, CaseIterable, Codable, Sendable {
    /// The app's own path: a window of rows paged by keyset, the
    /// trigger-maintained count, the max read from the index.
    case pipeline
    /// The demo apps' observation: all rows, `COUNT(*)` and `MAX(score)`.
    case naive
}

/// What one measurement of one mode found.
package struct BenchmarkFigures: Codable, Equatable, Sendable {
    /// Commit-to-screen latency of sequential single-row inserts (the
    /// app's `n` key), median.
    package var p50_ms: Double
    /// Commit-to-screen latency of sequential single-row inserts, 99th
    /// percentile.
    package var p99_ms: Double
    /// The number of latency samples.
    package var samples: Int
    /// Screens with a new value drawn per second during a burst of
    /// inserts.
    package var updates_per_s: Double
    /// From opening the database to the first drawn screen.
    package var first_frame_ms: Double
    /// From a navigation key (End, Home, PgDn, ordering toggle) to the
    /// drawn screen of the new window, median.
    package var navigation_p50_ms: Double?
    /// CPU time used per second while the database does not change.
    package var idle_cpu_ms: Double
    /// The peak resident memory of the measuring process.
    package var peak_rss_mb: Double
}

/// Measures the app's live-update path, from the commit of a write to the
/// drawing of the screen, on the app's own loop: `AppLoop` runs the
/// `HallOfFameProgram`, whose observation delivers on the main queue
/// through a ReactiveGRDB publisher; `update` folds each burst of values
/// into the state, `render` draws the screen grid once per burst, and a
/// host that keeps no screen (as Bubble Tea's `nilRenderer`) stands for the
/// terminal. The writes are the app's own: the `n` key, whose insert effect
/// the loop performs.
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
/// its run loop: the loop runs there.
package final class HallOfFameBenchmark: @unchecked Sendable {
    // @unchecked Sendable: the frame and commit logs protect themselves; the
    // loop and its host are only touched on the main queue.

    /// A drawn screen that shows a Hall of Fame: when, and what it showed.
    /// Only the last frame keeps its whole value, so that the log does not
    /// weigh on the peak memory.
    private struct Frame {
        var time: Double
        var playerCount: Int
        var request: WindowRequest
        var hallOfFame: HallOfFame?
    }

    private let path: String
    private let mode: BenchmarkMode
    private let latencySamples: Int
    private let burstSeconds: Double
    private let idleSeconds: Double
    private let sampleBudgetSeconds: Double
    private let log: (String) -> Void

    /// The most inserts in flight during the burst: enough to keep the
    /// writer busy, few enough that the burst ends when its writes do.
    private static let burstInFlight = 4

    private let frames: FrameLog<Frame>
    /// The times of the commits of the database, in order.
    private let commits: FrameLog<Double>

    // Main queue only.
    private var host: BenchmarkHost<HallOfFameProgram>?

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
    package init(
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
        self.sampleBudgetSeconds = sampleBudgetSeconds
        self.log = log
        frames = FrameLog(timeout: frameTimeout) { $0.hallOfFame = nil }
        commits = FrameLog(timeout: frameTimeout)
    }

    /// Runs the measurement. Call it off the main thread.
    ///
    /// - returns: The figures of the mode.
    package func run() throws -> BenchmarkFigures {
        precondition(!Thread.isMainThread, "The app loop runs on the main queue")

        // First frame: open, start the loop (which watches the writes of
        // other processes, as in the app), observe, draw.
        let start = now()
        let appDatabase = try AppDatabase.open(path: path)
        let writer = appDatabase.writer
        // The clock of the commits, the app's included, until it is
        // deinitialized, when `run` returns.
        let commitClock = CommitClock { [weak self] in self?.recordCommit() }
        writer.add(transactionObserver: commitClock)
        onMain {
            self.host = BenchmarkHost(program: self.program(appDatabase), state: .initial(width: 100, height: 30)) { [weak self] state in
                self?.recordFrame(state)
            }
        }
        // On error too: the loop of a failed measurement stops.
        defer {
            onMain {
                self.host?.loop.stop()
                self.host = nil
            }
        }
        let firstFrame = try waitForFrame(after: 0, stage: "first frame") { _, _ in true }
        let firstFrameSeconds = firstFrame.time - start
        log("\(mode): first frame in \(milliseconds(firstFrameSeconds)) ms")

        // No change, no work: the observation must not poll.
        let idleStart = ProcessMetrics.cpuSeconds()
        Thread.sleep(forTimeInterval: idleSeconds)
        let idleCPU = (ProcessMetrics.cpuSeconds() - idleStart) / idleSeconds

        // The players the app inserts from now on are removed at the end.
        let baseCount = try writer.read { db in try AppDatabase.playerCount(db) }
        let baseMaxID = try writer.read { db in try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM player") } ?? 0

        // Sequential single-row writes: the `n` key inserts a player. Each
        // changes the count, so each has its own screen to wait for.
        var latencies: [Double] = []
        let sampling = now()
        for index in 0..<latencySamples {
            if index >= 5 && now() - sampling > sampleBudgetSeconds { break }
            let framesBefore = frameCount()
            let commit = try insertWithKey()
            let expectedCount = baseCount + index + 1
            let frame = try waitForFrame(after: framesBefore, stage: "latency") { frame, _ in
                frame.playerCount == expectedCount
            }
            latencies.append(frame.time - commit)
        }
        let latency = LatencySummary(seconds: latencies)!
        log("\(mode): latency p50 \(milliseconds(latency.p50 / 1000)) ms, p99 \(milliseconds(latency.p99 / 1000)) ms over \(latency.count) writes")

        // Write burst: the `n` key again and again, as a key held down,
        // with a few inserts in flight, while the loop coalesces the values
        // that arrive meanwhile. Each insert makes a new count, so the last
        // drawn value, which must match the database, can only be the one
        // of the last write.
        let framesBeforeBurst = frameCount()
        let commitsBeforeBurst = commitCount()
        let burstStart = now()
        var burstWrites = 0
        while now() - burstStart < burstSeconds {
            DispatchQueue.main.async {
                MainActor.assumeIsolated { self.host?.loop.send(.key(.character("n"))) }
            }
            burstWrites += 1
            if burstWrites > Self.burstInFlight {
                _ = try waitForCommit(after: commitsBeforeBurst + burstWrites - Self.burstInFlight - 1)
            }
        }
        _ = try waitForCommit(after: commitsBeforeBurst + burstWrites - 1)
        let expected = try writer.read { db in try self.expectedValue(db) }
        let lastFrame = try waitForFrame(after: framesBeforeBurst, stage: "burst") { _, last in last == expected }
        let burstScreens = newValueCount(since: framesBeforeBurst, until: lastFrame.time)
        let updatesPerSecond = Double(burstScreens) / (lastFrame.time - burstStart)
        log("\(mode): \(burstScreens) screens for \(burstWrites) writes in the burst")
        // Counted before the write: its value may be on screen before the
        // write returns.
        let framesBeforeCleanUp = frameCount()
        _ = try writer.write { db in
            try db.execute(sql: "DELETE FROM player WHERE id > ?", arguments: [baseMaxID])
        }
        _ = try waitForFrame(after: framesBeforeCleanUp, stage: "clean-up") { frame, _ in frame.playerCount == baseCount }

        // Navigation: the app's own keys, each answered by a new window.
        var navigation: [Double] = []
        if mode == .pipeline {
            for key in [Key.end, .home, .pageDown, .pageDown, .character("o"), .character("o")] {
                let framesBefore = frameCount()
                let pressed = now()
                let request = onMain { () -> WindowRequest? in
                    let loop = self.host!.loop
                    let before = loop.state.observedRequest
                    loop.send(.key(key))
                    let after = loop.state.observedRequest
                    return after != before ? after : nil
                }
                // A move within the window asks for no new window.
                guard let request else { continue }
                let frame = try waitForFrame(after: framesBefore, stage: "navigation") { frame, _ in frame.request == request }
                navigation.append(frame.time - pressed)
            }
        }

        // Closed here, not whenever the last reference goes: the database
        // is free for the next measurement as soon as this one returns.
        onMain {
            self.host?.loop.stop()
            self.host = nil
        }
        withExtendedLifetime(commitClock) { }
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

    /// The Hall of Fame program, with the observation of the mode.
    @MainActor
    private func program(_ appDatabase: AppDatabase) -> HallOfFameProgram {
        var program = HallOfFameProgram(database: appDatabase)
        switch mode {
        case .pipeline:
            break
        case .naive:
            program.observation = { request in
                ValueObservation
                    .trackingConstantRegion { db in try Self.fetchNaive(db, request) }
                    .publisher(in: appDatabase.writer)
            }
        }
        return program
    }

    /// Presses `n`, which inserts a random player, and waits for the
    /// insert to commit.
    ///
    /// - returns: The time of the commit.
    private func insertWithKey() throws -> Double {
        let commitsBefore = commitCount()
        onMain { self.host!.loop.send(.key(.character("n"))) }
        return try waitForCommit(after: commitsBefore)
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

    /// What the screen must eventually show, fetched afresh.
    private func expectedValue(_ db: Database) throws -> HallOfFame {
        let request = onMain { self.host!.loop.state.observedRequest }!
        switch mode {
        case .pipeline: return try HallOfFame.fetch(db, request)
        case .naive: return try Self.fetchNaive(db, request)
        }
    }

    /// Logs a drawn screen that shows a Hall of Fame. An error on the
    /// status line (a failed observation or write) ends the measurement.
    @MainActor
    private func recordFrame(_ state: HallOfFameState) {
        let time = now()
        if let error = state.status.error {
            let failure = BenchmarkError.appError(mode, message: error)
            frames.fail(failure)
            commits.fail(failure)
            return
        }
        guard let hallOfFame = state.hallOfFame else { return }
        frames.append(Frame(
            time: time, playerCount: hallOfFame.playerCount, request: hallOfFame.request, hallOfFame: hallOfFame))
    }

    private func recordCommit() {
        commits.append(now())
    }

    // MARK: - Waiting (benchmark thread)

    private func frameCount() -> Int {
        frames.count
    }

    private func commitCount() -> Int {
        commits.count
    }

    /// The number of frames after the first `index` ones, and until
    /// `time`, that show a new value: another count than the frame before.
    /// The other frames were drawn for a key.
    private func newValueCount(since index: Int, until time: Double) -> Int {
        frames.read(since: index) { before, frames in
            var count = 0
            var previous = before?.playerCount
            for frame in frames where frame.time <= time {
                if frame.playerCount != previous { count += 1 }
                previous = frame.playerCount
            }
            return count
        }
    }

    /// Waits for the commit that follows the first `index` ones.
    ///
    /// - returns: Its time.
    private func waitForCommit(after index: Int) throws -> Double {
        try commits.wait(after: index, orThrow: BenchmarkError.timeout(mode, stage: "commit")) { _, _ in true }
    }

    /// Waits for a frame drawn after the first `index` frames that matches
    /// `predicate`, given the frame and, for the last frame only, its whole
    /// value.
    private func waitForFrame(
        after index: Int,
        stage: String,
        where predicate: (Frame, HallOfFame?) -> Bool) throws -> Frame
    {
        try frames.wait(after: index, orThrow: BenchmarkError.timeout(mode, stage: stage)) { frame, isLast in
            predicate(frame, isLast ? frame.hallOfFame : nil)
        }
    }
}

/// Tells the time of each commit of the writer connection, the app's
/// included.
// @unchecked Sendable: GRDB calls it on the writer's queue only; the
// closure is only read.
private final class CommitClock: TransactionObserver, @unchecked Sendable {
    private let didCommit: () -> Void

    init(_ didCommit: @escaping () -> Void) {
        self.didCommit = didCommit
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }

    func databaseDidChange(with event: DatabaseEvent) { }

    func databaseDidCommit(_ db: Database) {
        didCommit()
    }

    func databaseDidRollback(_ db: Database) { }
}

/// A benchmark that could not complete.
package enum BenchmarkError: Error, CustomStringConvertible {
    /// The observation did not deliver an expected value in time.
    case timeout(BenchmarkMode, stage: String)
    /// The app showed an error: a failed observation or write.
    case appError(BenchmarkMode, message: String)

    /// A one-line description of the error.
    package var description: String {
        switch self {
        case let .timeout(mode, stage):
            return "the \(mode.rawValue) observation did not deliver the expected value in time (\(stage))"
        case let .appError(mode, message):
            return "the app failed during the \(mode.rawValue) measurement: \(message)"
        }
    }
}
