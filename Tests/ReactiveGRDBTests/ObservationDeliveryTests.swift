import Foundation
import GRDB
import OpenCombine
import OpenCombineDispatch
@testable import ReactiveGRDB
import XCTest

/// An observation subscription delivers one value at a time, in order,
/// without a lock held: a value that comes while another thread delivers
/// waits in line, and its demand is checked when its turn comes. The
/// subscriber may request or cancel from `receive(_:)`, and the threads
/// that bring values never wait for it.
final class ObservationDeliveryTests: XCTestCase {
    /// How long a handshake between two threads may take on a busy machine.
    private let handshake = DispatchTimeInterval.seconds(5)

    func testAValueThatComesDuringADeliveryWaitsAndFollowsInOrder() {
        let observation = FakeObservation()
        let firstIsIn = DispatchSemaphore(value: 0)
        let othersSent = DispatchSemaphore(value: 0)
        let othersWereSentDuringTheFirst = Synchronized<Bool?>(nil)
        let probe = DeliveryProbe(initialDemand: .unlimited) { _, value in
            if value == 1 {
                firstIsIn.signal()
                let sent = othersSent.wait(timeout: .now() + self.handshake) == .success
                othersWereSentDuringTheFirst.update { $0 = sent }
            }
            return .none
        }
        observation.subscribe(probe)
        DispatchQueue.global().async { observation.send(1) }
        XCTAssertEqual(firstIsIn.wait(timeout: .now() + handshake), .success)

        // From this thread, while the first value is being received: they
        // do not wait for the subscriber, and are not delivered here.
        observation.send(2)
        observation.send(3)
        othersSent.signal()

        wait(for: probe.values, until: { $0.count == 3 })
        XCTAssertEqual(probe.values.value, [1, 2, 3])
        XCTAssertEqual(probe.overlaps.value, 0)
        XCTAssertEqual(othersWereSentDuringTheFirst.value, true)
    }

    func testARequestFromReceiveCountsForTheValueThatWaits() {
        let observation = FakeObservation()
        let firstIsIn = DispatchSemaphore(value: 0)
        let secondSent = DispatchSemaphore(value: 0)
        let probe = DeliveryProbe(initialDemand: .max(1)) { probe, value in
            if value == 1 {
                firstIsIn.signal()
                _ = secondSent.wait(timeout: .now() + self.handshake)
                probe.request(.max(1))
            }
            return .none
        }
        observation.subscribe(probe)
        DispatchQueue.global().async { observation.send(1) }
        XCTAssertEqual(firstIsIn.wait(timeout: .now() + handshake), .success)
        // No demand when it comes: the first value's request is for it.
        observation.send(2)
        secondSent.signal()

        wait(for: probe.values, until: { $0.count == 2 })
        // The demand is used up: the next value is dropped.
        observation.send(3)
        XCTAssertEqual(probe.values.value, [1, 2])
        XCTAssertEqual(probe.overlaps.value, 0)
    }

    func testACancelFromReceiveDropsTheValuesThatWaitAndStopsTheObservation() {
        let observation = FakeObservation()
        let firstIsIn = DispatchSemaphore(value: 0)
        let othersSent = DispatchSemaphore(value: 0)
        let probe = DeliveryProbe(initialDemand: .unlimited) { probe, value in
            if value == 1 {
                firstIsIn.signal()
                _ = othersSent.wait(timeout: .now() + self.handshake)
                probe.cancel()
            }
            return .max(1)
        }
        observation.subscribe(probe)
        DispatchQueue.global().async { observation.send(1) }
        XCTAssertEqual(firstIsIn.wait(timeout: .now() + handshake), .success)
        observation.send(2)
        observation.send(3)
        othersSent.signal()

        wait(for: observation.isCancelled, until: { $0 })
        observation.send(4)
        observation.fail()
        XCTAssertEqual(probe.values.value, [1])
        XCTAssertEqual(probe.completions.value, 0)
    }

    func testAnErrorThatComesDuringADeliveryFollowsTheValuesBeforeIt() {
        let observation = FakeObservation()
        let firstIsIn = DispatchSemaphore(value: 0)
        let othersSent = DispatchSemaphore(value: 0)
        let probe = DeliveryProbe(initialDemand: .unlimited) { _, value in
            if value == 1 {
                firstIsIn.signal()
                _ = othersSent.wait(timeout: .now() + self.handshake)
            }
            return .none
        }
        observation.subscribe(probe)
        DispatchQueue.global().async { observation.send(1) }
        XCTAssertEqual(firstIsIn.wait(timeout: .now() + handshake), .success)
        observation.send(2)
        observation.fail()
        observation.send(3)
        othersSent.signal()

        wait(for: probe.completions, until: { $0 == 1 })
        XCTAssertEqual(probe.values.value, [1, 2])
        XCTAssertEqual(probe.overlaps.value, 0)
        XCTAssertEqual(observation.isCancelled.value, true)
    }

