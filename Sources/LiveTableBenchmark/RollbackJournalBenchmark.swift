import Dispatch
import Foundation
import GRDB
import OpenCombine
import ReactiveGRDB
import SQLiteCommandLine

/// The figures of a rollback-journal (DELETE) writer that commits back to
/// back, watched by a subscriber of `includingOtherProcesses()`.
package struct RollbackJournalFigures: Codable, Equatable, Sendable {
    /// The commits of the burst, one transaction each.
    package var commits: Int
    /// The writer's commits per second with nobody watching.
    package var alone_commits_per_s: Double
    /// The writer's commits per second while the subscriber watches.
    package var watched_commits_per_s: Double
    /// How long the watched burst lasted.
    package var burst_s: Double
    /// The values the subscriber received during the burst, and the one
    /// that holds its last commit.
    package var values: Int
    /// The median time from a commit to the first value that holds it.
    package var late_p50_ms: Double
    /// The 99th percentile of the same.
    package var late_p99_ms: Double
    /// The time from the last commit to the value that holds it.
    package var final_ms: Double
    /// Whether the last value holds the last commit.
    package var ends_with_last_commit: Bool
    /// Of `uri_commits` commits, a few milliseconds apart, how many a
    /// subscriber on the same file opened from a `file:` URI saw.
    package var uri_commits_seen: Int
    /// The commits made for the `file:` URI subscriber.
    package var uri_commits: Int

    /// The mean time between two values during the burst.
    package var mean_interval_ms: Double {
        burst_s * 1000 / Double(max(values, 1))
    }

    /// The writer's rate while watched, as a share of its rate alone.
    package var writer_share: Double {
        alone_commits_per_s > 0 ? watched_commits_per_s / alone_commits_per_s : 0
    }

    /// The targets: a value at least every 300 ms on average, the last one
    /// holding the last commit, and the writer at 85% of its rate alone.
    package var targets: [BenchmarkTarget] {
        [
            BenchmarkTarget(
                "a value every ≤ 300 ms on average while a DELETE-journal writer commits back to back",
                mean_interval_ms, " ms", atMost: 300),
            BenchmarkTarget(
                name: "the last value holds the writer's last commit (DELETE, back to back)",
                measured: ends_with_last_commit ? "yes, after " + String(format: "%.2f ms", final_ms) : "no",
                met: ends_with_last_commit),
            BenchmarkTarget(
                "the watched DELETE-journal writer keeps ≥ 85% of its rate alone",
                writer_share * 100, "%", atLeast: 85),
            BenchmarkTarget(
                name: "a database opened from a file: URI (?mode=ro) sees every commit of another process",
                measured: "\(uri_commits_seen) of \(uri_commits)", met: uri_commits_seen == uri_commits),
        ]
    }

    /// The figures as lines of a table, with a header.
    ///
    /// For example:
    ///
    /// ```swift
    /// print(RollbackJournalFigures.table(figures).joined(separator: "\n"))
    /// ```
    package static func table(_ figures: RollbackJournalFigures) -> [String] {
        func pad(_ text: String, _ width: Int) -> String {
            String(repeating: " ", count: max(0, width - text.count)) + text
        }
        let widths = [9, 12, 14, 9, 8, 14, 12, 12, 10]
        let header = ["commits", "alone /s", "watched /s", "burst s", "values", "interval ms", "late p50 ms",
                      "late p99 ms", "last ms"]
        let cells = [
            figures.commits.formatted(), String(format: "%.0f", figures.alone_commits_per_s),
            String(format: "%.0f", figures.watched_commits_per_s), String(format: "%.2f", figures.burst_s),
            "\(figures.values)", String(format: "%.1f", figures.mean_interval_ms),
            String(format: "%.1f", figures.late_p50_ms), String(format: "%.1f", figures.late_p99_ms),
            figures.ends_with_last_commit ? String(format: "%.1f", figures.final_ms) : "never",
        ]
        return [
            "a DELETE-journal writer (sqlite3) committing back to back → subscriber",
            zip(header, widths).map { pad($0, $1) }.joined(),
            zip(cells, widths).map { pad($0, $1) }.joined(),
            "commits seen by a subscriber on the file opened from a file: URI: "
                + "\(figures.uri_commits_seen) of \(figures.uri_commits)",
        ]
    }
}

