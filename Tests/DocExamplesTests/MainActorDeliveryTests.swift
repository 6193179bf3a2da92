import Foundation
import GRDB
import OpenCombine
import ReactiveGRDB
import XCTest

/// The guide's fixes of the `@MainActor` trap, run in Swift 6 mode: closures
/// written in `@MainActor` code, called off the main queue, must be
/// `@Sendable` (or the values must come through an async sequence), or Swift
/// traps when they run.
final class MainActorDeliveryTests: XCTestCase {
    // XCTest on Linux runs its test methods on the main thread, and cannot
    // call `@MainActor` ones: the body asserts the isolation instead.
    func testSendableClosuresAndAsyncSequencesDeliverOffTheMainQueueWithoutTrapping() throws {
        try MainActor.assumeIsolated { try observeOffTheMainQueue() }
    }
}

@MainActor
private func observeOffTheMainQueue() throws {
    let dbQueue = try DatabaseQueue()
    try dbQueue.write { db in
        try db.execute(sql: "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL)")
    }
    let model = PlayerCountModel()
    model.start(dbQueue)
    // A write from another thread: the region publisher delivers on the
    // writer's queue, the async sequence on a queue of its own.
    DispatchQueue.global().async {
        try? dbQueue.write { db in
            try db.execute(sql: "INSERT INTO player(name, score) VALUES ('Arthur', 100)")
        }
    }
    let deadline = Date(timeIntervalSinceNow: 10)
    while (model.regionCount != 1 || model.sequenceCount != 1) && Date() < deadline {
        RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.01))
    }
    XCTAssertEqual(model.regionCount, 1)
    XCTAssertEqual(model.sequenceCount, 1)
    XCTAssertEqual(model.offMainDeliveries, 1, "the region change came off the main queue")
    model.stop()
}

/// The guide's `PlayerCountModel`, with a count per way of delivery.
@MainActor
private final class PlayerCountModel {
    private(set) var regionCount = 0
    private(set) var sequenceCount = 0
    private(set) var offMainDeliveries = 0
    private var cancellables: [AnyCancellable] = []
    private var task: Task<Void, Error>?

    func start(_ dbQueue: DatabaseQueue) {
        DatabaseRegionObservation(tracking: Table("player"))
            .rx.changes(in: dbQueue)
            .tryMap { @Sendable db in (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") ?? 0, Thread.isMainThread) }
            .sink(
                receiveCompletion: { @Sendable _ in },
                receiveValue: { @Sendable [weak self] count, onMainThread in
                    Task { @MainActor in
                        self?.regionCount = count
                        if !onMainThread { self?.offMainDeliveries += 1 }
                    }
                })
            .store(in: &cancellables)

        task = Task { [weak self] in
            let counts = ValueObservation
                .tracking { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") ?? 0 }
                .rx.values(in: dbQueue)
            for try await count in counts {
                self?.sequenceCount = count
            }
        }
    }

    func stop() {
        cancellables = []
        task?.cancel()
    }
}
