import Foundation
import GRDB
import OpenCombine
import XCTest
@testable import LiveTableCore
@testable import ReactiveGRDB
import LiveTableTestSupport

/// `AppDatabase.observeExternalChanges()`: the changes that other
/// connections commit reach the observations.
///
/// The other connection is a second GRDB connection to the same file: to
/// SQLite, whose `data_version` tells the changes apart, it is the same as
/// another process. The end-to-end tests write with the `sqlite3` command.
final class ExternalChangesTests: XCTestCase {
    private let request = WindowRequest(ordering: .byScore, anchor: .first, before: 0, after: 10)

    func testInsertsUpdatesAndDeletesOfAnotherConnectionAreObserved() throws {
        try forEachFileDatabase { appDatabase, other, kind in
            let watch = appDatabase.observeExternalChanges()
            let recorder = Recorder(appDatabase.observeHallOfFame(request))
            waitUntil("first value, \(kind)") { recorder.values.count == 1 }

            let steps = [
                "INSERT INTO player(name, score) VALUES ('Zoé', 500), ('Arthur', 200)",
                "UPDATE player SET score = 900 WHERE name = 'Arthur'",
                "DELETE FROM player WHERE name = 'Zoé'",
            ]
            var expected = [try HallOfFameModel.hallOfFame(appDatabase.allPlayers(), request)]
            for (index, sql) in steps.enumerated() {
                try other.write { db in try db.execute(sql: sql) }
                expected.append(try HallOfFameModel.hallOfFame(appDatabase.allPlayers(), request))
                waitUntil("\(sql), \(kind)") { recorder.values.count == index + 2 }
            }
            XCTAssertEqual(recorder.values.map(\.withoutRank), expected, "\(kind)")
            XCTAssertEqual(recorder.values.last?.players.map(\.name), ["Arthur"], "\(kind)")
            XCTAssertNil(recorder.completion, "\(kind)")
            recorder.cancel()
            watch.cancel()
        }
    }

    func testOwnWritesAreNotNotifiedAgain() throws {
        try forEachFileDatabase { appDatabase, other, kind in
            // The observation counts its fetches: GRDB fetches once after
            // each own transaction, and the watch once after each commit
            // of another connection (on a pool too, issue 25).
            let fetches = Counter()
            let recorder = Recorder(ValueObservation
                .trackingConstantRegion { db in try AppDatabase.playerCount(db) }
                .handleEvents(willFetch: { fetches.increment() })
                .rx.observe(in: appDatabase.writer)
                .includingOtherProcesses()
                .removeDuplicates())
            waitUntil("first value, \(kind)") { recorder.values == [0] }
            spinMainRunLoop(seconds: 0.3)
            let initialFetches = fetches.value

            try appDatabase.writer.write { db in _ = try appDatabase.insertRandomPlayer(db) }
            waitUntil("own insert, \(kind)") { recorder.values == [0, 1] }
            // The checks after the own write did not take it for another
            // connection's.
            spinMainRunLoop(seconds: 0.3)
            XCTAssertEqual(fetches.value - initialFetches, 1, "\(kind)")

            try other.write { db in try db.execute(sql: "INSERT INTO player(name, score) VALUES ('Zoé', 500)") }
            waitUntil("other insert, \(kind)") { recorder.values == [0, 1, 2] }
            // The later checks do not notify the same change again.
            spinMainRunLoop(seconds: 0.3)
            XCTAssertEqual(fetches.value - initialFetches, 2, "\(kind)")
            recorder.cancel()
        }
    }

    func testWithoutWatchingOtherConnectionsAreNotSeenUntilAnOwnWrite() throws {
        // What `observeExternalChanges()` is for: GRDB alone sees the
        // change of another connection only when the app writes.
        try forEachFileDatabase { appDatabase, other, kind in
            let observation = ValueObservation.trackingConstantRegion { db in try AppDatabase.playerCount(db) }
            let recorder = Recorder(observation.rx.observe(in: appDatabase.writer))
            // Once the first value is there, a pool has queued on its
            // writer the fetch that starts observing: the write below
            // comes after it.
            waitUntil("first value, \(kind)") { !recorder.values.isEmpty }
            try appDatabase.writer.write { db in _ = try appDatabase.insertRandomPlayer(db) }
            waitUntil("own insert, \(kind)") { recorder.values.last == 1 }
            try other.write { db in try db.execute(sql: "INSERT INTO player(name, score) VALUES ('Zoé', 500)") }
            try appDatabase.writer.write { db in _ = try appDatabase.insertRandomPlayer(db) }
            waitUntil("next own insert, \(kind)") { recorder.values.last == 3 }
            XCTAssertFalse(recorder.values.contains(2), "\(kind): \(recorder.values)")
            recorder.cancel()
        }
    }

