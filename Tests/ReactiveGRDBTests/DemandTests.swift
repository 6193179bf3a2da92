import Foundation
import GRDB
import OpenCombine
import ReactiveGRDB
import XCTest

/// All publishers honor the demand of their subscriber: no database access
/// before the first demand, no more values than requested, and values that
/// arrive without demand are dropped, not buffered.
final class DemandTests: XCTestCase {

    // MARK: - Read and write publishers

    func testReadDemandNoneReceivesNothingAndDoesNotAccessTheDatabase() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let accessCount = Synchronized(0)
            let recorder = spelling
                .read(writer) { db -> Int in
                    accessCount.increment()
                    return try Player.fetchCount(db)
                }
                .record(initialDemand: .none)

            // A later read and write complete, and the first one has not run.
            let control = spelling.read(writer) { db in try Player.fetchCount(db) }.record()
            waitForCompletion(of: control)
            waitForCompletion(of: spelling.write(writer) { _ in }.record())
            XCTAssertEqual(accessCount.value, 0, "\(spelling), \(kind)")
            XCTAssertTrue(recorder.values.isEmpty, "\(spelling), \(kind)")
            XCTAssertNil(recorder.completion, "\(spelling), \(kind)")

            // The read starts at the first demand.
            recorder.request(.max(1))
            let recording = waitForCompletion(of: recorder)
            XCTAssertEqual(recording.values, [0], "\(spelling), \(kind)")
            XCTAssertTrue(recording.isFinished, "\(spelling), \(kind)")
            XCTAssertEqual(accessCount.value, 1, "\(spelling), \(kind)")
        }
    }

    func testWriteDemandNoneReceivesNothingAndDoesNotAccessTheDatabase() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let updatesCount = Synchronized(0)
            let thenReadUpdatesCount = Synchronized(0)
            let write = spelling
                .write(writer) { db -> Int in
                    updatesCount.increment()
                    try Player(id: 1, name: "Arthur", score: 1000).insert(db)
                    return try Player.fetchCount(db)
                }
                .record(initialDemand: .none)
            let writeThenRead = spelling
                .write(
                    writer,
                    updates: { db in
                        thenReadUpdatesCount.increment()
                        try Player(id: 2, name: "Barbara", score: 750).insert(db)
                    },
                    thenRead: { db, _ in try Player.fetchCount(db) })
                .record(initialDemand: .none)

            // Writes are serialized: a later write completes after the
            // pending ones would have.
            waitForCompletion(of: spelling.write(writer) { _ in }.record())
            XCTAssertEqual(updatesCount.value, 0, "\(spelling), \(kind)")
            XCTAssertEqual(thenReadUpdatesCount.value, 0, "\(spelling), \(kind)")
            try XCTAssertEqual(writer.read { try Player.fetchCount($0) }, 0, "\(spelling), \(kind)")
            XCTAssertTrue(write.values.isEmpty && write.completion == nil, "\(spelling), \(kind)")
            XCTAssertTrue(writeThenRead.values.isEmpty && writeThenRead.completion == nil, "\(spelling), \(kind)")

            write.request(.max(1))
            XCTAssertEqual(waitForCompletion(of: write).values, [1], "\(spelling), \(kind)")
            writeThenRead.request(.max(1))
            XCTAssertEqual(waitForCompletion(of: writeThenRead).values, [2], "\(spelling), \(kind)")
        }
    }

    // MARK: - ValueObservation

    func testObservationDemandNoneReceivesNothingAndDoesNotStart() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let willStartCount = Synchronized(0)
            let willFetchCount = Synchronized(0)
            let observation = ValueObservation
                .trackingConstantRegion { db in try Player.fetchCount(db) }
                .handleEvents(
                    willStart: { willStartCount.increment() },
                    willFetch: { willFetchCount.increment() })
            let recorder = spelling.observe(observation, in: writer).record(initialDemand: .none)

            // An observation starts synchronously, at the first demand.
            XCTAssertEqual(willStartCount.value, 0, "\(spelling), \(kind)")

            // A control observation sees a change; the first one does not.
            let control = spelling
                .observe(ValueObservation.trackingConstantRegion { db in try Player.fetchCount(db) }, in: writer)
                .record()
            wait(for: control, valueCount: 1)
            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            wait(for: control, until: { $0.values.last == 1 })
            XCTAssertEqual(willStartCount.value, 0, "\(spelling), \(kind)")
            XCTAssertEqual(willFetchCount.value, 0, "\(spelling), \(kind)")
            XCTAssertTrue(recorder.values.isEmpty, "\(spelling), \(kind)")
            XCTAssertNil(recorder.completion, "\(spelling), \(kind)")

            recorder.request(.max(1))
            XCTAssertEqual(willStartCount.value, 1, "\(spelling), \(kind)")
            XCTAssertEqual(wait(for: recorder, valueCount: 1).values, [1], "\(spelling), \(kind)")
        }
    }

    func testObservationDemandOneReceivesOneValue() {
        assertObservationWithInitialDemand(.max(1), receives: [0])
    }

    func testObservationDemandTwoReceivesTwoValues() {
        assertObservationWithInitialDemand(.max(2), receives: [0, 1])
    }

    func testObservationHonorsTheDemandReturnedFromReceive() {
        assertObservationWithInitialDemand(.max(1), onValue: { _, _ in .max(1) }, receives: [0, 1, 2])
    }

    func testObservationHonorsTheDemandRequestedInsideReceive() {
        assertObservationWithInitialDemand(
            .max(1),
            onValue: { recorder, _ in
                recorder.request(.max(1))
                return .none
            },
            receives: [0, 1, 2])
    }

    func testObservationSumsTheDemandRequestedInsideReceiveAndTheDemandItReturns() {
        // The demand requested from `receive(_:)` and the demand it returns
        // add up: one for 1, one for 2.
        assertObservationWithInitialDemand(
            .max(1),
            onValue: { recorder, value in
                guard value == 0 else { return .none }
                recorder.request(.max(1))
                return .max(1)
            },
            receives: [0, 1, 2])
    }

    /// Observes the player count with `demand`, inserts two players, one
    /// transaction after the other, and checks what the subscriber got once
    /// the three values were scheduled.
    private func assertObservationWithInitialDemand(
        _ demand: Subscribers.Demand,
        onValue: ((Recorder<Int, Error>, Int) -> Subscribers.Demand)? = nil,
        receives expected: [Int],
        file: StaticString = #filePath, line: UInt = #line)
    {
        forEachSpellingAndWriter { spelling, writer, kind in
            let scheduler = CountingValueObservationScheduler(queue: DispatchQueue(label: "values"))
            let recorder = spelling
                .observe(playerCount, in: writer, scheduling: scheduler)
                .record(initialDemand: demand, onValue: onValue)
            wait(for: scheduler.executedCount, until: { $0 >= 1 })

            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            wait(for: scheduler.executedCount, until: { $0 >= 2 })
            try writer.write { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) }
            wait(for: scheduler.executedCount, until: { $0 >= 3 })

            XCTAssertEqual(recorder.values, expected, "\(spelling), \(kind)", file: file, line: line)
            XCTAssertNil(recorder.completion, "\(spelling), \(kind)", file: file, line: line)
        }
    }

    func testObservationDropsValuesThatArriveWithoutDemand() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let scheduler = CountingValueObservationScheduler(queue: DispatchQueue(label: "values"))
            let recorder = spelling
                .observe(playerCount, in: writer, scheduling: scheduler)
                .record(initialDemand: .max(1))
            wait(for: scheduler.executedCount, until: { $0 >= 1 })

            // 1 arrives without demand.
            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            wait(for: scheduler.executedCount, until: { $0 >= 2 })

            // Had 1 been buffered, it would be delivered now.
            recorder.request(.max(1))
            try writer.write { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) }
            wait(for: scheduler.executedCount, until: { $0 >= 3 })

            XCTAssertEqual(recorder.values, [0, 2], "\(spelling), \(kind)")
        }
    }

    func testObservationSumsSeveralRequests() {
        forEachSpellingAndWriter { spelling, writer, kind in
            // The values queue is suspended until both requests are made,
            // so that the first value cannot arrive between them.
            let queue = DispatchQueue(label: "values")
            let scheduler = CountingValueObservationScheduler(queue: queue)
            let recorder = spelling
                .observe(playerCount, in: writer, scheduling: scheduler)
                .record(initialDemand: .none)
            queue.suspend()
            recorder.request(.max(1))
            recorder.request(.max(1))
            queue.resume()
            wait(for: scheduler.executedCount, until: { $0 >= 1 })

            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            wait(for: scheduler.executedCount, until: { $0 >= 2 })
            try writer.write { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) }
            wait(for: scheduler.executedCount, until: { $0 >= 3 })

            XCTAssertEqual(recorder.values, [0, 1], "\(spelling), \(kind)")
        }
    }

    func testSharedObservationDemandNoneDoesNotStart() {
        forEachWriter { writer, kind in
            let willStartCount = Synchronized(0)
            let shared = ValueObservation
                .trackingConstantRegion { db in try Player.fetchCount(db) }
                .handleEvents(willStart: { willStartCount.increment() })
                .shared(in: writer)
            let recorder = shared.publisher().record(initialDemand: .none)
            XCTAssertEqual(willStartCount.value, 0, "\(kind)")

            recorder.request(.max(1))
            XCTAssertEqual(willStartCount.value, 1, "\(kind)")
            XCTAssertEqual(wait(for: recorder, valueCount: 1).values, [0], "\(kind)")
        }
    }

    // MARK: - DatabaseRegionObservation

    func testRegionDemandNoneReceivesNothing() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let recorder = spelling
                .changes(DatabaseRegionObservation(tracking: Player.all()), in: writer)
                .tryMap { db in try Player.fetchCount(db) }
                .record(initialDemand: .none)

            // Elements would be emitted before each write returns.
            try insertOneThenTwoPlayers(writer)
            XCTAssertTrue(recorder.values.isEmpty, "\(spelling), \(kind)")

            // The observation starts at the first demand.
            recorder.request(.unlimited)
            try writer.write { db in try Player(id: 4, name: "David", score: 250).insert(db) }
            XCTAssertEqual(recorder.values, [4], "\(spelling), \(kind)")
        }
    }

    func testRegionDemandOneReceivesOneElement() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let recorder = spelling
                .changes(DatabaseRegionObservation(tracking: Player.all()), in: writer)
                .tryMap { db in try Player.fetchCount(db) }
                .record(initialDemand: .max(1))

            try insertOneThenTwoPlayers(writer)
            XCTAssertEqual(recorder.values, [1], "\(spelling), \(kind)")
        }
    }

    func testRegionDemandTwoReceivesTwoElements() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let recorder = spelling
                .changes(DatabaseRegionObservation(tracking: Player.all()), in: writer)
                .tryMap { db in try Player.fetchCount(db) }
                .record(initialDemand: .max(2))

            try insertOneThenTwoPlayers(writer)
            try writer.write { db in try Player(id: 4, name: "David", score: 250).insert(db) }
            XCTAssertEqual(recorder.values, [1, 3], "\(spelling), \(kind)")
        }
    }

    func testRegionDropsElementsThatArriveWithoutDemand() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let recorder = spelling
                .changes(DatabaseRegionObservation(tracking: Player.all()), in: writer)
                .tryMap { db in try Player.fetchCount(db) }
                .record(initialDemand: .max(1))

            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            try writer.write { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) }
            recorder.request(.max(1))
            try writer.write { db in try Player(id: 3, name: "Craig", score: 500).insert(db) }
            XCTAssertEqual(recorder.values, [1, 3], "\(spelling), \(kind)")
        }
    }

    func testRegionSumsSeveralRequests() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let recorder = spelling
                .changes(DatabaseRegionObservation(tracking: Player.all()), in: writer)
                .tryMap { db in try Player.fetchCount(db) }
                .record(initialDemand: .none)
            recorder.request(.max(1))
            recorder.request(.max(1))

            try insertOneThenTwoPlayers(writer)
            try writer.write { db in try Player(id: 4, name: "David", score: 250).insert(db) }
            XCTAssertEqual(recorder.values, [1, 3], "\(spelling), \(kind)")
        }
    }

    func testRegionHonorsTheDemandReturnedFromReceive() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let recorder = spelling
                .changes(DatabaseRegionObservation(tracking: Player.all()), in: writer)
                .tryMap { db in try Player.fetchCount(db) }
                .record(initialDemand: .max(1), onValue: { _, _ in .max(1) })

            try insertOneThenTwoPlayers(writer)
            try writer.write { db in try Player(id: 4, name: "David", score: 250).insert(db) }
            XCTAssertEqual(recorder.values, [1, 3, 4], "\(spelling), \(kind)")
        }
    }

    func testRegionHonorsTheDemandRequestedInsideReceive() {
        forEachSpellingAndWriter { spelling, writer, kind in
            // The element is delivered on the writer's queue, during the
            // write: the request re-enters the subscription there.
            let recorder = spelling
                .changes(DatabaseRegionObservation(tracking: Player.all()), in: writer)
                .tryMap { db in try Player.fetchCount(db) }
                .record(initialDemand: .max(1), onValue: { recorder, _ in
                    recorder.request(.max(1))
                    return .none
                })

            try insertOneThenTwoPlayers(writer)
            try writer.write { db in try Player(id: 4, name: "David", score: 250).insert(db) }
            XCTAssertEqual(recorder.values, [1, 3, 4], "\(spelling), \(kind)")
        }
    }

    private var playerCount: ValueObservation<ValueReducers.RemoveDuplicates<ValueReducers.Fetch<Int>>> {
        // A pool may notify its initial value twice: only distinct values
        // reach the scheduler, so that tests can count them.
        ValueObservation
            .trackingConstantRegion { db in try Player.fetchCount(db) }
            .removeDuplicates()
    }
}
