import Foundation
import GRDB
import OpenCombine
import Synchronization

/// Starts a database observation: GRDB's `start(in:onError:onChange:)`
/// methods, with their arguments other than the callbacks bound.
typealias ObservationStart<Value> = @Sendable (
    _ onError: @escaping @Sendable (Error) -> Void,
    _ onChange: @escaping @Sendable (Value) -> Void)
-> AnyDatabaseCancellable

/// The subscription of the observation publishers: values of a
/// `ValueObservation` or of a `SharedValueObservation`, and database
/// connections of a `DatabaseRegionObservation`.
///
/// It is the state machine of GRDB's own observation subscriptions:
/// waiting for demand, then observing, then finished.
///
/// - The observation starts at the first positive demand, synchronously.
/// - A value that arrives with no demand left is dropped, not buffered.
/// - `cancel()` cancels the GRDB observation.
/// - The observation (and the database connection that its start closure
///   captures) is retained until the subscription is finished.
/// - With an `OtherProcessRefresh`, a commit of another process refreshes
///   the observation. Refreshes are coalesced and paced by `PacedReads`:
///   one runs at a time, then the pause of `OtherProcessCommits.pacing`
///   (none by default), and the commits seen meanwhile make one more, so
///   that a burst of commits ends with the latest value and leaves no queue
///   behind.
///
/// ## Delivery
///
/// The lock is never held while the downstream runs, nor while GRDB or the
/// watch are called: the downstream may request more or cancel from
/// `receive(_:)`, and an `.immediate` observation delivers from `start`.
/// Values and the completion go through a queue instead, which one thread
/// at a time empties (`isDelivering`): a value that arrives while another
/// thread delivers waits there, and that thread delivers it next. So the
/// downstream gets them one at a time, in the order they came. Each one's
/// demand is checked as its turn comes, as if it had waited for a lock: it
/// counts what the value before it requested. The region publisher's
/// connections all come from the writer's queue, one after the other, so
/// each is delivered inside its database access.
// @unchecked Sendable: the mutable state is in `state`; the downstream is
// called out of it by the one thread that delivers.
final class ObservationSubscription<Downstream>: Subscription, @unchecked Sendable
where Downstream: Subscriber & GRDBSendableMetatype, Downstream.Failure == Error
{
    typealias Start = ObservationStart<Downstream.Input>

    private enum Phase {
        /// Waiting for demand, not observing the database.
        case waitingForDemand(start: Start)
        /// Observing the database. `start` stays here because it retains
        /// the database: GRDB's region observation does not, and the
        /// database must live as long as the subscription observes it.
        case observing(start: Start)
        /// Failed or cancelled, not observing the database.
        case finished
    }

    /// A value or the completion on its way to the downstream.
    // @unchecked Sendable: a value goes from the thread that fetched it to
    // the thread that delivers it, once, as every Combine value does.
    private struct Delivery: @unchecked Sendable {
        enum Event {
            case value(Downstream.Input)
            case completion(Subscribers.Completion<Error>)
        }

        /// Where a value comes from, which says whether it is still
        /// current when its turn comes, and what follows it.
        enum Origin {
            /// The observation of this generation (restarts make new ones).
            case observation(generation: Int)
            /// The refetch of this number.
            case refetch(generation: Int)
            /// An `.emit` refresh.
            case emit
            case completion
        }

        var event: Event
        var origin: Origin
        /// When it arrived, by the clock of `paced`.
        var arrival: TimeInterval?
    }

    /// What the delivering thread does out of the lock: deliver, if the
    /// downstream is still there and asks for it, then tell the pacing.
    private struct Step {
        var downstream: Downstream?
        var event: Delivery.Event
        /// The finished refetch.
        var refetch: AnyDatabaseCancellable?
        var followUp: FollowUp = .none
    }

    private enum FollowUp {
        case none
        /// A refresh's value: the refresh ends.
        case refreshEnded(arrival: TimeInterval?)
        /// The first value of a `.restart` observation: its first fetch,
        /// the first paced read, ends.
        case firstReadEnded(arrival: TimeInterval?)
        /// A refetched value: the refetch ends, and the app's own commits
        /// made during it make one more.
        case refetchEnded(arrival: TimeInterval?)
        /// The observation's value after a refetched one: it may have been
        /// fetched before the refetched one (see `receiveRefetched`).
        case fetchAgain
    }

    private struct State {
        var phase: Phase
        /// Nil once cancelled, or once it got the completion.
        var downstream: Downstream?
        var demand = Subscribers.Demand.none
        /// What waits for the thread that delivers, in the order it came.
        var deliveries: [Delivery] = []
        /// Whether a thread delivers: it empties `deliveries`.
        var isDelivering = false
        // Not in the phase, because the phase must be `.observing` *before*
        // the observation starts: an `.immediate` observation delivers its
        // first value, or an error, from `start`.
        var cancellable: AnyDatabaseCancellable?
        var registration: CommitWatch.Registration?
        /// Incremented by each restart: the values of a cancelled
        /// observation that were already scheduled are dropped.
        var generation = 0
        /// When the value of the refresh that runs was fetched.
        var fetchStamp: FetchStamp?
        /// The fetch of a `.refetch` refresh, and its number: the values of
        /// an abandoned one are dropped.
        var refetchCancellable: AnyDatabaseCancellable?
        var refetchGeneration = 0
        /// The app's own commits when the refetch started.
        var refetchOwnCommits = 0
        /// Whether the last value delivered was a refetched one.
        var lastValueWasRefetched = false
        /// True until the first value of a `.restart` observation.
        var awaitsFirstValue = false
        /// True until the observation started, with the watch registered:
        /// a refresh asked meanwhile waits for it (`refreshWaits`).
        var isStarting = false
        var refreshWaits = false

        var isObserving: Bool {
            if case .observing = phase { return true }
            return false
        }

        /// Takes the role of the delivering thread, if no thread has it.
        mutating func claimsDelivery() -> Bool {
            defer { isDelivering = true }
            return !isDelivering
        }

        /// Ends the subscription: the database resources to release.
        mutating func finish() -> Resources {
            defer {
                phase = .finished
                cancellable = nil
                registration = nil
                refetchCancellable = nil
            }
            return Resources(
                registration: registration, cancellable: cancellable, refetchCancellable: refetchCancellable)
        }
    }

    /// What a finished subscription releases, out of the lock.
    private struct Resources {
        var registration: CommitWatch.Registration?
        var cancellable: AnyDatabaseCancellable?
        var refetchCancellable: AnyDatabaseCancellable?

        func cancel() {
            registration?.cancel()
            cancellable?.cancel()
            refetchCancellable?.cancel()
        }
    }

    private let state: Mutex<State>
    private let otherProcesses: OtherProcessRefresh<Downstream.Input>?
    /// When refreshes run: one at a time, each followed by its pause.
    private let paced: PacedReads
    /// How often a refresh that found the file locked is tried again, at
    /// first, and for how long (`refreshDidFail`).
    private static var busyRetryInterval: Double { 0.001 }
    private static var busyRetryWindow: Double { 1 }
    /// The shortest pause between two refreshes during a burst of commits
    /// to a file that a refresh found locked: a rollback-journal file,
    /// whose writer waits for the reads (a WAL writer never does).
    private static var lockedBurstPause: Double { 0.1 }

    init(start: @escaping Start, otherProcesses: OtherProcessRefresh<Downstream.Input>? = nil, downstream: Downstream) {
        // nonisolated(unsafe): the downstream is only used from the Mutex,
        // or by the thread that delivers.
        nonisolated(unsafe) let state = State(phase: .waitingForDemand(start: start), downstream: downstream)
        self.state = Mutex(state)
        self.otherProcesses = otherProcesses
        paced = PacedReads(policy: .writersLock(
            otherProcesses?.commits.pacing ?? .none, lockedBurstPause: Self.lockedBurstPause))
    }

    var combineIdentifier: CombineIdentifier { CombineIdentifier(self) }

    func request(_ demand: Subscribers.Demand) {
        let start = state.withLock { state -> Start? in
            switch state.phase {
            case let .waitingForDemand(start):
                guard demand > 0 else { return nil }
                state.phase = .observing(start: start)
                state.demand = demand
                state.isStarting = true
                return start
            case .observing:
                state.demand += demand
                return nil
            case .finished:
                return nil
            }
        }
        if let start {
            startObserving(start)
        }
    }

    func cancel() {
        let resources = state.withLock { state in
            state.downstream = nil
            state.deliveries.removeAll()
            return state.finish()
        }
        paced.stop()
        resources.cancel()
    }

    private func startObserving(_ start: Start) {
        // Watch before the observation starts, so that a commit made during
        // its first fetch is not missed: its refresh runs after the start.
        if let otherProcesses {
            // A commit during the first fetch of an observation that
            // restarts waits for its value: a restart would drop it, and
            // fetch again behind it (a slow query, twice).
            var awaitsFirstValue = false
            if case .restart = otherProcesses.action { awaitsFirstValue = true }
            state.withLock { $0.awaitsFirstValue = awaitsFirstValue }
            paced.start(readingNow: awaitsFirstValue) { [weak self] _ in self?.refresh() }
            do {
                let registration = try CommitWatch.register(
                    reader: otherProcesses.reader,
                    commits: otherProcesses.commits,
                    listener: makeListener(otherProcesses.commits))
                if let registration {
                    let kept = state.withLock { state in
                        if state.isObserving { state.registration = registration }
                        return state.isObserving
                    }
                    if kept { paced.attach(registration) } else { registration.cancel() }
                }
            } catch {
                receive(completion: .failure(error), generation: 0)
                return
            }
        }
        let cancellable = start(
            { [weak self] error in self?.receive(completion: .failure(error), generation: 0) },
            { [weak self] value in self?.receive(value, generation: 0) })
        keep(cancellable, generation: 0)
        let refreshes = state.withLock { state in
            defer { state.isStarting = false; state.refreshWaits = false }
            return state.isObserving && state.refreshWaits
        }
        if refreshes { refresh() }
    }

    /// Keeps the observation of `generation`, or cancels it when the
    /// subscription finished, or restarted, while it started.
    private func keep(_ cancellable: AnyDatabaseCancellable, generation: Int) {
        let kept = state.withLock { state in
            guard state.isObserving, state.generation == generation else { return false }
            state.cancellable = cancellable
            return true
        }
        if !kept { cancellable.cancel() }
    }

    // MARK: - Delivery

    private func receive(_ value: Downstream.Input, generation: Int) {
        // The read ends as its value arrives: the subscriber's own work is
        // not reading.
        enqueue(Delivery(event: .value(value), origin: .observation(generation: generation), arrival: paced.now))
    }

    private func receiveRefetched(_ value: Downstream.Input, refetchGeneration: Int) {
        enqueue(Delivery(event: .value(value), origin: .refetch(generation: refetchGeneration), arrival: paced.now))
    }

    private func receive(completion: Subscribers.Completion<Error>, generation: Int) {
        let finished = state.withLock { state -> Resources? in
            guard generation == state.generation, state.isObserving else { return nil }
            state.deliveries.append(Delivery(event: .completion(completion), origin: .completion))
            return state.finish()
        }
        guard let finished else { return }
        paced.stop()
        finished.cancel()
        deliverQueued()
    }

    /// Queues a value, then delivers what waits, unless another thread
    /// does already: it delivers this one too.
    private func enqueue(_ delivery: Delivery) {
        let delivers = state.withLock { state in
            guard state.isObserving else { return false }
            state.deliveries.append(delivery)
            return state.claimsDelivery()
        }
        if delivers {
            deliverAsTheDeliveringThread()
        }
    }

    private func deliverQueued() {
        if state.withLock({ $0.claimsDelivery() }) {
            deliverAsTheDeliveringThread()
        }
    }

    private func deliverAsTheDeliveringThread() {
        while let step = state.withLock({ nextStep(&$0) }) {
            perform(step)
        }
    }

    /// The next delivery whose turn has come, or nil when none waits: the
    /// thread then stops delivering. Called with the lock held.
    private func nextStep(_ state: inout State) -> Step? {
        while !state.deliveries.isEmpty {
            let delivery = state.deliveries.removeFirst()
            if case .completion = delivery.event {
                defer { state.downstream = nil }
                return Step(downstream: state.downstream, event: delivery.event)
            }
            var step = Step(downstream: nil, event: delivery.event)
            switch delivery.origin {
            case let .observation(generation):
                guard generation == state.generation else { continue }
                switch otherProcesses?.action {
                case .restart where state.awaitsFirstValue:
                    state.awaitsFirstValue = false
                    step.followUp = .firstReadEnded(arrival: delivery.arrival)
                case .restart:
                    // The first value of a restarted observation ends its refresh.
                    step.followUp = .refreshEnded(arrival: delivery.arrival)
                case .refetch where state.lastValueWasRefetched:
                    state.lastValueWasRefetched = false
                    step.followUp = .fetchAgain
                default:
                    break
                }
            case let .refetch(generation):
                guard generation == state.refetchGeneration, state.isObserving else { continue }
                step.refetch = state.refetchCancellable
                state.refetchCancellable = nil
                state.lastValueWasRefetched = true
                step.followUp = .refetchEnded(arrival: delivery.arrival)
            case .emit:
                step.followUp = .refreshEnded(arrival: nil)
            case .completion:
                break
            }
            // A value that arrives with no demand is dropped, not buffered.
            if state.downstream != nil, state.demand > .none {
                state.demand -= 1
                step.downstream = state.downstream
            }
            return step
        }
        state.isDelivering = false
        return nil
    }

    private func perform(_ step: Step) {
        step.refetch?.cancel()
        if let downstream = step.downstream {
            switch step.event {
            case let .value(value):
                let additionalDemand = downstream.receive(value)
                if additionalDemand > .none {
                    state.withLock { state in
                        if state.downstream != nil { state.demand += additionalDemand }
                    }
                }
            case let .completion(completion):
                downstream.receive(completion: completion)
            }
        }
        switch step.followUp {
        case .none:
            break
        case let .refreshEnded(arrival):
            refreshDidEnd(at: arrival)
        case let .firstReadEnded(arrival):
            paced.firstReadDidEnd(at: arrival)
        case let .refetchEnded(arrival):
            // An own commit during the fetch may have been missed by it,
            // and its value published before: fetch again.
            let missedOwnCommit = state.withLock { state in
                state.registration.map { $0.ownCommitCount != state.refetchOwnCommits } ?? false
            }
            if missedOwnCommit { paced.commit() }
            refreshDidEnd(at: arrival)
        case .fetchAgain:
            // A value of the app's own transaction may have been fetched
            // before the refetched one it follows: fetch again.
            otherProcessDidCommit()
        }
    }

    // MARK: - Other processes

    // The watch serves every subscription of its database from one queue:
    // the lock it takes is never held while the subscriber receives.
    private func makeListener(_ commits: OtherProcessCommits) -> CommitWatch.Listener {
        CommitWatch.Listener(
            onCommit: { [weak self] in self?.otherProcessDidCommit() },
            wantsCommits: { [weak self] in self?.wantsCommits ?? false },
            onFailure: { [weak self] error in
                guard let self else { return }
                DispatchQueue.global().async { self.watchDidFail(error) }
            },
            onPollingFallback: commits.onPollingFallback)
    }

    private func watchDidFail(_ error: Error) {
        guard let otherProcesses else { return }
        let generation = state.withLock { $0.generation }
        otherProcesses.schedule { [weak self] in
            self?.receive(completion: .failure(error), generation: generation)
        }
    }

    /// False while a commit waits for its refresh: the refresh reads all
    /// the commits made until it starts.
    private var wantsCommits: Bool {
        state.withLock { $0.isObserving } && !paced.isPending
    }

    private func otherProcessDidCommit() {
        guard state.withLock({ $0.isObserving }) else { return }
        paced.commit()
    }

    /// Ends a refresh, and pauses before the pending one, if any.
    private func refreshDidEnd(at arrival: TimeInterval?) {
        // The read ends when its value is fetched, if known: the wait for
        // the subscriber's queue is not reading. A value that is not a
        // refresh's (the observation's first) is ignored by `paced`.
        let fetched = state.withLock { state in
            defer { state.fetchStamp = nil }
            return state.fetchStamp?.time
        }
        paced.readDidEnd(at: fetched ?? arrival)
    }

    /// Retries a refresh that found the database locked, or fails.
    ///
    /// In rollback-journal mode, another process that commits locks the
    /// whole file for a moment: a fetch that comes then fails with
    /// `SQLITE_BUSY`, unless the connection waits (`Configuration.busyMode`).
    /// A writer that commits back to back holds the lock most of the time,
    /// and leaves gaps of a millisecond or so between commits: the refresh
    /// is tried again every `busyRetryInterval` for `busyRetryWindow`, to
    /// get into one (a retry that fails costs the writer nothing), then
    /// every 50 ms.
    private func refreshDidFail(_ error: Error, generation: Int, refetchGeneration: Int? = nil) {
        let isCurrent = state.withLock { state in
            state.isObserving && generation == state.generation
                && (refetchGeneration ?? state.refetchGeneration) == state.refetchGeneration
        }
        guard let error = error as? DatabaseError,
              error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
        else {
            if isCurrent {
                receive(completion: .failure(error), generation: generation)
            }
            return
        }
        guard isCurrent else { return }
        paced.readFoundLocked()
        let delay = paced.readElapsed < Self.busyRetryWindow ? Self.busyRetryInterval : 0.05
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self else { return }
            let isCurrent = state.withLock { state in
                generation == state.generation
                    && (refetchGeneration ?? state.refetchGeneration) == state.refetchGeneration
            }
            if isCurrent { refresh() }
        }
    }

    /// Starts a refresh, which `paced` asks for: for commits that waited,
    /// after the watch, which did not look meanwhile, looks again
    /// (`CommitSignal.readerWantsCommits()`).
    private func refresh() {
        guard let otherProcesses else { return }
        let proceeds = state.withLock { state in
            if state.isStarting { state.refreshWaits = true }
            return state.isObserving && !state.isStarting
        }
        guard proceeds else { return }
        switch otherProcesses.action {
        case let .restart(start):
            restart(start)
        case let .refetch(start):
            refetch(start, otherProcesses.reader)
        case .notify:
            state.withLock { $0.registration }?.notifyChanges()
            refreshDidEnd(at: nil)
        case let .emit(emit):
            emit { [weak self] value in
                self?.enqueue(Delivery(event: .value(value), origin: .emit))
            }
        }
    }

    private func restart(_ start: RestartStart<Downstream.Input>) {
        // Stamped on the database's queue, without the lock.
        let fetchStamp = FetchStamp(paced)
        let restarted = state.withLock { state -> (generation: Int, previous: AnyDatabaseCancellable?)? in
            guard state.isObserving else { return nil }
            defer { state.cancellable = nil }
            state.generation += 1
            state.fetchStamp = fetchStamp
            return (state.generation, state.cancellable)
        }
        guard let (generation, previous) = restarted else { return }
        previous?.cancel()
        let cancellable = start(
            { [weak self] error in self?.refreshDidFail(error, generation: generation) },
            { [weak self] value in self?.receive(value, generation: generation) },
            { fetchStamp.stamp() })
        keep(cancellable, generation: generation)
    }

    private func refetch(_ start: RefetchStart<Downstream.Input>, _ observedReader: any DatabaseReader) {
        let fetchStamp = FetchStamp(paced)
        let refetch = state.withLock { state -> Refetch? in
            guard state.isObserving else { return nil }
            defer { state.refetchCancellable = nil }
            state.refetchGeneration += 1
            state.refetchOwnCommits = state.registration?.ownCommitCount ?? 0
            state.fetchStamp = fetchStamp
            // Without a connection of its own, the pool fetches (twice).
            return Refetch(
                reader: state.registration?.refetchReader ?? observedReader,
                generation: state.generation, refetchGeneration: state.refetchGeneration,
                previous: state.refetchCancellable)
        }
        guard let refetch else { return }
        refetch.previous?.cancel()
        let cancellable = start(
            refetch.reader,
            { [weak self] error in
                self?.refreshDidFail(error, generation: refetch.generation, refetchGeneration: refetch.refetchGeneration)
            },
            { [weak self] value in self?.receiveRefetched(value, refetchGeneration: refetch.refetchGeneration) },
            { fetchStamp.stamp() })
        let kept = state.withLock { state in
            guard state.isObserving, state.refetchGeneration == refetch.refetchGeneration else { return false }
            state.refetchCancellable = cancellable
            return true
        }
        if !kept { cancellable.cancel() }
    }

    private struct Refetch {
        var reader: any DatabaseReader
        var generation: Int
        var refetchGeneration: Int
        var previous: AnyDatabaseCancellable?
    }
}
