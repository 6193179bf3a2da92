import Foundation
import OpenCombine
import PostgresClient
import ReactiveGRDB

// MARK: - Reads again at each commit

extension PostgresCommitWatch {
    /// A read, run off the main thread at subscription and again at each
    /// signal of the watch, paced during a burst of commits; its values
    /// on the main queue. The engine of `PostgresDataSource.windows(of:_:)`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let titles = watch.reads(
    ///     pacing: ViewerPacing.window,
    ///     read: { ticket in try fetchTitles(ticket) },
    ///     transientFailure: { error in nil })
    /// ```
    ///
    /// - parameter pacing: How often reads may run during a burst.
    /// - parameter read: The read; abandoning its ticket must interrupt
    ///   it. Runs on a global queue, one at a time.
    /// - parameter transientFailure: The value that tells a failure the
    ///   reads go on after (the server unreachable for now), or nil for a
    ///   failure that ends them. Also called with the watch's `.lost`
    ///   error.
    public func reads<Value: Sendable>(
        pacing: RefreshPacing,
        read: @escaping @Sendable (ReadTicket) throws -> Value,
        transientFailure: @escaping @Sendable (any Error) -> Value?
    ) -> CommitReads<Value> {
        CommitReads(watch: self, pacing: pacing, read: read, transientFailure: transientFailure)
    }

    /// The title's note of how commits are seen, from the watch: sent on
    /// the main queue when it changes, while the poll runs (the
    /// subscription does not start it: see `observe(passive:_:)`).
    ///
    /// For example:
    ///
    /// ```swift
    /// let cancellable = watch.liveness().sink { print($0.note) } // polled every 0.05 s
    /// ```
    public func liveness() -> AnyPublisher<ViewerLiveness, Never> {
        CommitLiveness(watch: self).eraseToAnyPublisher()
    }
}

/// The publisher of `PostgresCommitWatch.reads(pacing:read:transientFailure:)`.
public struct CommitReads<Value: Sendable>: Publisher {
    /// The values of the read, and the transient failures.
    public typealias Output = Value
    /// The error of a read that ends the reads.
    public typealias Failure = any Error

    let watch: PostgresCommitWatch
    let pacing: RefreshPacing
    let read: @Sendable (ReadTicket) throws -> Value
    let transientFailure: @Sendable (any Error) -> Value?

    /// Subscribes: the first read starts on the first demand.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Value, S.Failure == any Error {
        let subscription = CommitReadsSubscription(publisher: self, downstream: AnySubscriber(subscriber))
        subscriber.receive(subscription: subscription)
    }
}

/// A subscription of `CommitReads`: waiting for demand → observing the
/// watch (reading, pausing or idle, as its `RefreshPacer` says) →
/// finished. Values are delivered on the main queue, in the order of the
/// reads (one runs at a time); without demand, the newest one waits.
// Its downstream is type-erased: a subscription generic over it would
// capture its metatype, which need not be Sendable, in the closures it
// dispatches.
// @unchecked Sendable: every `var` is only accessed with `lock` held.
private final class CommitReadsSubscription<Value: Sendable>: Subscription, @unchecked Sendable {
    typealias Downstream = AnySubscriber<Value, any Error>

    private enum State {
        case waitingForDemand(Downstream)
        case observing(Downstream, PostgresCommitWatch.Observer?)
        case finished
    }

    private let publisher: CommitReads<Value>
    private let lock = NSLock()
    private var state: State
    private var demand = Subscribers.Demand.none
    /// The newest value, waiting for demand.
    private var waiting: Value?
    private var pacer: RefreshPacer
    private var ticket: ReadTicket?

    /// How long a read that failed for now waits before it runs again,
    /// when no signal comes before (the watch's connection is fine while
    /// the read's broke): 1 s, as for SQLite.
    static var retryDelay: TimeInterval { 1 }

    init(publisher: CommitReads<Value>, downstream: Downstream) {
        self.publisher = publisher
        state = .waitingForDemand(downstream)
        pacer = RefreshPacer(pacing: publisher.pacing)
    }

    func request(_ demand: Subscribers.Demand) {
        let (starts, value) = lock.withLock { () -> (Bool, Value?) in
            self.demand += demand
            switch state {
            case let .waitingForDemand(downstream):
                guard demand > .none else { return (false, nil) }
                state = .observing(downstream, nil)
                return (pacer.change(), nil)
            case .observing:
                defer { waiting = nil }
                return (false, waiting)
            case .finished:
                return (false, nil)
            }
        }
        if let value { deliver(value) }
        guard starts else { return }
        let observer = publisher.watch.observe { [weak self] event in self?.watchDidSend(event) }
        let kept = lock.withLock { () -> Bool in
            guard case let .observing(downstream, _) = state else { return false }
            state = .observing(downstream, observer)
            return true
        }
        if !kept { observer.cancel() }
        startRead()
    }

