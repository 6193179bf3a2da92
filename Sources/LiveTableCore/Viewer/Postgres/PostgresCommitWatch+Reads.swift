import Foundation
import OpenCombine
import PostgresClient
import ReactiveGRDB
import Synchronization

// MARK: - Reads again at each commit

extension PostgresCommitWatch {
    /// A read, run at subscription and again at each signal of the watch,
    /// paced during a burst; values on the main queue. `read` runs on a
    /// global queue, one at a time, and abandoning its ticket must interrupt
    /// it. `transientFailure` gives the value of a failure the reads go on
    /// after (also the watch's `.lost`), nil for one that ends them.
    package func reads<Value: Sendable>(
        pacing: RefreshPacing,
        read: @escaping @Sendable (ReadTicket) throws -> Value,
        transientFailure: @escaping @Sendable (any Error) -> Value?
    ) -> CommitReads<Value> {
        CommitReads(watch: self, pacing: pacing, read: read, transientFailure: transientFailure)
    }

    /// Sent on the main queue when it changes, while the poll runs: a passive
    /// observer, which does not start it.
    package func liveness() -> AnyPublisher<ViewerLiveness, Never> {
        CommitLiveness(watch: self).eraseToAnyPublisher()
    }
}

package struct CommitReads<Value: Sendable>: Publisher, Sendable {
    package typealias Output = Value
    package typealias Failure = any Error

    let watch: PostgresCommitWatch
    let pacing: RefreshPacing
    let read: @Sendable (ReadTicket) throws -> Value
    let transientFailure: @Sendable (any Error) -> Value?

    /// The first read starts on the first demand.
    package func receive<S: Subscriber>(subscriber: S) where S.Input == Value, S.Failure == any Error {
        let subscription = CommitReadsSubscription(publisher: self, downstream: AnySubscriber(subscriber))
        subscriber.receive(subscription: subscription)
    }
}

/// A subscription of `CommitReads`: waiting for demand → observing the
/// watch (reading, pausing or idle, as its `PacedReads` says) → finished.
/// Values are delivered on the main queue, in the order of the reads (one
/// runs at a time); without demand, the newest one waits.
// Its downstream is type-erased: a subscription generic over it would
// capture its metatype, which need not be Sendable, in the closures it
// dispatches.
private final class CommitReadsSubscription<Value: Sendable>: Subscription, Sendable {
    typealias Downstream = MainQueueSubscriber<Value, any Error>

    private enum Phase {
        case waitingForDemand(Downstream)
        case observing(Downstream)
        case finished
    }

    private struct State {
        var phase: Phase
        var demand = Subscribers.Demand.none
        /// The newest value, waiting for demand.
        var waiting: Value?
        var ticket: ReadTicket?

        var isObserving: Bool {
            if case .observing = phase { return true }
            return false
        }
    }

    private let publisher: CommitReads<Value>
    private let state: Mutex<State>
    private let paced: PacedReads

    /// How long a read that failed for now waits before it runs again,
    /// when no signal comes before (the watch's connection is fine while
    /// the read's broke): 1 s, as for SQLite.
    static var retryDelay: TimeInterval { 1 }

    init(publisher: CommitReads<Value>, downstream: AnySubscriber<Value, any Error>) {
        self.publisher = publisher
        state = Mutex(State(phase: .waitingForDemand(Downstream(subscriber: downstream))))
        paced = PacedReads(policy: .share(publisher.pacing), clock: DispatchPacingClock(qos: .userInitiated))
    }

    func request(_ demand: Subscribers.Demand) {
        let (starts, value) = state.withLock { state -> (Bool, Value?) in
            state.demand += demand
            switch state.phase {
            case let .waitingForDemand(downstream):
                guard demand > .none else { return (false, nil) }
                state.phase = .observing(downstream)
                return (true, nil)
            case .observing:
                defer { state.waiting = nil }
                return (false, state.waiting)
            case .finished:
                return (false, nil)
            }
        }
        if let value { deliver(value) }
        guard starts else { return }
        // The first read is the subscription's: it is paced as the others.
        paced.start(readingNow: true) { [weak self] _ in self?.startRead() }
        // Cancelled by `paced.stop()`, at once if the reads stopped already.
        paced.attach(publisher.watch.observe { [weak self] event in self?.watchDidSend(event) })
        startRead()
    }

    func cancel() {
        paced.stop()
        let running = state.withLock { state -> ReadTicket? in
            defer { state.phase = .finished; state.waiting = nil }
            return state.isObserving ? state.ticket : nil
        }
        running?.abandon()
    }

    // MARK: Signals

    private func watchDidSend(_ event: PostgresCommitWatch.Event) {
        switch event {
        case .changed:
            paced.commit()
        case let .lost(error):
            // `not live` at once, with the reason, without waiting for a
            // read to fail.
            if let value = publisher.transientFailure(error) { deliver(value) }
        case .liveness:
            break
        }
    }

    // MARK: Reads

