import Foundation
import GRDB
import OpenCombine
import OpenCombineDispatch
import ReactiveGRDB
import XCTest

/// `writer.rx.write(observeOn:updates:)`, `writer.rx.write(observeOn:updates:thenRead:)`,
/// and their `writePublisher(receiveOn:…)` spellings.
final class DatabaseWriterWritePublisherTests: XCTestCase {

    // MARK: - write(updates:)

    func testWritePublishesTheResultOfUpdatesThenFinishes() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let recorder = spelling
                .write(writer) { db -> Int in
                    try Player(id: 1, name: "Arthur", score: 1000).insert(db)
                    return try Player.fetchCount(db)
                }
                .record()

            let recording = waitForCompletion(of: recorder)
            XCTAssertEqual(recording.values, [1], "\(spelling), \(kind)")
            XCTAssertTrue(recording.isFinished, "\(spelling), \(kind)")
            try XCTAssertEqual(writer.read { try Player.fetchCount($0) }, 1, "\(spelling), \(kind)")
        }
    }

    func testVoidWritePublishesOneValueThenFinishes() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let recorder = spelling
                .write(writer) { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
                .record()

            let recording = waitForCompletion(of: recorder)
            XCTAssertEqual(recording.values.count, 1, "\(spelling), \(kind)")
            XCTAssertTrue(recording.isFinished, "\(spelling), \(kind)")
            try XCTAssertEqual(writer.read { try Player.fetchCount($0) }, 1, "\(spelling), \(kind)")
        }
    }

    func testWriteFailsWithTheSQLError() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let recorder = spelling
                .write(writer) { db in try db.execute(sql: "THIS IS NOT SQL") }
                .record()

            let recording = waitForCompletion(of: recorder)
            XCTAssertTrue(recording.values.isEmpty, "\(spelling), \(kind)")
            assertDatabaseError(recording.failure, resultCode: .SQLITE_ERROR, sql: "THIS IS NOT SQL", "\(spelling), \(kind)")
        }
    }

    func testWriteErrorRollsBackTheTransaction() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let recorder = spelling
                .write(writer) { db in
                    try Player(id: 1, name: "Arthur", score: 1000).insert(db)
                    try db.execute(sql: "THIS IS NOT SQL")
                }
                .record()

            let recording = waitForCompletion(of: recorder)
            XCTAssertTrue(recording.values.isEmpty, "\(spelling), \(kind)")
            assertDatabaseError(recording.failure, resultCode: .SQLITE_ERROR, sql: "THIS IS NOT SQL", "\(spelling), \(kind)")
            try XCTAssertEqual(writer.read { try Player.fetchCount($0) }, 0, "\(spelling), \(kind)")
        }
    }

    func testEachSubscriptionWritesAgain() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let publisher = spelling.write(writer) { db -> Int in
                try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: ["Arthur"])
                return try Player.fetchCount(db)
            }

            let recording1 = waitForCompletion(of: publisher.record())
            let recording2 = waitForCompletion(of: publisher.record())
            XCTAssertEqual(recording1.values, [1], "\(spelling), \(kind)")
            XCTAssertEqual(recording2.values, [2], "\(spelling), \(kind)")
        }
    }

    func testWriteDeliversAsynchronously() {
        forEachSpellingAndWriter { spelling, writer, kind in
            // Subscribed from the main thread, a value published on the main
            // queue can only arrive after this method returns to the run loop.
            let recorder = spelling
                .write(writer) { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
                .record()
            XCTAssertTrue(recorder.values.isEmpty, "\(spelling), \(kind)")
            XCTAssertNil(recorder.completion, "\(spelling), \(kind)")

            let recording = waitForCompletion(of: recorder)
            XCTAssertEqual(recording.values.count, 1, "\(spelling), \(kind)")
            XCTAssertTrue(recording.isFinished, "\(spelling), \(kind)")
        }
    }

    func testWriteDefaultSchedulerDeliversOnTheMainQueue() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let onMainThread = Synchronized<[Bool]>([])
            let recorder = Recorder<Int, Error>(onEvent: { _ in
                onMainThread.update { $0.append(Thread.isMainThread) }
            })
            let publisher = spelling.write(writer) { db -> Int in
                try Player(id: 1, name: "Arthur", score: 1000).insert(db)
                return try Player.fetchCount(db)
            }
            subscribe(publisher, recorder, from: DispatchQueue.global())

            let recording = waitForCompletion(of: recorder)
            XCTAssertEqual(recording.values, [1], "\(spelling), \(kind)")
            XCTAssertTrue(recording.isFinished, "\(spelling), \(kind)")
            XCTAssertEqual(onMainThread.value, [true, true], "\(spelling), \(kind)")
        }
    }

    func testWriteCustomSchedulerDeliversOnItsQueue() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let marker = QueueMarker(label: "custom")
            let onCustomQueue = Synchronized<[Bool]>([])
            let recorder = spelling
                .write(writer, on: marker.queue.ocombine) { db -> Int in
                    try Player(id: 1, name: "Arthur", score: 1000).insert(db)
                    return try Player.fetchCount(db)
                }
                .record(onEvent: { _ in onCustomQueue.update { $0.append(marker.isCurrent) } })

            let recording = waitForCompletion(of: recorder)
            XCTAssertEqual(recording.values, [1], "\(spelling), \(kind)")
            XCTAssertEqual(onCustomQueue.value, [true, true], "\(spelling), \(kind)")
        }
    }

    // MARK: - writeAndReturn (RxGRDB 0.18)

    func testWriteAndReturnPublishesTheResultOfUpdatesOnTheMainQueueThenFinishes() {
        forEachWriter { writer, kind in
            let onMainThread = Synchronized<[Bool]>([])
            let recorder = Recorder<Int, Error>(onEvent: { _ in onMainThread.update { $0.append(Thread.isMainThread) } })
            let publisher = writer.rx.writeAndReturn { db -> Int in
                try Player(id: 1, name: "Arthur", score: 1000).insert(db)
                return try Player.fetchCount(db)
            }
            subscribe(publisher, recorder, from: DispatchQueue.global())
            let recording = waitForCompletion(of: recorder)
            XCTAssertEqual(recording.values, [1], "\(kind)")
            XCTAssertTrue(recording.isFinished, "\(kind)")
            XCTAssertEqual(onMainThread.value, [true, true], "\(kind)")
        }
    }

    func testWriteAndReturnObserveOnDeliversOnItsScheduler() {
        forEachWriter { writer, kind in
            let marker = QueueMarker(label: "custom")
            let onCustomQueue = Synchronized<[Bool]>([])
            let recorder = writer.rx
                .writeAndReturn(observeOn: marker.queue.ocombine) { db -> String in
                    try Player(id: 1, name: "Arthur", score: 1000).insert(db)
                    return "done"
                }
                .record(onEvent: { _ in onCustomQueue.update { $0.append(marker.isCurrent) } })
            let recording = waitForCompletion(of: recorder)
            XCTAssertEqual(recording.values, ["done"], "\(kind)")
            XCTAssertEqual(onCustomQueue.value, [true, true], "\(kind)")
        }
    }

    func testWriteAndReturnErrorRollsBackTheTransaction() {
        forEachWriter { writer, kind in
            let recorder = writer.rx
                .writeAndReturn { db -> Int in
                    try Player(id: 1, name: "Arthur", score: 1000).insert(db)
                    try db.execute(sql: "THIS IS NOT SQL")
                    return 1
                }
                .record()
            let recording = waitForCompletion(of: recorder)
            XCTAssertTrue(recording.values.isEmpty, "\(kind)")
            assertDatabaseError(recording.failure, resultCode: .SQLITE_ERROR, "\(kind)")
            XCTAssertEqual(try writer.read(Player.fetchCount), 0, "\(kind)")
        }
    }

    // MARK: - write(updates:thenRead:)

    func testWriteThenReadPublishesTheReadValueThenFinishes() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let recorder = spelling
                .write(
                    writer,
                    updates: { db -> Int64 in
                        try Player(id: 1, name: "Arthur", score: 1000).insert(db)
                        return 1
                    },
                    thenRead: { db, id -> String? in
                        try Player.fetchOne(db, id: id)?.name
                    })
                .record()

            let recording = waitForCompletion(of: recorder)
            XCTAssertEqual(recording.values, ["Arthur"], "\(spelling), \(kind)")
            XCTAssertTrue(recording.isFinished, "\(spelling), \(kind)")
        }
    }

    func testWriteThenReadIsReadOnly() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let recorder = spelling
                .write(
                    writer,
                    updates: { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) },
                    thenRead: { db, _ in try Player(id: 2, name: "Barbara", score: 750).insert(db) })
                .record()

            let recording = waitForCompletion(of: recorder)
            XCTAssertTrue(recording.values.isEmpty, "\(spelling), \(kind)")
            assertDatabaseError(recording.failure, resultCode: .SQLITE_READONLY, "\(spelling), \(kind)")
            // The updates were committed before the read.
            try XCTAssertEqual(writer.read { try Player.fetchAll($0).map(\.id) }, [1], "\(spelling), \(kind)")
        }
    }

    func testWriteThenReadUpdatesErrorRollsBackAndSkipsTheRead() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let readCount = Synchronized(0)
            let recorder = spelling
                .write(
                    writer,
                    updates: { db in
                        try Player(id: 1, name: "Arthur", score: 1000).insert(db)
                        try db.execute(sql: "THIS IS NOT SQL")
                    },
                    thenRead: { _, _ in readCount.increment() })
                .record()

            let recording = waitForCompletion(of: recorder)
            XCTAssertTrue(recording.values.isEmpty, "\(spelling), \(kind)")
            assertDatabaseError(recording.failure, resultCode: .SQLITE_ERROR, sql: "THIS IS NOT SQL", "\(spelling), \(kind)")
            XCTAssertEqual(readCount.value, 0, "\(spelling), \(kind)")
            try XCTAssertEqual(writer.read { try Player.fetchCount($0) }, 0, "\(spelling), \(kind)")
        }
    }

    func testWriteThenReadFailsWithTheReadSQLError() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let recorder = spelling
                .write(
                    writer,
                    updates: { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) },
                    thenRead: { db, _ in try Int.fetchOne(db, sql: "THIS IS NOT SQL") })
                .record()

            let recording = waitForCompletion(of: recorder)
            XCTAssertTrue(recording.values.isEmpty, "\(spelling), \(kind)")
            assertDatabaseError(recording.failure, resultCode: .SQLITE_ERROR, sql: "THIS IS NOT SQL", "\(spelling), \(kind)")
            try XCTAssertEqual(writer.read { try Player.fetchCount($0) }, 1, "\(spelling), \(kind)")
        }
    }

    func testWriteThenReadDeliversAsynchronously() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let recorder = spelling
                .write(
                    writer,
                    updates: { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) },
                    thenRead: { db, _ in try Player.fetchCount(db) })
                .record()
            XCTAssertTrue(recorder.values.isEmpty, "\(spelling), \(kind)")
            XCTAssertNil(recorder.completion, "\(spelling), \(kind)")

            let recording = waitForCompletion(of: recorder)
            XCTAssertEqual(recording.values, [1], "\(spelling), \(kind)")
            XCTAssertTrue(recording.isFinished, "\(spelling), \(kind)")
        }
    }

    func testWriteThenReadDefaultSchedulerDeliversOnTheMainQueue() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let onMainThread = Synchronized<[Bool]>([])
            let recorder = Recorder<Int, Error>(onEvent: { _ in
                onMainThread.update { $0.append(Thread.isMainThread) }
            })
            let publisher = spelling.write(
                writer,
                updates: { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) },
                thenRead: { db, _ in try Player.fetchCount(db) })
            subscribe(publisher, recorder, from: DispatchQueue.global())

            let recording = waitForCompletion(of: recorder)
            XCTAssertEqual(recording.values, [1], "\(spelling), \(kind)")
            XCTAssertEqual(onMainThread.value, [true, true], "\(spelling), \(kind)")
        }
    }

    func testWriteThenReadCustomSchedulerDeliversOnItsQueue() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let marker = QueueMarker(label: "custom")
            let onCustomQueue = Synchronized<[Bool]>([])
            let recorder = spelling
                .write(
                    writer,
                    on: marker.queue.ocombine,
                    updates: { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) },
                    thenRead: { db, _ in try Player.fetchCount(db) })
                .record(onEvent: { _ in onCustomQueue.update { $0.append(marker.isCurrent) } })

            let recording = waitForCompletion(of: recorder)
            XCTAssertEqual(recording.values, [1], "\(spelling), \(kind)")
            XCTAssertEqual(onCustomQueue.value, [true, true], "\(spelling), \(kind)")
        }
    }

    /// On a pool, `thenRead` reads the state committed by `updates` from a
    /// reader, and the writer is free meanwhile.
    ///
    /// `thenRead` waits for a write issued while it runs: if `thenRead`
    /// held the writer, that write could not complete, and the test would
    /// time out. The read still sees the state left by `updates`, without
    /// the later write.
    func testWriteThenReadOnPoolSeesCommittedStateAndDoesNotBlockLaterWrites() throws {
        for spelling in Spelling.allCases {
            try RecorderScope.run {
                try withTemporaryDirectory { directory in
                    let dbPool = try DatabasePool(path: directory.appendingPathComponent("db.sqlite").path)
                    try dbPool.write(Player.createTable)

                    let readStarted = XCTestExpectation(description: "thenRead started")
                    let laterWriteCommitted = DispatchSemaphore(value: 0)
                    let readSawLaterWriteCommit = Synchronized<Bool?>(nil)
                    let recorder = spelling
                        .write(
                            dbPool,
                            updates: { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) },
                            thenRead: { db, _ -> Int in
                                readStarted.fulfill()
                                let result = laterWriteCommitted.wait(timeout: .now() + defaultTimeout)
                                readSawLaterWriteCommit.update { $0 = (result == .success) }
                                return try Player.fetchCount(db)
                            })
                        .record()
                    waitFor([readStarted], "\(spelling)")

                    let laterWrite = XCTestExpectation(description: "later write")
                    let laterWriteError = Synchronized<Error?>(nil)
                    DispatchQueue.global().async {
                        do {
                            try dbPool.write { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) }
                        } catch {
                            laterWriteError.update { $0 = error }
                        }
                        laterWriteCommitted.signal()
                        laterWrite.fulfill()
                    }
                    waitFor([laterWrite], "\(spelling): the write is blocked by thenRead")

                    let recording = waitForCompletion(of: recorder)
                    XCTAssertNil(laterWriteError.value, "\(spelling)")
                    XCTAssertEqual(readSawLaterWriteCommit.value, true, "\(spelling)")
                    XCTAssertEqual(recording.values, [1], "\(spelling)")
                    XCTAssertTrue(recording.isFinished, "\(spelling)")
                    try XCTAssertEqual(dbPool.read { try Player.fetchCount($0) }, 2, "\(spelling)")
                }
            }
        }
    }
}
