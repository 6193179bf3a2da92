import Foundation
import GRDB
import OpenCombine
import ReactiveGRDB
import XCTest

/// `sharedObservation.publisher()`.
final class SharedValueObservationPublisherTests: XCTestCase {
    private struct Events {
        let willStartCount = Synchronized(0)
        let didCancelCount = Synchronized(0)
    }

    private func sharedPlayerCount(
        in writer: any DatabaseWriter,
        scheduling scheduler: some ValueObservationScheduler = .async(onQueue: .main),
        events: Events)
    -> SharedValueObservation<Int>
    {
        ValueObservation
            .trackingConstantRegion { db in try Player.fetchCount(db) }
            // A pool may notify its initial value twice.
            .removeDuplicates()
            .handleEvents(
                willStart: { events.willStartCount.increment() },
                didCancel: { events.didCancelCount.increment() })
            .shared(in: writer, scheduling: scheduler)
    }

    func testSubscribersShareOneDatabaseObservation() {
        forEachWriter { writer, kind in
            let events = Events()
            let shared = sharedPlayerCount(in: writer, events: events)
            XCTAssertEqual(events.willStartCount.value, 0, "\(kind)")

            let recorder1 = shared.publisher().record()
            XCTAssertEqual(wait(for: recorder1, valueCount: 1).values, [0], "\(kind)")

            // The second subscriber gets the last value, without a new
            // database observation.
            let recorder2 = shared.publisher().record()
            XCTAssertEqual(wait(for: recorder2, valueCount: 1).values, [0], "\(kind)")

            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            XCTAssertEqual(wait(for: recorder1, valueCount: 2).values, [0, 1], "\(kind)")
            XCTAssertEqual(wait(for: recorder2, valueCount: 2).values, [0, 1], "\(kind)")
            XCTAssertEqual(events.willStartCount.value, 1, "\(kind)")

            // The database observation stops with the last subscriber.
            recorder1.cancel()
            XCTAssertEqual(events.didCancelCount.value, 0, "\(kind)")
            recorder2.cancel()
            wait(for: events.didCancelCount, until: { $0 == 1 })

            try writer.write { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) }
            XCTAssertEqual(recorder1.values, [0, 1], "\(kind)")
            XCTAssertEqual(recorder2.values, [0, 1], "\(kind)")
        }
    }

    func testSharedObservationRestartsAfterTheLastSubscriberHasLeft() {
        forEachWriter { writer, kind in
            let events = Events()
            let shared = sharedPlayerCount(in: writer, events: events)

            let recorder1 = shared.publisher().record()
            wait(for: recorder1, valueCount: 1)
            recorder1.cancel()
            wait(for: events.didCancelCount, until: { $0 == 1 })

            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            let recorder2 = shared.publisher().record()
            XCTAssertEqual(wait(for: recorder2, valueCount: 1).values, [1], "\(kind)")
            XCTAssertEqual(recorder1.values, [0], "\(kind)")
            XCTAssertEqual(events.willStartCount.value, 2, "\(kind)")
        }
    }

    func testImmediateSharedObservationDeliversDuringSubscription() {
        forEachWriter { writer, kind in
            let events = Events()
            let shared = sharedPlayerCount(in: writer, scheduling: .immediate, events: events)

            let recorder1 = shared.publisher().record()
            XCTAssertEqual(recorder1.values, [0], "\(kind)")
            let recorder2 = shared.publisher().record()
            XCTAssertEqual(recorder2.values, [0], "\(kind)")
            XCTAssertEqual(events.willStartCount.value, 1, "\(kind)")
        }
    }

    func testSharedObservationFailsEverySubscriberWithTheSQLError() {
        forEachWriter { writer, kind in
            let shared = ValueObservation
                .trackingConstantRegion { db in try Int.fetchOne(db, sql: "THIS IS NOT SQL") }
                .shared(in: writer)

            let recorder1 = shared.publisher().record()
            let recorder2 = shared.publisher().record()
            for recording in [waitForCompletion(of: recorder1), waitForCompletion(of: recorder2)] {
                XCTAssertTrue(recording.values.isEmpty, "\(kind)")
                assertDatabaseError(recording.failure, resultCode: .SQLITE_ERROR, sql: "THIS IS NOT SQL", "\(kind)")
            }
        }
    }
}
