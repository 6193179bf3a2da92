import Foundation
import GRDB
import OpenCombine
import ReactiveGRDB
import XCTest

/// Publishers complete once, and send nothing after their completion.
final class CompletionTests: XCTestCase {
    func testReadAndWriteCompleteOnce() {
        forEachSpellingAndWriter { spelling, writer, kind in
            for access in OneValueAccess.allCases {
                let scheduler = CountingScheduler(queue: DispatchQueue(label: "results"))
                let succeeding = spelling
                    .publisher(of: access, in: writer, on: scheduler) { db in try Player.fetchCount(db) }
                    .record()
                let failing = spelling
                    .publisher(of: access, in: writer, on: scheduler) { db in try Int.fetchOne(db, sql: "THIS IS NOT SQL") }
                    .record()

                // Each publisher schedules its value and its completion at
                // once: a second completion would arrive with the first.
                wait(for: scheduler.executedCount, until: { $0 >= 2 })
                XCTAssertEqual(scheduler.scheduledCount.value, 2, "\(access), \(spelling), \(kind)")
                XCTAssertEqual(history(succeeding), ["0", "finished"], "\(access), \(spelling), \(kind)")
                XCTAssertEqual(history(failing), ["failure"], "\(access), \(spelling), \(kind)")
            }
        }
    }

    func testReadAndWriteCompleteOnceWhenMoreIsRequestedDuringDelivery() {
        forEachSpellingAndWriter { spelling, writer, kind in
            for access in OneValueAccess.allCases {
                let accessCount = Synchronized(0)
                let scheduler = CountingScheduler(queue: DispatchQueue(label: "results"))
                let recorder = spelling
                    .publisher(of: access, in: writer, on: scheduler) { db -> Int in
                        accessCount.increment()
                        return try Player.fetchCount(db)
                    }
                    .record(initialDemand: .max(1), onValue: { recorder, _ in
                        recorder.request(.max(1))
                        return .max(1)
                    })
                wait(for: scheduler.executedCount, until: { $0 >= 1 })
                recorder.request(.max(1))

                // A second access would be serialized before this write, and
                // its result scheduled before this write's.
                waitForCompletion(of: spelling.publisher(of: .write, in: writer, on: scheduler) { _ in }.record())
                XCTAssertEqual(accessCount.value, 1, "\(access), \(spelling), \(kind)")
                XCTAssertEqual(history(recorder), ["0", "finished"], "\(access), \(spelling), \(kind)")
            }
        }
    }

    // MARK: - Support

    /// The events of a recorder, as "value", "finished", "failure".
    private func history<Input>(_ recorder: Recorder<Input, Error>) -> [String] {
        recorder.events.map { event in
            switch event {
            case let .value(value): "\(value)"
            case .completion(.finished): "finished"
            case .completion(.failure): "failure"
            }
        }
    }
}
