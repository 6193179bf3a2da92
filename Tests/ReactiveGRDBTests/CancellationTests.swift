import Foundation
import GRDB
import OpenCombine
import ReactiveGRDB
import XCTest

/// After cancellation, publishers deliver nothing, stop accessing the
/// database, and release their database observation.
final class CancellationTests: XCTestCase {
    /// An object that tells when it is deallocated.
    private final class Token: Sendable {
        let expectation: XCTestExpectation

        init(expectation: XCTestExpectation = XCTestExpectation(description: "Token deallocated")) {
            self.expectation = expectation
        }

        deinit { expectation.fulfill() }
    }

    // MARK: - Read and write publishers

    func testCancelledReadDeliversNothing() {
        forEachSpellingAndWriter { spelling, writer, kind in
            // The scheduler queue is suspended until cancellation, so that
            // the result is scheduled, but not delivered, before cancellation.
            let queue = DispatchQueue(label: "results")
            let scheduler = CountingScheduler(queue: queue)
            queue.suspend()
            let readCount = Synchronized(0)
            let recorder = spelling
                .read(writer, on: scheduler) { db -> Int in
                    readCount.increment()
                    return try Player.fetchCount(db)
                }
                .record()
            wait(for: scheduler.scheduledCount, until: { $0 >= 1 })

            recorder.cancel()
            queue.resume()
            wait(for: scheduler.executedCount, until: { $0 >= 1 })
            XCTAssertTrue(recorder.values.isEmpty, "\(spelling), \(kind)")
            XCTAssertNil(recorder.completion, "\(spelling), \(kind)")

            // Requesting after cancellation does not read again.
            recorder.request(.max(1))
            waitForCompletion(of: spelling.write(writer) { _ in }.record())
            XCTAssertEqual(readCount.value, 1, "\(spelling), \(kind)")
        }
    }

    func testCancelledWriteDeliversNothing() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let queue = DispatchQueue(label: "results")
            let scheduler = CountingScheduler(queue: queue)
            queue.suspend()
            let recorder = spelling
                .write(writer, on: scheduler) { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
                .record()
            let thenReadRecorder = spelling
                .write(
                    writer,
                    on: scheduler,
                    updates: { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) },
                    thenRead: { db, _ in try Player.fetchCount(db) })
                .record()

