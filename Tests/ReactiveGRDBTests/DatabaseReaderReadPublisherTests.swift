import Foundation
import GRDB
import OpenCombine
import OpenCombineDispatch
import ReactiveGRDB
import XCTest

/// `reader.rx.read(observeOn:value:)` and `reader.readPublisher(receiveOn:value:)`.
final class DatabaseReaderReadPublisherTests: XCTestCase {
    private func setUpOnePlayer(_ db: Database) throws {
        try Player.createTable(db)
        try Player(id: 1, name: "Arthur", score: 1000).insert(db)
    }

    // MARK: - Values and errors

    func testReadPublishesTheValueThenFinishes() {
        forEachSpellingAndReader(setUp: setUpOnePlayer) { spelling, reader, kind in
            let recorder = spelling
                .read(reader) { db in try Player.fetchAll(db) }
                .record()

            let recording = waitForCompletion(of: recorder)
            XCTAssertEqual(recording.values, [[Player(id: 1, name: "Arthur", score: 1000)]], "\(spelling), \(kind)")
            XCTAssertTrue(recording.isFinished, "\(spelling), \(kind)")
        }
    }

    func testReadFailsWithTheSQLError() {
        forEachSpellingAndReader { spelling, reader, kind in
            let recorder = spelling
                .read(reader) { db in try Int.fetchOne(db, sql: "THIS IS NOT SQL") }
                .record()

            let recording = waitForCompletion(of: recorder)
            XCTAssertTrue(recording.values.isEmpty, "\(spelling), \(kind)")
            assertDatabaseError(recording.failure, resultCode: .SQLITE_ERROR, sql: "THIS IS NOT SQL", "\(spelling), \(kind)")
        }
    }

    func testReadIsReadOnly() {
        forEachSpellingAndReader(setUp: setUpOnePlayer) { spelling, reader, kind in
            let recorder = spelling
                .read(reader) { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) }
                .record()

            let recording = waitForCompletion(of: recorder)
            XCTAssertTrue(recording.values.isEmpty, "\(spelling), \(kind)")
            assertDatabaseError(recording.failure, resultCode: .SQLITE_READONLY, "\(spelling), \(kind)")
            try XCTAssertEqual(reader.read { try Player.fetchCount($0) }, 1, "\(spelling), \(kind)")
        }
    }

    func testEachSubscriptionReadsAgain() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let accessCount = Synchronized(0)
            let publisher = spelling.read(writer) { db -> Int in
                accessCount.increment()
                return try Player.fetchCount(db)
            }

            let recording1 = waitForCompletion(of: publisher.record())
            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            let recording2 = waitForCompletion(of: publisher.record())

            XCTAssertEqual(recording1.values, [0], "\(spelling), \(kind)")
            XCTAssertTrue(recording1.isFinished, "\(spelling), \(kind)")
            XCTAssertEqual(recording2.values, [1], "\(spelling), \(kind)")
            XCTAssertTrue(recording2.isFinished, "\(spelling), \(kind)")
            XCTAssertEqual(accessCount.value, 2, "\(spelling), \(kind)")
        }
    }

    // MARK: - Scheduling

    func testReadDeliversAsynchronously() {
        forEachSpellingAndReader(setUp: setUpOnePlayer) { spelling, reader, kind in
            // Subscribed from the main thread, a value published on the main
            // queue can only arrive after this method returns to the run loop.
            let recorder = spelling
                .read(reader) { db in try Player.fetchCount(db) }
                .record()
            XCTAssertTrue(recorder.values.isEmpty, "\(spelling), \(kind)")
            XCTAssertNil(recorder.completion, "\(spelling), \(kind)")

            let recording = waitForCompletion(of: recorder)
            XCTAssertEqual(recording.values, [1], "\(spelling), \(kind)")
            XCTAssertTrue(recording.isFinished, "\(spelling), \(kind)")
        }
    }

    func testDefaultSchedulerDeliversOnTheMainQueue() {
        forEachSpellingAndReader(setUp: setUpOnePlayer) { spelling, reader, kind in
            let onMainThread = Synchronized<[Bool]>([])
            let recorder = Recorder<Int, Error>(onEvent: { _ in
                onMainThread.update { $0.append(Thread.isMainThread) }
            })
            let publisher = spelling.read(reader) { db in try Player.fetchCount(db) }

            // Subscribe from another thread: the main queue is the
            // scheduler's choice, not the subscriber's.
            subscribe(publisher, recorder, from: DispatchQueue.global())

            let recording = waitForCompletion(of: recorder)
            XCTAssertEqual(recording.values, [1], "\(spelling), \(kind)")
            XCTAssertTrue(recording.isFinished, "\(spelling), \(kind)")
            XCTAssertEqual(onMainThread.value, [true, true], "\(spelling), \(kind)")
        }
    }

    func testCustomSchedulerDeliversOnItsQueue() {
        forEachSpellingAndReader(setUp: setUpOnePlayer) { spelling, reader, kind in
            let marker = QueueMarker(label: "custom")
            let onCustomQueue = Synchronized<[Bool]>([])
            let recorder = spelling
                .read(reader, on: marker.queue.ocombine) { db in try Player.fetchCount(db) }
                .record(onEvent: { _ in onCustomQueue.update { $0.append(marker.isCurrent) } })

            let recording = waitForCompletion(of: recorder)
            XCTAssertEqual(recording.values, [1], "\(spelling), \(kind)")
            XCTAssertTrue(recording.isFinished, "\(spelling), \(kind)")
            XCTAssertEqual(onCustomQueue.value, [true, true], "\(spelling), \(kind)")
        }
    }
}