/// Measures a subscriber of `includingOtherProcesses()` on a
/// rollback-journal (DELETE) file that the `sqlite3` command writes back to
/// back for 2.5 seconds, one row per transaction, with its default `synchronous = FULL`
/// (each commit syncs the file while it holds the lock): how often values
/// come, how late, and how much the reads slow the writer down (its rate
/// alone is measured before and after the watched burst).
///
/// Each row holds the time of its commit, so that the lateness of each
/// commit is known.
///
/// For example:
///
/// ```swift
/// let figures = try RollbackJournalBenchmark(directory: directory).run()
/// ```
package struct RollbackJournalBenchmark: Sendable {
    /// Where the database is made. It is removed at the end.
    package var directory: URL
    /// How long each burst lasts, at least, in seconds.
    package var seconds: Double

    /// Creates a benchmark.
    package init(directory: URL, seconds: Double = 2.5) {
        self.directory = directory
        self.seconds = seconds
    }

    /// Measures the writer alone, watched, and alone again.
    ///
    /// - parameter log: Where to report progress.
    /// - throws: An error if the `sqlite3` command can not run, or the
    ///   first value does not come within 10 seconds.
    package func run(log: (String) -> Void = { _ in }) throws -> RollbackJournalFigures {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("rollback-journal.sqlite").path
        let writer = try SQLiteCommand(path: path)
        defer { writer.close() }
        _ = try writer.run("""
            PRAGMA journal_mode = DELETE;
            CREATE TABLE commitTime(id INTEGER PRIMARY KEY, t REAL NOT NULL);
            """)
        // Each commit writes its own time: seconds since 1970, to the
        // millisecond.
        // Chunks of 50 commits, until the burst has lasted `seconds`: the
        // disk's syncs make 40 to 1,500 commits a second on this machine.
        let chunk = 50
        let inserts = String(
            repeating: "INSERT INTO commitTime(t) VALUES ((julianday('now') - 2440587.5) * 86400.0);\n",
            count: chunk)
        func timedBurst() throws -> (start: Double, end: Double, commits: Int) {
            let start = Date().timeIntervalSince1970
            var commits = 0
            repeat {
                _ = try writer.run(inserts, timeout: 300)
                commits += chunk
            } while Date().timeIntervalSince1970 - start < seconds
            return (start, Date().timeIntervalSince1970, commits)
        }

        log("measuring a DELETE-journal writer alone…")
        let aloneBefore = try timedBurst()

        log("measuring a DELETE-journal writer, watched…")
        let dbQueue = try DatabaseQueue(path: path)
        defer { try? dbQueue.close() }
        let (arrivals, cancellable) = watchCommitCount(of: dbQueue, label: "livetable.bench.rollbackJournal")
        defer { cancellable.cancel() }
        let first = aloneBefore.commits
        guard arrivals.wait(forCount: first, timeout: 10) else {
            throw OtherProcessBenchmarkError("rollback journal: the first value did not come in 10 s")
        }
        let watched = try timedBurst()
        let total = first + watched.commits
        // The last commit comes late, if ever: the figures say how late.
        _ = arrivals.wait(forCount: total, timeout: 10)
        cancellable.cancel()

        log("measuring a DELETE-journal writer alone again…")
        let aloneAfter = try timedBurst()

        log("measuring a subscriber on a file: URI…")
        let uriCommitsSeen = try uriCommits(path: path, writer: writer, rows: total + aloneAfter.commits)

        // The time of each commit of the watched burst, by row count.
        let times = try dbQueue.read { db in
            try Double.fetchAll(db, sql: "SELECT t FROM commitTime WHERE id > ? AND id <= ? ORDER BY id", arguments: [first, total])
        }
        let received = arrivals.values.filter { $0.count > first }
        var lateness: [Double] = []
        var next = received.startIndex
        for (offset, time) in times.enumerated() {
            let count = first + offset + 1
            while next < received.endIndex && received[next].count < count {
                next += 1
            }
            guard next < received.endIndex else { break }
            lateness.append(max(0, received[next].time - time))
        }
        let summary = LatencySummary(seconds: lateness)
        let last = received.last { $0.count == total }
        let aloneSeconds = (aloneBefore.end - aloneBefore.start) + (aloneAfter.end - aloneAfter.start)
        return RollbackJournalFigures(
            commits: watched.commits,
            alone_commits_per_s: Double(aloneBefore.commits + aloneAfter.commits) / aloneSeconds,
            watched_commits_per_s: Double(watched.commits) / (watched.end - watched.start),
            burst_s: watched.end - watched.start,
            values: received.count,
            // No commit seen: as late as the wait for the last one.
            late_p50_ms: summary?.p50 ?? 10_000,
            late_p99_ms: summary?.p99 ?? 10_000,
            final_ms: last.map { max(0, $0.time - (times.last ?? watched.end)) * 1000 } ?? 10_000,
            ends_with_last_commit: last != nil,
            uri_commits_seen: uriCommitsSeen,
            uri_commits: Self.uriCommits)
    }

    private static let uriCommits = 5

    /// A subscriber of `includingOtherProcesses()` to the count of
    /// `commitTime` rows in `dbQueue`, its values gathered in the arrivals.
    private func watchCommitCount(of dbQueue: DatabaseQueue, label: String) -> (BurstArrivals, AnyCancellable) {
        let arrivals = BurstArrivals()
        let cancellable = ValueObservation
            .trackingConstantRegion { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM commitTime")! }
            .publisher(in: dbQueue, scheduling: .async(onQueue: DispatchQueue(label: label)))
            .includingOtherProcesses()
            .sink(receiveCompletion: { _ in }, receiveValue: { arrivals.receive($0) })
        return (arrivals, cancellable)
    }

    /// Commits `uriCommits` times, and counts those that a subscriber on
    /// the file opened from a `file:` URI saw within 2 seconds each.
    private func uriCommits(path: String, writer: SQLiteCommand, rows: Int) throws -> Int {
        let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
        let dbQueue = try DatabaseQueue(path: "file:\(encoded)?mode=ro")
        defer { try? dbQueue.close() }
        let (arrivals, cancellable) = watchCommitCount(of: dbQueue, label: "livetable.bench.uri")
        defer { cancellable.cancel() }
        guard arrivals.wait(forCount: rows, timeout: 10) else {
            throw OtherProcessBenchmarkError("file: URI: the first value did not come in 10 s")
        }
        var seen = 0
        for index in 1...Self.uriCommits {
            _ = try writer.run("INSERT INTO commitTime(t) VALUES (0);")
            if arrivals.wait(forCount: rows + index, timeout: 2) {
                seen += 1
            }
        }
        return seen
    }
}

/// The row counts that reached the subscriber, and when (seconds since 1970).
// @unchecked Sendable: `_values` is only accessed with `condition` locked.
private final class BurstArrivals: @unchecked Sendable {
    private let condition = NSCondition()
    private var _values: [(time: Double, count: Int)] = []

    var values: [(time: Double, count: Int)] {
        condition.lock()
        defer { condition.unlock() }
        return _values
    }

    func receive(_ count: Int) {
        let time = Date().timeIntervalSince1970
        condition.lock()
        _values.append((time, count))
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until a value holds `count` rows: false after `timeout`.
    func wait(forCount count: Int, timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while (_values.last?.count ?? -1) < count {
            guard condition.wait(until: deadline) else { return false }
        }
        return true
    }
}