    func testDatabaseInMemoryIsObservedAsUsual() throws {
        let appDatabase = try AppDatabase(DatabaseQueue())
        let watch = appDatabase.observeExternalChanges()
        let recorder = Recorder(appDatabase.observeHallOfFame(request))
        waitUntil("first value") { recorder.values.count == 1 }
        try appDatabase.writer.write { db in _ = try appDatabase.insertRandomPlayer(db) }
        waitUntil("own insert") { recorder.values.last?.playerCount == 1 }
        XCTAssertNil(recorder.completion)
        recorder.cancel()
        watch.cancel()
    }

    func testPollingFallbackIsReportedOnceForAllWindows() throws {
        CommitWatch.makeFileChangeSource = { directory, _, _, _ in
            // What inotify_add_watch says when the limit of watches is reached.
            throw FileChangeSourceError(path: directory, code: ENOSPC)
        }
        defer {
            CommitWatch.makeFileChangeSource = { directory, names, queue, onChange in
                try FileChangeSource(directory: directory, names: names, queue: queue, onChange: onChange)
            }
        }
        try forEachFileDatabase { appDatabase, other, kind in
            let reasons = Reasons()
            let watch = appDatabase.observeExternalChanges(onPollingFallback: { reasons.append($0) })
            // Each window of the app is a new subscription.
            for _ in 0..<3 {
                let recorder = Recorder(appDatabase.observeHallOfFame(request))
                waitUntil("value, \(kind)") { recorder.values.count == 1 }
                recorder.cancel()
            }
            let recorder = Recorder(appDatabase.observeHallOfFame(request))
            waitUntil("value, \(kind)") { recorder.values.count == 1 }
            // Polled: another connection's insert still shows.
            try other.write { db in try db.execute(sql: "INSERT INTO player(name, score) VALUES ('Zoé', 500)") }
            waitUntil("other insert, \(kind)") { recorder.values.last?.playerCount == 1 }
            spinMainRunLoop(seconds: 0.2)
            XCTAssertEqual(reasons.values.count, 1, "\(kind)")
            XCTAssertTrue(reasons.values.first?.hasSuffix("checking every 100 ms instead") == true, "\(kind): \(reasons.values)")
            recorder.cancel()
            watch.cancel()
        }
    }

    // MARK: - Support

    /// Runs the main run loop for a while, to see that something does not
    /// happen.
    private func spinMainRunLoop(seconds: TimeInterval) {
        RunLoop.main.run(until: Date(timeIntervalSinceNow: seconds))
    }

    /// Runs `body` for each kind of database in a file, with a second
    /// connection to the same file.
    private func forEachFileDatabase(
        file: StaticString = #filePath, line: UInt = #line,
        _ body: (AppDatabase, DatabaseQueue, DatabaseKind) throws -> Void) throws
    {
        for kind in [DatabaseKind.onDiskQueue, .pool] {
            let directory = try makeTemporaryDirectory()
            let writer = try kind.makeWriter(in: directory)
            let appDatabase = try AppDatabase(writer, seed: 1)
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            let other = try DatabaseQueue(path: writer.path, configuration: configuration)
            do {
                try body(appDatabase, other, kind)
            } catch {
                XCTFail("\(kind): \(error)", file: file, line: line)
            }
            try other.close()
        }
    }
}

/// A counter shared with the queues that increment it.
// @unchecked Sendable: `count` is only accessed with `lock` held.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    var value: Int { lock.withLock { count } }

    func increment() {
        lock.withLock { count += 1 }
    }
}

/// The reasons of the polling fallbacks, from the queues that report them.
// @unchecked Sendable: `reasons` is only accessed with `lock` held.
private final class Reasons: @unchecked Sendable {
    private let lock = NSLock()
    private var reasons: [String] = []

    var values: [String] { lock.withLock { reasons } }

    func append(_ reason: String) {
        lock.withLock { reasons.append(reason) }
    }
}