    /// Values sent from several threads at once reach the subscriber one
    /// at a time, each thread's in the order it sent them.
    func testValuesFromSeveralThreadsAreDeliveredOneAtATimeInTheirOrder() {
        let observation = FakeObservation()
        let probe = DeliveryProbe(initialDemand: .unlimited) { _, _ in
            // Long enough for the other threads to come meanwhile.
            usleep(100)
            return .none
        }
        observation.subscribe(probe)
        let threads = 4
        let valuesPerThread = 200
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<valuesPerThread {
                observation.send(thread * 1000 + index)
            }
        }

        wait(for: probe.values, until: { $0.count == threads * valuesPerThread })
        XCTAssertEqual(probe.overlaps.value, 0)
        for thread in 0..<threads {
            let sent = probe.values.value.filter { $0 / 1000 == thread }
            XCTAssertEqual(sent, (0..<valuesPerThread).map { thread * 1000 + $0 }, "thread \(thread)")
        }
    }

    /// Commits made from several threads, observed on a concurrent queue:
    /// the subscriber never receives two values at once.
    func testConcurrentCommitsReachTheSubscriberOneAtATime() throws {
        let commitCount = 100
        forEachWriter { writer, kind in
            let probe = DeliveryProbe(initialDemand: .unlimited) { _, _ in
                usleep(200)
                return .none
            }
            let queue = DispatchQueue(label: "ObservationDeliveryTests", attributes: .concurrent)
            ValueObservation
                .trackingConstantRegion { db in try Player.fetchCount(db) }
                .publisher(in: writer, scheduling: .async(onQueue: queue))
                .subscribe(probe)
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                for index in 0..<(commitCount / 4) {
                    let id = Int64(thread * 1000 + index)
                    try? writer.write { db in try Player(id: id, name: "Arthur", score: 0).insert(db) }
                }
            }
            wait(for: probe.values, until: { $0.contains(commitCount) })
            XCTAssertEqual(probe.overlaps.value, 0, "\(kind)")
            probe.cancel()
        }
    }
}

/// A database observation driven by hand: its values and its error come
/// from the thread that calls `send` or `fail`.
private final class FakeObservation: Sendable {
    private struct Callbacks {
        var onChange: (@Sendable (Int) -> Void)?
        var onError: (@Sendable (Error) -> Void)?
    }

    private let callbacks = Synchronized(Callbacks())
    let isCancelled = Synchronized(false)

    func subscribe(_ probe: DeliveryProbe) {
        let subscription = ObservationSubscription(
            start: { onError, onChange in
                self.callbacks.update { $0 = Callbacks(onChange: onChange, onError: onError) }
                return AnyDatabaseCancellable { self.isCancelled.update { $0 = true } }
            },
            downstream: probe)
        probe.receive(subscription: subscription)
    }

    func send(_ value: Int) {
        callbacks.value.onChange?(value)
    }

    func fail() {
        callbacks.value.onError?(URLError(.cancelled))
    }
}

/// A subscriber that records its values, and counts the times a value came
/// while it was receiving another.
// @unchecked Sendable: its records are `Synchronized`, `subscription` too.
private final class DeliveryProbe: Subscriber, @unchecked Sendable {
    typealias Input = Int
    typealias Failure = Error

    let values = Synchronized<[Int]>([])
    let completions = Synchronized(0)
    let overlaps = Synchronized(0)
    private let receiving = Synchronized(0)
    private let subscription = Synchronized<(any Subscription)?>(nil)
    private let initialDemand: Subscribers.Demand
    private let onValue: (DeliveryProbe, Int) -> Subscribers.Demand

    init(initialDemand: Subscribers.Demand, onValue: @escaping (DeliveryProbe, Int) -> Subscribers.Demand) {
        self.initialDemand = initialDemand
        self.onValue = onValue
    }

    func receive(subscription: any Subscription) {
        self.subscription.update { $0 = subscription }
        subscription.request(initialDemand)
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        receiving.update { count in
            count += 1
            if count > 1 { overlaps.increment() }
        }
        values.update { $0.append(input) }
        let demand = onValue(self, input)
        receiving.update { $0 -= 1 }
        return demand
    }

    func receive(completion: Subscribers.Completion<Error>) {
        completions.increment()
    }

    func request(_ demand: Subscribers.Demand) {
        subscription.value?.request(demand)
    }

    func cancel() {
        subscription.value?.cancel()
    }
}