    private func startRead() {
        let ticket = ReadTicket()
        let proceeds = state.withLock { state -> Bool in
            guard state.isObserving else { return false }
            state.ticket = ticket
            return true
        }
        guard proceeds else { return }
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            paced.readDidStart()
            let result = Result { try publisher.read(ticket) }
            readDidEnd(result, at: paced.now)
        }
    }

    private func readDidEnd(_ result: Result<Value, any Error>, at end: TimeInterval) {
        switch result {
        case let .success(value):
            deliver(value)
        case let .failure(error):
            guard let value = publisher.transientFailure(error) else {
                finish(with: error)
                return
            }
            deliver(value)
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.retryDelay) { [weak self] in
                self?.paced.commit()
            }
        }
        let observing = state.withLock { state -> Bool in
            guard state.isObserving else { return false }
            state.ticket = nil
            return true
        }
        if observing { paced.readDidEnd(at: end) }
    }

    // MARK: Delivery

    /// Sends `value` on the main queue, or keeps it until demand comes.
    private func deliver(_ value: Value) {
        DispatchQueue.main.async { [self] in deliverNow(value) }
    }

    private func deliverNow(_ value: Value) {
        let receiver = state.withLock { state -> Downstream? in
            guard case let .observing(downstream) = state.phase else { return nil }
            guard state.demand > .none else {
                state.waiting = value
                return nil
            }
            state.demand -= 1
            return downstream
        }
        guard let receiver else { return }
        let more = receiver.subscriber.receive(value)
        state.withLock { $0.demand += more }
    }

    private func finish(with error: any Error) {
        DispatchQueue.main.async { [self] in finishNow(with: error) }
    }

    private func finishNow(with error: any Error) {
        let receiver = state.withLock { state -> Downstream? in
            guard case let .observing(downstream) = state.phase else { return nil }
            state.phase = .finished
            return downstream
        }
        guard let receiver else { return }
        paced.stop()
        receiver.subscriber.receive(completion: .failure(error))
    }
}

/// The publisher of `PostgresCommitWatch.liveness()`: a passive observer
/// of the watch, each note on the main queue, the newest one kept while
/// there is no demand.
private struct CommitLiveness: Publisher {
    typealias Output = ViewerLiveness
    typealias Failure = Never

    let watch: PostgresCommitWatch

    func receive<S: Subscriber>(subscriber: S) where S.Input == ViewerLiveness, S.Failure == Never {
        let subscription = CommitLivenessSubscription(downstream: AnySubscriber(subscriber))
        subscriber.receive(subscription: subscription)
        subscription.observe(watch)
    }
}

/// A subscription of `CommitLiveness`: observing → finished.
private final class CommitLivenessSubscription: Subscription, Sendable {
    typealias Downstream = MainQueueSubscriber<ViewerLiveness, Never>

    private struct State {
        var downstream: Downstream?
        var observer: PostgresCommitWatch.Observer?
        var demand = Subscribers.Demand.none
        var waiting: ViewerLiveness?
    }

    private let state: Mutex<State>

    init(downstream: AnySubscriber<ViewerLiveness, Never>) {
        state = Mutex(State(downstream: Downstream(subscriber: downstream)))
    }

    func observe(_ watch: PostgresCommitWatch) {
        let observer = watch.observe(passive: true) { [weak self] event in
            if case let .liveness(liveness) = event { self?.deliver(liveness) }
        }
        let kept = state.withLock { state -> Bool in
            guard state.downstream != nil else { return false }
            state.observer = observer
            return true
        }
        if !kept { observer.cancel() }
    }

    func request(_ demand: Subscribers.Demand) {
        let value = state.withLock { state -> ViewerLiveness? in
            state.demand += demand
            defer { state.waiting = nil }
            return state.waiting
        }
        if let value { deliver(value) }
    }

    func cancel() {
        let observer = state.withLock { state -> PostgresCommitWatch.Observer? in
            defer { state.downstream = nil; state.observer = nil; state.waiting = nil }
            return state.observer
        }
        observer?.cancel()
    }

    private func deliver(_ liveness: ViewerLiveness) {
        DispatchQueue.main.async { [self] in deliverNow(liveness) }
    }

    private func deliverNow(_ liveness: ViewerLiveness) {
        let receiver = state.withLock { state -> Downstream? in
            guard let downstream = state.downstream else { return nil }
            guard state.demand > .none else {
                state.waiting = liveness
                return nil
            }
            state.demand -= 1
            return downstream
        }
        guard let receiver else { return }
        let more = receiver.subscriber.receive(liveness)
        state.withLock { $0.demand += more }
    }
}

/// The subscriber of a subscription that calls it on the main queue only.
// @unchecked Sendable: AnySubscriber is not Sendable; it is kept in the
// subscription's Mutex and called on the main queue only.
private struct MainQueueSubscriber<Input, Failure: Error>: @unchecked Sendable {
    let subscriber: AnySubscriber<Input, Failure>
}

/// The watch's observer is the signal of a `CommitReads`' `PacedReads`: it
/// always looks, and wants no word when a read starts.
extension PostgresCommitWatch.Observer: CommitSignal {
    package func readerWantsCommits() {}
}
