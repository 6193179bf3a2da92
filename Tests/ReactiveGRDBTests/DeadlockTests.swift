import Foundation
import GRDB
import OpenCombine
import OpenCombineDispatch
import ReactiveGRDB
import XCTest

/// Regression tests for deadlocks between database queues, schedulers, and
/// operators that cancel their upstream.
final class DeadlockTests: XCTestCase {
    private let iterationCount = 100

    /// `switchToLatest` cancels the previous write publisher, while `prefix`
    /// and the write publisher complete concurrently.
    func testSwitchToLatestPrefixOneOfWritesCompletes() {
        forEachSpellingAndWriter { spelling, writer, kind in
            for iteration in 1...iterationCount {
                let subject = PassthroughSubject<Int, Error>()
                let recorder = subject
                    .map { score in
                        spelling.write(writer) { db -> Int in
                            try Player(id: Int64(iteration), name: "Arthur", score: score).insert(db)
                            return try Player.fetchCount(db)
                        }
                    }
                    .switchToLatest()
                    .prefix(1)
                    .record()
                subject.send(1000)
                XCTAssertEqual(wait(for: recorder, valueCount: 1).values, [iteration], "\(spelling), \(kind), #\(iteration)")

                // OpenCombine's prefix completes with its upstream: here,
                // when the subject and the last write have completed.
                subject.send(completion: .finished)
                let recording = waitForCompletion(of: recorder)
                XCTAssertTrue(recording.isFinished, "\(spelling), \(kind), #\(iteration)")
                guard recording.values == [iteration] else { return }
            }
        }
    }

    /// `first()` cancels the write publisher from inside its value, on the
    /// scheduler, while the publisher completes.
    func testSwitchToLatestFirstOfWritesCompletes() {
        forEachSpellingAndWriter { spelling, writer, kind in
            for iteration in 1...iterationCount {
                let subject = PassthroughSubject<Int, Error>()
                let recorder = subject
                    .map { score in
                        spelling.write(writer) { db -> Int in
                            try Player(id: Int64(iteration), name: "Arthur", score: score).insert(db)
                            return try Player.fetchCount(db)
                        }
                    }
                    .switchToLatest()
                    .first()
                    .record()
                subject.send(1000)

                let recording = waitForCompletion(of: recorder)
                XCTAssertEqual(recording.values, [iteration], "\(spelling), \(kind), #\(iteration)")
                XCTAssertTrue(recording.isFinished, "\(spelling), \(kind), #\(iteration)")
                guard recording.isFinished else { return }
            }
        }
    }

    /// An immediate observation whose values start reads, published on a
    /// queue that has a custom target queue, in a database that has a custom
    /// target queue too (see GRDB issue #1194).
    func testImmediateObservationMappedToReadsOnQueuesWithCustomTargetsDelivers() {
        let configuration = { (kind: DatabaseKind) -> Configuration in
            var configuration = Configuration()
            // GRDB requires a concurrent target queue for a pool.
            configuration.targetQueue = DispatchQueue(
                label: "database target",
                qos: .userInitiated,
                attributes: kind == .pool ? .concurrent : [])
            return configuration
        }
        let schedulerTarget = DispatchQueue(label: "scheduler target")
        for spelling in Spelling.allCases {
            forEachWriter(configuration: configuration) { writer, kind in
                let scheduler = DispatchQueue(label: "scheduler", target: schedulerTarget).ocombine
                let recorder = spelling
                    .observe(
                        ValueObservation.tracking { db in try Player.fetchCount(db) },
                        in: writer,
                        scheduling: .immediate)
                    .map { _ in
                        spelling.read(writer, on: scheduler) { db in try Player.fetchCount(db) }
                    }
                    .switchToLatest()
                    .record()
                // A pool may publish its first value twice, and so read twice.
                let initial = wait(for: recorder, valueCount: 1).values
                XCTAssertTrue(initial.allSatisfy { $0 == 0 }, "\(spelling), \(kind): \(initial)")

                try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
                let recording = wait(for: recorder, until: { $0.values.last == 1 })
                XCTAssertNil(recording.completion, "\(spelling), \(kind)")
            }
        }
    }
}
