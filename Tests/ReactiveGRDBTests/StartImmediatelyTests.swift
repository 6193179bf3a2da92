import Foundation
import GRDB
import OpenCombine
import ReactiveGRDB
import XCTest

/// RxGRDB 0.18's `startImmediately:` argument, and its default scheduling of
/// values observables: the initial value is published synchronously if and
/// only if the subscription happens on the main queue, without a scheduler.
final class StartImmediatelyTests: XCTestCase {
    // MARK: - Values observables, off the main queue

    /// Runs `body` with `run`, off the main queue, and blocks the main
    /// thread until `body` returns: the main queue can't publish anything
    /// meanwhile, so that what `body` sees was published synchronously.
    private func offTheMainQueue(
        _ run: (@escaping @Sendable () -> Void) -> Void,
        _ body: @escaping @Sendable () -> Void)
    {
        let done = DispatchSemaphore(value: 0)
        run {
            body()
            done.signal()
        }
        done.wait()
    }

    /// The ways to subscribe off the main queue: a background queue, a
    /// block given to `sync` from the main thread (which runs on the main
    /// thread, but not on the main queue), and a task.
    private var backgroundRuns: [(String, (@escaping @Sendable () -> Void) -> Void)] {
        [
            ("background queue", { work in DispatchQueue.global().async(execute: work) }),
            ("sync from the main thread", { work in DispatchQueue(label: "sync").sync(execute: work) }),
            ("task", { work in Task.detached { work() } }),
        ]
    }

    func testValuesObservablesPublishTheirInitialValueAsynchronouslyOnTheMainQueueWhenSubscribedOffTheMainQueue() {
        forEachReader { reader, kind in
            for (name, run) in backgroundRuns {
                let observation = ValueObservation.tracking { db in try Player.fetchCount(db) }
                let publishers: [(String, DatabasePublishers.Value<Int>)] = [
                    ("observeCount(in:)", Player.all().rx.observeCount(in: reader)),
                    ("observeCount(in:startImmediately:)", Player.all().rx.observeCount(in: reader, startImmediately: true)),
                    ("observe(in:startImmediately:)", observation.rx.observe(in: reader, startImmediately: true)),
                    ("observe(in:startImmediately:), removeDuplicates",
                     observation.removeDuplicates().rx.observe(in: reader, startImmediately: true)),
                ]
                for (spelling, publisher) in publishers {
                    let onMainThread = Synchronized<[Bool]>([])
                    let recorder = Recorder<Int, Error>(onEvent: { _ in onMainThread.update { $0.append(Thread.isMainThread) } })
                    let valuesOnSubscription = Synchronized<[Int]?>(nil)
                    offTheMainQueue(run) {
                        publisher.subscribe(recorder)
                        valuesOnSubscription.update { $0 = recorder.values }
                    }
                    let message = "\(kind), \(spelling), \(name)"
                    XCTAssertEqual(valuesOnSubscription.value, [], message)
                    // A DatabasePool may publish its initial value twice.
                    let values = wait(for: recorder, valueCount: 1).values
                    XCTAssertTrue(values.allSatisfy { $0 == 0 }, "\(message): \(values)")
                    XCTAssertTrue(onMainThread.value.allSatisfy { $0 }, message)
                    recorder.cancel()
                }
            }
        }
    }

    // MARK: - Values observables, on the main queue