            // The results are scheduled, but not delivered, before
            // cancellation.
            wait(for: scheduler.scheduledCount, until: { $0 >= 2 })
            recorder.cancel()
            thenReadRecorder.cancel()
            queue.resume()
            wait(for: scheduler.executedCount, until: { $0 >= 2 })
            XCTAssertTrue(recorder.values.isEmpty && recorder.completion == nil, "\(spelling), \(kind)")
            XCTAssertTrue(thenReadRecorder.values.isEmpty && thenReadRecorder.completion == nil, "\(spelling), \(kind)")
            // A write that has started is not interrupted.
            try XCTAssertEqual(writer.read { try Player.fetchCount($0) }, 2, "\(spelling), \(kind)")
        }
    }

    func testReadOrWriteCancelledWhileReceivingItsValueDoesNotComplete() {
        forEachSpellingAndWriter { spelling, writer, kind in
            for access in OneValueAccess.allCases {
                let scheduler = CountingScheduler(queue: DispatchQueue(label: "results"))
                let recorder = spelling
                    .publisher(of: access, in: writer, on: scheduler) { db in try Player.fetchCount(db) }
                    .record(onValue: { recorder, _ in
                        recorder.cancel()
                        return .none
                    })

                wait(for: scheduler.executedCount, until: { $0 >= 1 })
                XCTAssertEqual(recorder.values, [0], "\(access), \(spelling), \(kind)")
                XCTAssertTrue(recorder.completions.isEmpty, "\(access), \(spelling), \(kind)")
            }
        }
    }

    func testReadOrWriteCancelledFromAnotherThreadWhileDeliveringDoesNotComplete() {
        forEachSpellingAndWriter { spelling, writer, kind in
            for access in OneValueAccess.allCases {
                // The subscriber receives the value on the scheduler's queue,
                // and waits there until this thread has cancelled.
                let receiving = DispatchSemaphore(value: 0)
                let cancelled = DispatchSemaphore(value: 0)
                let scheduler = CountingScheduler(queue: DispatchQueue(label: "results"))
                let recorder = spelling
                    .publisher(of: access, in: writer, on: scheduler) { db in try Player.fetchCount(db) }
                    .record(onValue: { _, _ in
                        receiving.signal()
                        _ = cancelled.wait(timeout: .now() + defaultTimeout)
                        return .none
                    })

                XCTAssertEqual(receiving.wait(timeout: .now() + defaultTimeout), .success, "\(access), \(spelling), \(kind)")
                recorder.cancel()
                cancelled.signal()
                wait(for: scheduler.executedCount, until: { $0 >= 1 })
                XCTAssertEqual(recorder.values, [0], "\(access), \(spelling), \(kind)")
                XCTAssertTrue(recorder.completions.isEmpty, "\(access), \(spelling), \(kind)")
            }
        }
    }

    func testReadOrWriteCancelledDuringItsDatabaseAccessSchedulesNothingAndReleasesItsValue() {
        forEachSpellingAndWriter { spelling, writer, kind in
            for access in OneValueAccess.allCases {
                // The scheduler's queue stays suspended: a scheduled result
                // would be retained until the end of the test.
                let queue = DispatchQueue(label: "results")
                queue.suspend()
                defer { queue.resume() }
                let scheduler = CountingScheduler(queue: queue)

                // The database access waits until this thread has cancelled.
                let accessing = DispatchSemaphore(value: 0)
                let cancelled = DispatchSemaphore(value: 0)
                let tokenDeallocated = XCTestExpectation(description: "Token deallocated")
                let recorder = spelling
                    .publisher(of: access, in: writer, on: scheduler) { _ in
                        accessing.signal()
                        _ = cancelled.wait(timeout: .now() + defaultTimeout)
                        return Token(expectation: tokenDeallocated)
                    }
                    .record()

                XCTAssertEqual(accessing.wait(timeout: .now() + defaultTimeout), .success, "\(access), \(spelling), \(kind)")
                recorder.cancel()
                cancelled.signal()
                waitFor([tokenDeallocated], "\(access), \(spelling), \(kind)")
                XCTAssertEqual(scheduler.scheduledCount.value, 0, "\(access), \(spelling), \(kind)")
                XCTAssertTrue(recorder.events.isEmpty, "\(access), \(spelling), \(kind)")
            }
        }
    }

    // MARK: - ValueObservation

    func testCancelledObservationStopsAndIsReleased() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let willFetchCount = Synchronized(0)
            let databaseDidChangeCount = Synchronized(0)
            let didCancelCount = Synchronized(0)
            // Only the observation retains the token.
            let (recorder, tokenDeallocated) = { () -> (Recorder<Int, Error>, XCTestExpectation) in
                let token = Token()
                let observation = ValueObservation
                    .trackingConstantRegion { [token] db in
                        withExtendedLifetime(token) { }
                        return try Player.fetchCount(db)
                    }
                    .removeDuplicates()
                    .handleEvents(
                        willFetch: { willFetchCount.increment() },
                        databaseDidChange: { databaseDidChangeCount.increment() },
                        didCancel: { didCancelCount.increment() })
                return (spelling.observe(observation, in: writer).record(), token.expectation)
            }()
            wait(for: recorder, valueCount: 1)
            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            wait(for: recorder, until: { $0.values.last == 1 })

            recorder.cancel()
            XCTAssertEqual(didCancelCount.value, 1, "\(spelling), \(kind)")
            let changeCountAtCancellation = databaseDidChangeCount.value
            let fetchCountAtCancellation = willFetchCount.value

            // The observation is notified of commits synchronously: after
            // the write, it would have known.
            try writer.write { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) }
            XCTAssertEqual(databaseDidChangeCount.value, changeCountAtCancellation, "\(spelling), \(kind)")
            XCTAssertEqual(willFetchCount.value, fetchCountAtCancellation, "\(spelling), \(kind)")

            // The observation and its fetch closure are released.
            waitFor([tokenDeallocated], "\(spelling), \(kind)")
            XCTAssertEqual(recorder.values, [0, 1], "\(spelling), \(kind)")
            XCTAssertNil(recorder.completion, "\(spelling), \(kind)")

            // Requesting after cancellation does not restart the observation.
            recorder.request(.max(1))
            try writer.write { db in try Player(id: 3, name: "Craig", score: 500).insert(db) }
            XCTAssertEqual(databaseDidChangeCount.value, changeCountAtCancellation, "\(spelling), \(kind)")
            XCTAssertEqual(didCancelCount.value, 1, "\(spelling), \(kind)")
        }
    }

    func testObservationCancelledWhileReceivingAValueIsReleased() {
        forEachSpellingAndWriter { spelling, writer, kind in
            // Only the observation retains the token.
            let (recorder, tokenDeallocated) = { () -> (Recorder<Int, Error>, XCTestExpectation) in
                let token = Token()
                let observation = ValueObservation.trackingConstantRegion { [token] db in
                    withExtendedLifetime(token) { }
                    return try Player.fetchCount(db)
                }
                let recorder = spelling.observe(observation, in: writer).record(onValue: { recorder, _ in
                    recorder.cancel()
                    return .max(1)
                })
                return (recorder, token.expectation)
            }()

            // The subscription stays finished after the value, whatever the
            // demand the subscriber returns.
            waitFor([tokenDeallocated], "\(spelling), \(kind)")
            XCTAssertEqual(recorder.values, [0], "\(spelling), \(kind)")
            XCTAssertTrue(recorder.completions.isEmpty, "\(spelling), \(kind)")
        }
    }

    func testObservationCancelledBeforeDemandNeverStarts() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let willStartCount = Synchronized(0)
            let observation = ValueObservation
                .trackingConstantRegion { db in try Player.fetchCount(db) }
                .handleEvents(willStart: { willStartCount.increment() })
            let recorder = spelling.observe(observation, in: writer).record(initialDemand: .none)

            recorder.cancel()
            recorder.request(.unlimited)
            XCTAssertEqual(willStartCount.value, 0, "\(spelling), \(kind)")
        }
    }

    func testCancellationFromTheSubscriberStopsTheObservation() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let didCancelCount = Synchronized(0)
            let observation = ValueObservation
                .trackingConstantRegion { db in try Player.fetchCount(db) }
                .removeDuplicates()
                .handleEvents(didCancel: { didCancelCount.increment() })
            // first() cancels its upstream from inside the value, while
            // the subscription delivers it.
            let recorder = spelling.observe(observation, in: writer)
                .first(where: { $0 > 0 })
                .record()

            try insertOneThenTwoPlayers(writer)
            let recording = waitForCompletion(of: recorder)
            // A pool may coalesce 1 and 3.
            XCTAssertTrue(recording.values == [1] || recording.values == [3], "\(spelling), \(kind): \(recording.values)")
            XCTAssertTrue(recording.isFinished, "\(spelling), \(kind)")
            XCTAssertEqual(didCancelCount.value, 1, "\(spelling), \(kind)")
        }
    }

    // MARK: - DatabaseRegionObservation

    func testCancelledRegionObservationStops() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let recorder = spelling
                .changes(DatabaseRegionObservation(tracking: Player.all()), in: writer)
                .tryMap { db in try Player.fetchCount(db) }
                .record()
            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }

            recorder.cancel()
            try writer.write { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) }
            recorder.request(.unlimited)
            try writer.write { db in try Player(id: 3, name: "Craig", score: 500).insert(db) }
            XCTAssertEqual(recorder.values, [1], "\(spelling), \(kind)")
            XCTAssertNil(recorder.completion, "\(spelling), \(kind)")
        }
    }

    func testRegionObservationCancelledFromItsElement() {
        forEachSpellingAndWriter { spelling, writer, kind in
            // first() cancels its upstream from inside the element, on the
            // writer's queue.
            let recorder = spelling
                .changes(DatabaseRegionObservation(tracking: Player.all()), in: writer)
                .tryMap { db in try Player.fetchCount(db) }
                .first()
                .record()

            try insertOneThenTwoPlayers(writer)
            XCTAssertEqual(recorder.values, [1], "\(spelling), \(kind)")
            XCTAssertTrue(recorder.recording.value.isFinished, "\(spelling), \(kind)")
        }
    }
}
