import Foundation
import GRDB
import OpenCombine
import OpenCombineDispatch
import ReactiveGRDB
import XCTest

/// `observation.rx.observe(in:scheduling:)` and `observation.publisher(in:scheduling:)`.
final class ValueObservationPublisherTests: XCTestCase {
    private let playerCount = ValueObservation.trackingConstantRegion { db in
        try Player.fetchCount(db)
    }

    // MARK: - Values

    // `playerCount` is a `trackingConstantRegion` observation: the tests of
    // the schedulers are its tests too.
    func testDefaultSchedulerPublishesEachCommittedState() {
        forEachSpellingAndWriter { spelling, writer, kind in
            try assertObservation(
                of: spelling.observe(playerCount, in: writer),
                in: writer, kind: kind, expecting: [0, 1, 3], "\(spelling), \(kind)")
        }
    }

    func testImmediateSchedulerPublishesEachCommittedState() {
        forEachSpellingAndWriter { spelling, writer, kind in
            try assertObservation(
                of: spelling.observe(playerCount, in: writer, scheduling: .immediate),
                in: writer, kind: kind, expecting: [0, 1, 3], "\(spelling), \(kind)")
        }
    }

    func testCustomSchedulerPublishesEachCommittedState() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let queue = DispatchQueue(label: "custom")
            try assertObservation(
                of: spelling.observe(playerCount, in: writer, scheduling: .async(onQueue: queue)),
                in: writer, kind: kind, expecting: [0, 1, 3], "\(spelling), \(kind)")
        }
    }

    func testObservationFailsWithTheSQLError() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let observation = ValueObservation.trackingConstantRegion { db in
                try Int.fetchOne(db, sql: "THIS IS NOT SQL")
            }
            for recorder in [
                spelling.observe(observation, in: writer).record(),
                spelling.observe(observation, in: writer, scheduling: .immediate).record(),
            ] {
                let recording = waitForCompletion(of: recorder)
                XCTAssertTrue(recording.values.isEmpty, "\(spelling), \(kind)")
                assertDatabaseError(recording.failure, resultCode: .SQLITE_ERROR, sql: "THIS IS NOT SQL", "\(spelling), \(kind)")
            }
        }
    }

    func testFailedObservationReleasesItsDatabase() throws {
        // The observation fails at the first player.
        let observation = ValueObservation.trackingConstantRegion { db -> Int in
            let count = try Player.fetchCount(db)
            if count > 0 { throw DatabaseError(message: "no player allowed") }
            return count
        }
        for spelling in Spelling.allCases {
            for kind in [DatabaseKind.inMemoryQueue, .pool] {
                try withTemporaryDirectory { directory in
                    weak var weakWriter: (any DatabaseWriter)?
                    let recorder = try { () -> Recorder<Int, Error> in
                        let writer: any DatabaseWriter = kind == .pool
                            ? try DatabasePool(path: directory.appendingPathComponent("db.sqlite").path)
                            : try DatabaseQueue()
                        try writer.write(Player.createTable)
                        weakWriter = writer
                        return spelling.observe(observation, in: writer).record()
                    }()
                    wait(for: recorder, valueCount: 1)

                    // The subscription retains the database while it observes.
                    try XCTUnwrap(weakWriter, "\(spelling), \(kind): released while observed")
                        .write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
                    let recording = waitForCompletion(of: recorder)
                    XCTAssertNotNil(recording.failure, "\(spelling), \(kind)")

                    // The recorder still holds the subscription: the failed
                    // subscription has released the database.
                    let released = XCTNSPredicateExpectation(predicate: NSPredicate { _, _ in weakWriter == nil }, object: nil)
                    waitFor([released], "\(spelling), \(kind): retained after failure")
                    withExtendedLifetime(recorder) { }
                }
            }
        }
    }

    // MARK: - Scheduling

    func testDefaultSchedulerDeliversAsynchronously() {
        forEachSpellingAndWriter { spelling, writer, kind in
            // Subscribed from the main thread, a value published on the main
            // queue can only arrive after this method returns to the run loop.
            let recorder = spelling.observe(playerCount, in: writer).record()
            XCTAssertTrue(recorder.values.isEmpty, "\(spelling), \(kind)")

            let recording = wait(for: recorder, valueCount: 1)
            XCTAssertTrue(recording.values.allSatisfy { $0 == 0 }, "\(spelling), \(kind): \(recording.values)")
        }
    }

    func testDefaultSchedulerDeliversOnTheMainQueue() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let onMainThread = Synchronized<[Bool]>([])
            let recorder = Recorder<Int, Error>(onEvent: { _ in
                onMainThread.update { $0.append(Thread.isMainThread) }
            })
            subscribe(spelling.observe(playerCount, in: writer), recorder, from: DispatchQueue.global())
            wait(for: recorder, valueCount: 1)

            try insertOneThenTwoPlayers(writer)
            let recording = wait(for: recorder, until: { $0.values.last == 3 })
            XCTAssertTrue(isValueObservationRecording(recording.values, matching: [0, 1, 3]), "\(spelling), \(kind): \(recording.values)")
            XCTAssertEqual(onMainThread.value, Array(repeating: true, count: recording.values.count), "\(spelling), \(kind)")
        }
    }

    func testCustomSchedulerDeliversOnItsQueue() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let marker = QueueMarker(label: "custom")
            let onCustomQueue = Synchronized<[Bool]>([])
            let recorder = spelling
                .observe(playerCount, in: writer, scheduling: .async(onQueue: marker.queue))
                .record(onEvent: { _ in onCustomQueue.update { $0.append(marker.isCurrent) } })
            wait(for: recorder, valueCount: 1)

            try insertOneThenTwoPlayers(writer)
            let recording = wait(for: recorder, until: { $0.values.last == 3 })
            XCTAssertTrue(isValueObservationRecording(recording.values, matching: [0, 1, 3]), "\(spelling), \(kind): \(recording.values)")
            // The queue runs beside the test: a pool's trailing repeated
            // value may be on its way while the recording is read.
            XCTAssertTrue(onCustomQueue.value.allSatisfy { $0 }, "\(spelling), \(kind)")
            XCTAssertGreaterThanOrEqual(onCustomQueue.value.count, recording.values.count, "\(spelling), \(kind)")
        }
    }

    /// RxGRDB 0.18: "All elements are emitted on the main queue by default,
    /// unless you provide a specific scheduler to the `observeOn` argument."
    func testObserveOnDeliversEveryValueOnTheScheduler() {
        forEachWriter { writer, kind in
            let marker = QueueMarker(label: "custom")
            let onCustomQueue = Synchronized<[Bool]>([])
            let recorder = playerCount
                .rx.observe(in: writer, observeOn: marker.queue.ocombine)
                .record(onEvent: { _ in onCustomQueue.update { $0.append(marker.isCurrent) } })
            let distinct = playerCount
                .removeDuplicates()
                .rx.observe(in: writer, observeOn: marker.queue.ocombine)
                .record(onEvent: { _ in onCustomQueue.update { $0.append(marker.isCurrent) } })
            wait(for: recorder, valueCount: 1)
            wait(for: distinct, valueCount: 1)

            try insertOneThenTwoPlayers(writer)
            let recording = wait(for: recorder, until: { $0.values.last == 3 })
            XCTAssertTrue(isValueObservationRecording(recording.values, matching: [0, 1, 3]), "\(kind): \(recording.values)")
            let distinctValues = wait(for: distinct, until: { $0.values.last == 3 }).values
            XCTAssertTrue(isValueObservationRecording(distinctValues, matching: [0, 1, 3]), "\(kind): \(distinctValues)")
            XCTAssertFalse(zip(distinctValues, distinctValues.dropFirst()).contains { $0 == $1 }, "\(kind): \(distinctValues)")
            XCTAssertTrue(onCustomQueue.value.allSatisfy { $0 }, "\(kind)")
        }
    }

    func testImmediateSchedulerDeliversTheFirstValueDuringSubscription() {
        forEachSpellingAndWriter { spelling, writer, kind in
            XCTAssertTrue(Thread.isMainThread)
            let onMainThread = Synchronized<[Bool]>([])
            let recorder = spelling
                .observe(playerCount, in: writer, scheduling: .immediate)
                .record(onEvent: { _ in onMainThread.update { $0.append(Thread.isMainThread) } })
            XCTAssertEqual(recorder.values, [0], "\(spelling), \(kind)")

            // Further values are published on the main queue.
            try insertOneThenTwoPlayers(writer)
            let recording = wait(for: recorder, until: { $0.values.last == 3 })
            XCTAssertTrue(isValueObservationRecording(recording.values, matching: [0, 1, 3]), "\(spelling), \(kind): \(recording.values)")
            XCTAssertEqual(onMainThread.value, Array(repeating: true, count: recording.values.count), "\(spelling), \(kind)")
        }
    }

    func testImmediateSchedulerDeliversTheFirstValueAtTheFirstDemand() {
        forEachSpellingAndWriter { spelling, writer, kind in
            XCTAssertTrue(Thread.isMainThread)
            let recorder = spelling
                .observe(playerCount, in: writer, scheduling: .immediate)
                .record(initialDemand: .none)
            XCTAssertTrue(recorder.values.isEmpty, "\(spelling), \(kind)")

            recorder.request(.max(1))
            XCTAssertEqual(recorder.values, [0], "\(spelling), \(kind)")
        }
    }

    // MARK: - ValueObservation building blocks

    func testTracking() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let observation = ValueObservation.tracking { db in try Player.fetchCount(db) }
            try assertObservation(
                of: spelling.observe(observation, in: writer),
                in: writer, kind: kind, expecting: [0, 1, 3], "\(spelling), \(kind)")
        }
    }

    func testTrackingFollowsAVaryingRegion() {
        // The observed table is chosen by the content of another table.
        let setUp: (Database) throws -> Void = { db in
            try Player.createTable(db)
            try db.create(table: "preference") { t in
                t.column("observesPlayers", .boolean).notNull()
            }
            try db.execute(sql: "INSERT INTO preference VALUES (0)")
        }
        forEachSpellingAndWriter(setUp: setUp) { spelling, writer, kind in
            let observation = ValueObservation.tracking { db -> Int in
                let observesPlayers = try Bool.fetchOne(db, sql: "SELECT observesPlayers FROM preference")!
                return observesPlayers ? try Player.fetchCount(db) : -1
            }
            try assertObservation(
                of: spelling.observe(observation, in: writer),
                in: writer, kind: kind, expecting: [-1, 0, 1], "\(spelling), \(kind)",
                changes: { writer in
                    try writer.write { db in try db.execute(sql: "UPDATE preference SET observesPlayers = 1") }
                    try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
                })
        }
    }

    func testTrackingRegions() {
        forEachSpellingAndWriter { spelling, writer, kind in
            // The region is given, not inferred from the fetch.
            let observation = ValueObservation.tracking(
                regions: [Table("player")],
                fetch: { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")! })
            try assertObservation(
                of: spelling.observe(observation, in: writer),
                in: writer, kind: kind, expecting: [0, 1, 3], "\(spelling), \(kind)")
        }
    }

    func testTrackingRequestsAndFetch() {
        // RxGRDB 0.18's spelling: the regions of requests, and a fetch.
        forEachSpellingAndWriter(setUp: { db in
            try Player.createTable(db)
            try db.create(table: "team") { t in t.autoIncrementedPrimaryKey("id") }
        }) { spelling, writer, kind in
            let observation = ValueObservation.tracking(Player.all(), fetch: { db -> ([String], Int) in
                let names = try String.fetchAll(db, sql: "SELECT name FROM player ORDER BY id")
                let teamCount = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM team")!
                return (names, teamCount)
            })
            let recorder = spelling.observe(observation, in: writer).map { "\($0.0) \($0.1)" }.record()
            // A pool publishes its initial value twice.
            let initial = kind == .pool ? ["[] 0", "[] 0"] : ["[] 0"]
            wait(for: recorder, valueCount: initial.count)
            // The team table is read, not tracked: "[] 1" is never published.
            try writer.write { db in try db.execute(sql: "INSERT INTO team DEFAULT VALUES") }
            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            let recording = wait(for: recorder, valueCount: initial.count + 1)
            XCTAssertEqual(recording.values, initial + ["[\"Arthur\"] 1"], "\(spelling), \(kind)")
        }
    }

    func testMap() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let observation = playerCount.map { "\($0) players" }
            try assertObservation(
                of: spelling.observe(observation, in: writer),
                in: writer, kind: kind, expecting: ["0 players", "1 players", "3 players"], "\(spelling), \(kind)")
        }
    }

    func testRemoveDuplicates() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let totalScore = ValueObservation.trackingConstantRegion { db in
                try Int.fetchOne(db, sql: "SELECT IFNULL(SUM(score), 0) FROM player")!
            }

            // Inserts a player, then performs an update that does not change
            // the total score, then inserts another player.
            func insertThenUpdateThenInsert(_ recorder: Recorder<Int, Error>) throws -> [Int] {
                let initial = wait(for: recorder, valueCount: 1).values[0]
                try writer.write { db in
                    try db.execute(sql: "INSERT INTO player (name, score) VALUES ('Arthur', 1000)")
                }
                wait(for: recorder, until: { $0.values.last == initial + 1000 })
                try writer.write { db in try db.execute(sql: "UPDATE player SET score = score") }
                try writer.write { db in
                    try db.execute(sql: "INSERT INTO player (name, score) VALUES ('Barbara', 750)")
                }
                return wait(for: recorder, until: { $0.values.last == initial + 1750 }).values
            }

            let deduplicated = try insertThenUpdateThenInsert(
                spelling.observe(totalScore.removeDuplicates(), in: writer).record())
            XCTAssertEqual(deduplicated, [0, 1000, 1750], "\(spelling), \(kind)")

            if kind != .pool {
                // Without removeDuplicates, the update is notified.
                let notDeduplicated = try insertThenUpdateThenInsert(
                    spelling.observe(totalScore, in: writer).record())
                XCTAssertEqual(notDeduplicated, [1750, 2750, 2750, 3500], "\(spelling), \(kind)")
            }
        }
    }

    func testHandleEvents() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let willStartCount = Synchronized(0)
            let receivedValues = Synchronized<[Int]>([])
            let didCancelCount = Synchronized(0)
            let didFailCount = Synchronized(0)
            let observation = playerCount.handleEvents(
                willStart: { willStartCount.increment() },
                didReceiveValue: { value in receivedValues.update { $0.append(value) } },
                didFail: { _ in didFailCount.increment() },
                didCancel: { didCancelCount.increment() })
            let publisher = spelling.observe(observation, in: writer)
            XCTAssertEqual(willStartCount.value, 0, "\(spelling), \(kind)")

            let recorder = publisher.record()
            XCTAssertEqual(willStartCount.value, 1, "\(spelling), \(kind)")
            wait(for: recorder, valueCount: 1)
            try insertOneThenTwoPlayers(writer)
            let recording = wait(for: recorder, until: { $0.values.last == 3 })
            XCTAssertTrue(isValueObservationRecording(recording.values, matching: [0, 1, 3]), "\(spelling), \(kind): \(recording.values)")
            // Each value was received by the observation before it was
            // published. A pool may fetch once more after the last commit: that
            // trailing value can be received while its delivery still waits
            // for the main queue.
            switch kind {
            case .pool:
                XCTAssertTrue(receivedValues.value.starts(with: recording.values), "\(spelling), \(kind): \(receivedValues.value)")
                XCTAssertTrue(receivedValues.value.dropFirst(recording.values.count).allSatisfy { $0 == 3 }, "\(spelling), \(kind): \(receivedValues.value)")
            case .inMemoryQueue, .onDiskQueue, .snapshot:
                XCTAssertEqual(receivedValues.value, recording.values, "\(spelling), \(kind)")
            }

            recorder.cancel()
            XCTAssertEqual(willStartCount.value, 1, "\(spelling), \(kind)")
            XCTAssertEqual(didCancelCount.value, 1, "\(spelling), \(kind)")
            XCTAssertEqual(didFailCount.value, 0, "\(spelling), \(kind)")
        }
    }
}