    func testValueObservationPublishesItsInitialValueSynchronouslyOnTheMainQueue() {
        forEachWriter { writer, kind in
            let onMainThread = Synchronized<[Bool]>([])
            let markMain: (Any) -> Void = { _ in onMainThread.update { $0.append(Thread.isMainThread) } }
            let observation = ValueObservation.tracking { db in try Player.fetchCount(db) }
            let plain = Recorder<Int, Error>(onEvent: markMain)
            let distinct = Recorder<Int, Error>(onEvent: markMain)
            observation.rx.observe(in: writer, startImmediately: true).subscribe(plain)
            observation.removeDuplicates().rx.observe(in: writer, startImmediately: true).subscribe(distinct)
            XCTAssertEqual(plain.values, [0], "\(kind)")
            XCTAssertEqual(distinct.values, [0], "\(kind)")

            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            XCTAssertEqual(distinct.values, [0], "\(kind): changes are published asynchronously")
            wait(for: plain, until: { $0.values.last == 1 })
            wait(for: distinct, until: { $0.values.last == 1 })
            try writer.write { db in try db.execute(sql: "UPDATE player SET name = 'Barbara'") }
            try writer.write { db in try Player(id: 2, name: "Craig", score: 500).insert(db) }
            let distinctValues = wait(for: distinct, until: { $0.values.last == 2 }).values
            let plainValues = wait(for: plain, until: { $0.values.last == 2 }).values
            XCTAssertEqual(distinctValues, [0, 1, 2], "\(kind)")
            XCTAssertTrue(isValueObservationRecording(plainValues, matching: [0, 1, 2]), "\(kind): \(plainValues)")
            XCTAssertTrue(onMainThread.value.allSatisfy { $0 }, "\(kind)")

            // RxGRDB 3's spelling, without the argument: asynchronous.
            let rxGRDB3 = observation.rx.observe(in: writer).record()
            XCTAssertEqual(rxGRDB3.values, [], "\(kind)")
            let rxGRDB3Values = wait(for: rxGRDB3, valueCount: 1).values
            XCTAssertTrue(rxGRDB3Values.allSatisfy { $0 == 2 }, "\(kind): \(rxGRDB3Values)")
        }
    }

    func testAnExplicitSchedulerPublishesTheInitialValueAsynchronously() {
        forEachReader { reader, kind in
            let observation = ValueObservation.tracking { db in try Player.fetchCount(db) }
            let recorders = [
                Player.all().rx.observeCount(in: reader, observeOn: DispatchQueue.main.ocombine).record(),
                Player.all().rx.observeCount(in: reader, startImmediately: true, observeOn: DispatchQueue.main.ocombine).record(),
                Player.all().rx.observeCount(in: reader, scheduling: .async(onQueue: .main)).record(),
                observation.rx.observe(in: reader, startImmediately: true, observeOn: DispatchQueue.main.ocombine).record(),
            ]
            XCTAssertEqual(recorders.map(\.values), [[], [], [], []], "\(kind)")
            for recorder in recorders {
                // A DatabasePool may publish its initial value twice.
                let values = wait(for: recorder, valueCount: 1).values
                XCTAssertTrue(values.allSatisfy { $0 == 0 }, "\(kind): \(values)")
            }
        }
    }

    // MARK: - startImmediately: false

    /// Every spelling of RxGRDB 0.18's values observables with
    /// `startImmediately: false`, that publish a player count.
    private func countsWithoutStartImmediately(in writer: any DatabaseWriter) -> [(String, AnyPublisher<Int, Error>)] {
        let queue = DispatchQueue(label: "values")
        let observation = ValueObservation.tracking { db in try Player.fetchCount(db) }
        return [
            ("observeCount(in:startImmediately:)", Player.all().rx.observeCount(in: writer, startImmediately: false).eraseToAnyPublisher()),
            ("observeCount(in:startImmediately:observeOn:)",
             Player.all().rx.observeCount(in: writer, startImmediately: false, observeOn: queue.ocombine).eraseToAnyPublisher()),
            ("observeAll(in:startImmediately:)",
             Player.all().rx.observeAll(in: writer, startImmediately: false).map(\.count).eraseToAnyPublisher()),
            ("observeAll(in:startImmediately:observeOn:)",
             Player.all().rx.observeAll(in: writer, startImmediately: false, observeOn: queue.ocombine).map(\.count).eraseToAnyPublisher()),
            ("observeFirst(in:startImmediately:)",
             Player.order(Column("id").desc).rx.observeFirst(in: writer, startImmediately: false)
                .map { Int($0?.id ?? 0) }.eraseToAnyPublisher()),
            ("observeFirst(in:startImmediately:observeOn:)",
             Player.order(Column("id").desc).rx.observeFirst(in: writer, startImmediately: false, observeOn: queue.ocombine)
                .map { Int($0?.id ?? 0) }.eraseToAnyPublisher()),
            ("observe(in:startImmediately:), removeDuplicates",
             observation.removeDuplicates().rx.observe(in: writer, startImmediately: false).eraseToAnyPublisher()),
            ("observe(in:startImmediately:observeOn:), removeDuplicates",
             observation.removeDuplicates().rx.observe(in: writer, startImmediately: false, observeOn: queue.ocombine).eraseToAnyPublisher()),
        ]
    }