    func cancel() {
        let (observer, running) = lock.withLock { () -> (PostgresCommitWatch.Observer?, ReadTicket?) in
            defer { state = .finished; waiting = nil }
            guard case let .observing(_, observer) = state else { return (nil, nil) }
            return (observer, ticket)
        }
        running?.abandon()
        observer?.cancel()
    }

    // MARK: Signals

    private func watchDidSend(_ event: PostgresCommitWatch.Event) {
        switch event {
        case .changed:
            change()
        case let .lost(error):
            // `not live` at once, with the reason, without waiting for a
            // read to fail.
            if let value = publisher.transientFailure(error) { deliver(value) }
        case .liveness:
            break
        }
    }

    private func change() {
        let reads = lock.withLock { () -> Bool in
            guard case .observing = state else { return false }
            return pacer.change()
        }
        if reads { startRead() }
    }

    // MARK: Reads

    private func startRead() {
        let ticket = ReadTicket()
        let proceeds = lock.withLock { () -> Bool in
            guard case .observing = state else { return false }
            self.ticket = ticket
            return true
        }
        guard proceeds else { return }
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            let start = ContinuousClock.now
            let result = Result { try publisher.read(ticket) }
            readDidEnd(result, seconds: (ContinuousClock.now - start).timeInterval)
        }
    }

    private func readDidEnd(_ result: Result<Value, any Error>, seconds: TimeInterval) {
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
                self?.change()
            }
        }
        let pause = lock.withLock { () -> TimeInterval? in
            guard case .observing = state else { return nil }
            ticket = nil
            return pacer.readDidEnd(afterReadingFor: seconds)
        }
        guard let pause else { return }
        DispatchQueue.global(qos: .userInitiated).asyncAfter(deadline: .now() + pause) { [weak self] in
            self?.pauseDidEnd()
        }
    }

    private func pauseDidEnd() {
        let reads = lock.withLock { () -> Bool in
            guard case .observing = state else { return false }
            return pacer.pauseDidEnd()
        }
        if reads { startRead() }
    }

    // MARK: Delivery

    /// Sends `value` on the main queue, or keeps it until demand comes.
    private func deliver(_ value: Value) {
        DispatchQueue.main.async { [self] in deliverNow(value) }
    }

    private func deliverNow(_ value: Value) {
        let receiver = lock.withLock { () -> Downstream? in
            guard case let .observing(downstream, _) = state else { return nil }
            guard demand > .none else {
                waiting = value
                return nil
            }
            demand -= 1
            return downstream
        }
        guard let receiver else { return }
        let more = receiver.receive(value)
        lock.withLock { demand += more }
    }

    private func finish(with error: any Error) {
        DispatchQueue.main.async { [self] in finishNow(with: error) }
    }

    private func finishNow(with error: any Error) {
        let ended = lock.withLock { () -> (Downstream, PostgresCommitWatch.Observer?)? in
            guard case let .observing(downstream, observer) = state else { return nil }
            state = .finished
            return (downstream, observer)
        }
        guard let (receiver, observer) = ended else { return }
        observer?.cancel()
        receiver.receive(completion: .failure(error))
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
// @unchecked Sendable: every `var` is only accessed with `lock` held.
private final class CommitLivenessSubscription: Subscription, @unchecked Sendable {
    typealias Downstream = AnySubscriber<ViewerLiveness, Never>

    private let lock = NSLock()
    private var downstream: Downstream?
    private var observer: PostgresCommitWatch.Observer?
    private var demand = Subscribers.Demand.none
    private var waiting: ViewerLiveness?

    init(downstream: Downstream) {
        self.downstream = downstream
    }

    func observe(_ watch: PostgresCommitWatch) {
        let observer = watch.observe(passive: true) { [weak self] event in
            if case let .liveness(liveness) = event { self?.deliver(liveness) }
        }
        let kept = lock.withLock { () -> Bool in
            guard downstream != nil else { return false }
            self.observer = observer
            return true
        }
        if !kept { observer.cancel() }
    }

    func request(_ demand: Subscribers.Demand) {
        let value = lock.withLock { () -> ViewerLiveness? in
            self.demand += demand
            defer { waiting = nil }
            return waiting
        }
        if let value { deliver(value) }
    }

    func cancel() {
        let observer = lock.withLock { () -> PostgresCommitWatch.Observer? in
            defer { downstream = nil; self.observer = nil; waiting = nil }
            return self.observer
        }
        observer?.cancel()
    }

    private func deliver(_ liveness: ViewerLiveness) {
        DispatchQueue.main.async { [self] in deliverNow(liveness) }
    }

    private func deliverNow(_ liveness: ViewerLiveness) {
        let receiver = lock.withLock { () -> Downstream? in
            guard let downstream else { return nil }
            guard demand > .none else {
                waiting = liveness
                return nil
            }
            demand -= 1
            return downstream
        }
        guard let receiver else { return }
        let more = receiver.receive(liveness)
        lock.withLock { demand += more }
    }
}