    func testValuesObservablesWithoutStartImmediatelyPublishOnlyTheChanges() {
        // Subscribed on the main thread, on the main queue, and off the
        // main queue, where the initial value is not published
        // synchronously: the reference state is fetched during the
        // subscription all the same.
        let subscriptions: [(String, (@escaping () -> Recorder<Int, Error>) -> Recorder<Int, Error>)] = [
            ("main queue", { subscribe in subscribe() }),
            ("sync from the main thread", { subscribe in DispatchQueue(label: "sync").sync(execute: subscribe) }),
            ("background thread", { subscribe in
                nonisolated(unsafe) var recorder: Recorder<Int, Error>?
                nonisolated(unsafe) let subscribe = subscribe
                self.offTheMainQueue({ work in DispatchQueue.global().async(execute: work) }) { recorder = subscribe() }
                return recorder!
            }),
        ]
        forEachWriter { writer, kind in
            for (place, subscription) in subscriptions {
                for (spelling, publisher) in countsWithoutStartImmediately(in: writer) {
                    let context = "\(kind), \(spelling), \(place)"
                    try writer.write { db in _ = try Player.deleteAll(db) }
                    let recorder = subscription { publisher.record() }
                    XCTAssertEqual(recorder.values, [], context)

                    // Right after the subscription, before anything is
                    // published: each commit is a change. This one does
                    // not change the value: nothing is published.
                    try writer.write { db in
                        try Player(id: 1, name: "Arthur", score: 1000).insert(db)
                        try Player.deleteOne(db, id: 1)
                    }
                    try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
                    wait(for: recorder, until: { $0.values.last == 1 })
                    try writer.write { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) }
                    let recording = wait(for: recorder, until: { $0.values.last == 2 })
                    XCTAssertEqual(recording.values, [1, 2], context)
                    XCTAssertNil(recording.completion, context)
                    recorder.cancel()
                }
            }
        }
    }

    func testValuesObservablesWithoutStartImmediatelyCanBeSubscribedInsideAWriteAccess() {
        forEachWriter { writer, kind in
            for (spelling, publisher) in countsWithoutStartImmediately(in: writer) {
                let context = "\(kind), \(spelling)"
                try writer.write { db in _ = try Player.deleteAll(db) }
                let recorder = writer.writeWithoutTransaction { _ in publisher.record() }
                try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
                wait(for: recorder, until: { $0.values.last == 1 })
                try writer.write { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) }
                let recording = wait(for: recorder, until: { $0.values.last == 2 })
                XCTAssertEqual(recording.values, [1, 2], context)
                XCTAssertNil(recording.completion, context)
                recorder.cancel()
            }
        }
    }

    func testValuesObservablesWithoutStartImmediatelyCanBeSubscribedInsideAReadAccess() {
        forEachWriter { writer, kind in
            // The reads of a pool are not reentrant: inside one, the
            // reference state is fetched asynchronously. The observation
            // tells when it has started observing the writer.
            let started = Synchronized(0)
            let observation = ValueObservation
                .tracking { db in try Player.fetchCount(db) }
                .removeDuplicates()
                .handleEvents(willTrackRegion: { _ in started.increment() })
            let publishers = countsWithoutStartImmediately(in: writer) + [
                ("observe(in:startImmediately:), removeDuplicates, handleEvents",
                 observation.rx.observe(in: writer, startImmediately: false).eraseToAnyPublisher()),
            ]
            for (spelling, publisher) in publishers where kind != .pool || spelling.contains("handleEvents") {
                let context = "\(kind), \(spelling)"
                try writer.write { db in _ = try Player.deleteAll(db) }
                let recorder = try writer.read { _ in publisher.record() }
                if kind == .pool {
                    wait(for: started, until: { $0 > 0 })
                }
                try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
                wait(for: recorder, until: { $0.values.last == 1 })
                try writer.write { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) }
                let recording = wait(for: recorder, until: { $0.values.last == 2 })
                XCTAssertEqual(recording.values, [1, 2], context)
                XCTAssertNil(recording.completion, context)
                recorder.cancel()
            }
        }
    }

    func testValueObservationWithoutStartImmediatelyPublishesOnlyTheChanges() {
        forEachWriter { writer, kind in
            let observation = ValueObservation.tracking { db in try Player.fetchCount(db) }
            let recorder = observation.rx.observe(in: writer, startImmediately: false).record()
            XCTAssertEqual(recorder.values, [], "\(kind)")
            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            wait(for: recorder, until: { $0.values.last == 1 })
            try writer.write { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) }
            let values = wait(for: recorder, until: { $0.values.last == 2 }).values
            switch kind {
            case .pool:
                // A pool may publish the initial state once more, as its
                // first change: GRDB's ValueObservation may publish
                // identical consecutive values.
                XCTAssertTrue(values == [1, 2] || values == [0, 1, 2], "\(kind): \(values)")
            default:
                XCTAssertEqual(values, [1, 2], "\(kind)")
            }
        }
    }

    // MARK: - Changes observables

    func testChangesStartImmediatelyEmitsSynchronouslyOnSubscriptionFromAnyThread() {
        forEachWriter { writer, kind in
            let regionObservation = DatabaseRegionObservation.tracking(Player.all())
            let spellings: [(String, DatabasePublishers.DatabaseRegion)] = [
                ("DatabaseRegionObservation.rx.changes(in:startImmediately:)",
                 regionObservation.rx.changes(in: writer, startImmediately: true)),
                ("FetchRequest.rx.changes(in:)", Player.all().rx.changes(in: writer)),
                ("FetchRequest.rx.changes(in:startImmediately:)", Player.all().rx.changes(in: writer, startImmediately: true)),
            ]
            for (spelling, publisher) in spellings {
                for (name, run) in [("main queue", { (work: @escaping @Sendable () -> Void) in work() })] + backgroundRuns {
                    try writer.write { db in _ = try Player.deleteAll(db) }
                    // The connection is only usable on the writer's queue:
                    // GRDB raises a fatal error anywhere else.
                    let recorder = publisher.tryMap { db in try Player.fetchCount(db) }.record()
                    let valuesOnSubscription = Synchronized<[Int]?>(nil)
                    offTheMainQueue(run) {
                        let recorder = publisher.tryMap { db in try Player.fetchCount(db) }.record()
                        valuesOnSubscription.update { $0 = recorder.values }
                        recorder.cancel()
                    }
                    let message = "\(kind), \(spelling), \(name)"
                    XCTAssertEqual(recorder.values, [0], message)
                    XCTAssertEqual(valuesOnSubscription.value, [0], message)

                    try insertOneThenTwoPlayers(writer)
                    try writer.writeWithoutTransaction { db in
                        try db.inTransaction {
                            try Player.deleteAll(db)
                            return .rollback
                        }
                    }
                    XCTAssertEqual(recorder.values, [0, 1, 3], message)
                    recorder.cancel()
                }
            }
        }
    }

    func testChangesStartImmediatelyFromInsideADatabaseAccessMissesNoTransaction() {
        forEachWriter { writer, kind in
            let recorder = try writer.write { db in
                try Player(id: 1, name: "Arthur", score: 1000).insert(db)
                return DatabaseRegionObservation.tracking(Player.all())
                    .rx.changes(in: writer, startImmediately: true)
                    .tryMap { db in try Player.fetchCount(db) }
                    .record()
            }
            XCTAssertEqual(recorder.values, [1], "\(kind)")
            try writer.write { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) }
            XCTAssertEqual(recorder.values, [1, 2], "\(kind)")
        }
    }

    func testChangesWithoutStartImmediatelyEmitOnlyAfterTransactions() {
        forEachWriter { writer, kind in
            let regionObservation = DatabaseRegionObservation.tracking(Player.all())
            let spellings: [(String, DatabasePublishers.DatabaseRegion)] = [
                ("DatabaseRegionObservation.rx.changes(in:)", regionObservation.rx.changes(in: writer)),
                ("DatabaseRegionObservation.rx.changes(in:startImmediately:)",
                 regionObservation.rx.changes(in: writer, startImmediately: false)),
                ("FetchRequest.rx.changes(in:startImmediately:)", Player.all().rx.changes(in: writer, startImmediately: false)),
            ]
            for (spelling, publisher) in spellings {
                try writer.write { db in _ = try Player.deleteAll(db) }
                let recorder = publisher.tryMap { db in try Player.fetchCount(db) }.record()
                XCTAssertEqual(recorder.values, [], "\(kind), \(spelling)")
                try insertOneThenTwoPlayers(writer)
                XCTAssertEqual(recorder.values, [1, 3], "\(kind), \(spelling)")
                recorder.cancel()
            }
        }
    }
}
