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

/// Starts a database observation again, after a commit of another process:
/// an `ObservationStart` that also calls `onFetched` when a value is
/// fetched, before it is scheduled, so that the time of the read does not
/// include the wait for the subscriber's queue.
typealias RestartStart<Value> = @Sendable (
    _ onError: @escaping @Sendable (Error) -> Void,
    _ onChange: @escaping @Sendable (Value) -> Void,
    _ onFetched: @escaping @Sendable () -> Void)
-> AnyDatabaseCancellable

/// Fetches the value of a database observation once, on `reader`, as
/// `RestartStart` does: the observation that runs is left alone.
typealias RefetchStart<Value> = @Sendable (
    _ reader: any DatabaseReader,
    _ onError: @escaping @Sendable (Error) -> Void,
    _ onChange: @escaping @Sendable (Value) -> Void,
    _ onFetched: @escaping @Sendable () -> Void)
-> AnyDatabaseCancellable

/// How an observation subscription sees the commits of other processes,
/// which GRDB does not see.
struct OtherProcessRefresh<Value>: Sendable {
    /// What a subscription does when another process committed.
    enum Action: Sendable {
        /// Starts the observation again: its initial value is the fresh
        /// value. It works on read-only connections too, where GRDB fetches
        /// once, and fetches on a reader of a pool, without waiting for the
        /// writer. The start must not be `.immediate`: it is called from
        /// the watch's queue.
        case restart(RestartStart<Value>)
        /// Fetches the fresh value once, on a read-only connection of the
        /// watch, and keeps the observation, which sees the app's own
        /// transactions: on a writable pool, a restart fetches twice (on a
        /// reader, then on the writer).
        case refetch(RefetchStart<Value>)
        /// Calls its argument once, asynchronously, with the value to
        /// emit: a region observation emits a connection from the
        /// writer's queue.
        case emit(@Sendable (_ emit: @escaping @Sendable (Value) -> Void) -> Void)
        /// Makes GRDB notify the observations of a writable database: a
        /// shared observation refreshes all its subscribers. The watch
        /// notifies once per commit, for all the subscriptions that ask.
        case notify
    }

    /// The observed database.
    var reader: any DatabaseReader
    /// How commits are detected.
    var commits: OtherProcessCommits
    /// What the subscription does after one.
    var action: Action
    /// Runs its argument where the observation delivers its errors: a
    /// `DatabaseFileChangedError` comes from the watch's queue, and must
    /// reach the subscriber where the observation's own errors do.
    var schedule: @Sendable (_ work: @escaping @Sendable () -> Void) -> Void
}

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
// @unchecked Sendable: `state`, `cancellable`, `generation`, `fetchStamp`,
// `registration`, `awaitsFirstValue` and the `refetch...` properties are
// only accessed with `lock` held.
final class ObservationSubscription<Downstream>: Subscription, @unchecked Sendable
where Downstream: Subscriber & GRDBSendableMetatype, Downstream.Failure == Error
{
    typealias Start = ObservationStart<Downstream.Input>

    private enum State {
        /// Waiting for demand, not observing the database.
        case waitingForDemand(Downstream, start: Start)
        /// Observing the database. `start` stays here because it retains
        /// the database: GRDB's region observation does not, and the
        /// database must live as long as the subscription observes it.
        case observing(Downstream, start: Start, remainingDemand: Subscribers.Demand)
        /// Failed or cancelled, not observing the database.
        case finished
    }

    // The cancellable is not part of the state, because the state must be
    // `.observing` *before* the observation starts: an `.immediate`
    // observation delivers its first value, or an error, from `start`.
    private var cancellable: AnyDatabaseCancellable?
    private var state: State
    private let lock = NSRecursiveLock() // Allow re-entrancy
    private let otherProcesses: OtherProcessRefresh<Downstream.Input>?
    private var registration: CommitWatch.Registration?
    /// Incremented by each restart: the values of a cancelled observation
    /// that were already scheduled are dropped.
    private var generation = 0
    /// When refreshes run: one at a time, each followed by its pause.
    private let paced: PacedReads
    /// When the value of the refresh that runs was fetched.
    private var fetchStamp: FetchStamp?
    /// The fetch of a `.refetch` refresh, and its number: the values of
    /// an abandoned one are dropped.
    private var refetchCancellable: AnyDatabaseCancellable?
    private var refetchGeneration = 0
    /// The app's own commits when the refetch started.
    private var refetchOwnCommits = 0
    /// Whether the last value delivered was a refetched one.
    private var lastValueWasRefetched = false
    /// True until the first value of a `.restart` observation: its first
    /// fetch is the first paced read (see `request(_:)`).
    private var awaitsFirstValue = false
    /// Whether a commit waits for the lock on another thread.
    private let hasDeferredCommit = Mutex(false)
    /// How often a refresh that found the file locked is tried again, at
    /// first, and for how long (`refreshDidFail`).
    private static var busyRetryInterval: Double { 0.001 }
    private static var busyRetryWindow: Double { 1 }
    /// The shortest pause between two refreshes during a burst of commits
    /// to a file that a refresh found locked: a rollback-journal file,
    /// whose writer waits for the reads (a WAL writer never does).
    private static var lockedBurstPause: Double { 0.1 }

    init(start: @escaping Start, otherProcesses: OtherProcessRefresh<Downstream.Input>? = nil, downstream: Downstream) {
        state = .waitingForDemand(downstream, start: start)
        self.otherProcesses = otherProcesses
        paced = PacedReads(policy: .writersLock(
            otherProcesses?.commits.pacing ?? .none, lockedBurstPause: Self.lockedBurstPause))
    }

    var combineIdentifier: CombineIdentifier { CombineIdentifier(self) }

    func request(_ demand: Subscribers.Demand) {
        lock.synchronized { sideEffect in
            switch state {
            case let .waitingForDemand(downstream, start):
                guard demand > 0 else { return }
                state = .observing(downstream, start: start, remainingDemand: demand)

                // Watch before the observation starts, so that a commit
                // made during its first fetch is not missed.
                if let otherProcesses {
                    // A commit during the first fetch of an observation that
                    // restarts waits for its value: a restart would drop it,
                    // and fetch again behind it (a slow query, twice).
                    if case .restart = otherProcesses.action { awaitsFirstValue = true }
                    paced.start(readingNow: awaitsFirstValue) { [weak self] reason in self?.pacedRead(reason) }
                    do {
                        let registration = try CommitWatch.register(
                            reader: otherProcesses.reader,
                            commits: otherProcesses.commits,
                            listener: makeListener(otherProcesses.commits))
                        self.registration = registration
                        if let registration { paced.attach(registration) }
                    } catch {
                        state = .finished
                        paced.stop()
                        sideEffect = { downstream.receive(completion: .failure(error)) }
                        return
                    }
                }

                let generation = generation
                let cancellable = start(
                    { [weak self] error in self?.receive(completion: .failure(error), generation: generation) },
                    { [weak self] value in self?.receive(value, generation: generation) })

                // The state may have changed during `start` (an error, or a
                // cancellation from the downstream).
                if case .observing = state {
                    self.cancellable = cancellable
                } else {
                    cancellable.cancel()
                }

            case let .observing(downstream, start, remainingDemand):
                state = .observing(downstream, start: start, remainingDemand: remainingDemand + demand)

            case .finished:
                break
            }
        }
    }

    func cancel() {
        lock.synchronized { sideEffect in
            let cancellable = self.cancellable
            let registration = self.registration
            let refetchCancellable = self.refetchCancellable
            self.cancellable = nil
            self.registration = nil
            self.refetchCancellable = nil
            state = .finished
            paced.stop()
            sideEffect = {
                registration?.cancel()
                cancellable?.cancel()
                refetchCancellable?.cancel()
            }
        }
    }

    private func receive(_ value: Downstream.Input, generation: Int) {
        // The downstream is called with the lock held, so that values are
        // delivered one after the other, in order, and the demand stays
        // accurate. The lock is recursive, so the downstream may request
        // more or cancel from `receive(_:)`.
        lock.synchronized {
            guard generation == self.generation else { return }
            // The read ends as its value arrives: the subscriber's own work
            // is not reading.
            let arrival = paced.now
            deliver(value)
            switch otherProcesses?.action {
            case .restart where awaitsFirstValue:
                awaitsFirstValue = false
                paced.firstReadDidEnd(at: arrival)
            case .restart:
                // The first value of a restarted observation ends its refresh.
                refreshDidEnd(at: arrival)
            case .refetch:
                // A value of the app's own transaction may have been fetched
                // before the refetched one it follows: fetch again.
                if lastValueWasRefetched {
                    lastValueWasRefetched = false
                    otherProcessDidCommit()
                }
            default:
                break
            }
        }
    }

    private func receiveRefetched(_ value: Downstream.Input, refetchGeneration: Int) {
        lock.synchronized {
            guard refetchGeneration == self.refetchGeneration, case .observing = state else { return }
            let arrival = paced.now
            refetchCancellable?.cancel()
            refetchCancellable = nil
            deliver(value)
            lastValueWasRefetched = true
            // An own commit during the fetch may have been missed by it, and
            // its value published before: fetch again.
            if let registration, registration.ownCommitCount != refetchOwnCommits {
                paced.commit()
            }
            refreshDidEnd(at: arrival)
        }
    }

    /// Delivers a value, if there is demand for it. Called with the lock held.
    private func deliver(_ value: Downstream.Input) {
        // A value that arrives with no demand is dropped, not buffered.
        guard case let .observing(downstream, start, remainingDemand) = state, remainingDemand > .none else {
            return
        }
        state = .observing(downstream, start: start, remainingDemand: remainingDemand - 1)
        let additionalDemand = downstream.receive(value)
        if case let .observing(downstream, start, remainingDemand) = state {
            state = .observing(downstream, start: start, remainingDemand: remainingDemand + additionalDemand)
        }
    }

    private func receive(completion: Subscribers.Completion<Error>, generation: Int) {
        lock.synchronized { sideEffect in
            guard generation == self.generation, case let .observing(downstream, _, _) = state else { return }
            let registration = self.registration
            let cancellable = self.cancellable
            let refetchCancellable = self.refetchCancellable
            self.registration = nil
            self.cancellable = nil
            self.refetchCancellable = nil
            state = .finished
            paced.stop()
            sideEffect = {
                registration?.cancel()
                cancellable?.cancel()
                refetchCancellable?.cancel()
                downstream.receive(completion: completion)
            }
        }
    }

    // MARK: - Other processes

    // The watch serves every subscription of its database from one queue:
    // it never waits for this subscription's lock, which the subscriber
    // holds while it receives a value, however long it takes.
    private func makeListener(_ commits: OtherProcessCommits) -> CommitWatch.Listener {
        CommitWatch.Listener(
            onCommit: { [weak self] in self?.watchDidSeeCommit() },
            wantsCommits: { [weak self] in self?.wantsCommits ?? false },
            onFailure: { [weak self] error in
                guard let self else { return }
                DispatchQueue.global().async { self.watchDidFail(error) }
            },
            onPollingFallback: commits.onPollingFallback)
    }

    private func watchDidFail(_ error: Error) {
        guard let otherProcesses else { return }
        let generation: Int = lock.synchronized { self.generation }
        otherProcesses.schedule { [weak self] in
            self?.receive(completion: .failure(error), generation: generation)
        }
    }

    /// False while a commit waits for its refresh: the refresh reads all
    /// the commits made until it starts. True while the subscriber
    /// receives a value: the watch looks anyway.
    private var wantsCommits: Bool {
        guard lock.try() else { return true }
        defer { lock.unlock() }
        guard case .observing = state else { return false }
        return !paced.isPending
    }

    /// Handles the commit at once if the lock is free, or later on another
    /// thread: one such wait at a time, which sees the commits made until
    /// it gets the lock.
    private func watchDidSeeCommit() {
        if lock.try() {
            defer { lock.unlock() }
            otherProcessDidCommit()
            return
        }
        let schedules = hasDeferredCommit.withLock { has in
            defer { has = true }
            return !has
        }
        guard schedules else { return }
        DispatchQueue.global().async { [weak self] in
            guard let self else { return }
            lock.synchronized {
                hasDeferredCommit.withLock { $0 = false }
                otherProcessDidCommit()
            }
        }
    }

    private func otherProcessDidCommit() {
        lock.synchronized {
            guard case .observing = state else { return }
            paced.commit()
        }
    }

    /// Ends a refresh, and pauses before the pending one, if any. Called
    /// with the lock held.
    private func refreshDidEnd(at arrival: TimeInterval? = nil) {
        // The read ends when its value is fetched, if known: the wait for
        // the subscriber's queue is not reading. A value that is not a
        // refresh's (the observation's first) is ignored by `paced`.
        let end = fetchStamp?.time ?? arrival
        fetchStamp = nil
        paced.readDidEnd(at: end)
    }

    /// Starts a refresh that `paced` asks for: for commits that waited,
    /// after the watch, which did not look meanwhile, looks again
    /// (`CommitSignal.readerWantsCommits()`).
    private func pacedRead(_ reason: PacedReads.Reason) {
        lock.synchronized {
            guard case .observing = state else { return }
            refresh()
        }
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
        guard let error = error as? DatabaseError,
              error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
        else {
            let isCurrent = lock.synchronized { isCurrentRefresh(generation, refetchGeneration) }
            if isCurrent {
                receive(completion: .failure(error), generation: generation)
            }
            return
        }
        let delay: Double = lock.synchronized {
            guard isCurrentRefresh(generation, refetchGeneration), case .observing = state else { return 0 }
            paced.readFoundLocked()
            let elapsed = paced.readElapsed
            return elapsed < Self.busyRetryWindow ? Self.busyRetryInterval : 0.05
        }
        guard delay > 0 else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self else { return }
            lock.synchronized {
                guard isCurrentRefresh(generation, refetchGeneration) else { return }
                refresh()
            }
        }
    }

    /// Whether the refresh of these generations is the last one. Called
    /// with the lock held.
    private func isCurrentRefresh(_ generation: Int, _ refetchGeneration: Int?) -> Bool {
        generation == self.generation && (refetchGeneration ?? self.refetchGeneration) == self.refetchGeneration
    }

    /// Called with the lock held.
    private func refresh() {
        guard let otherProcesses, case .observing = state else { return }
        switch otherProcesses.action {
        case let .restart(start):
            generation += 1
            let generation = generation
            let previous = cancellable
            cancellable = nil
            previous?.cancel()
            // Stamped on the database's queue, without the lock, which the
            // delivery of a value holds.
            let fetchStamp = FetchStamp(paced)
            self.fetchStamp = fetchStamp
            let cancellable = start(
                { [weak self] error in self?.refreshDidFail(error, generation: generation) },
                { [weak self] value in self?.receive(value, generation: generation) },
                { fetchStamp.stamp() })
            if case .observing = state, generation == self.generation {
                self.cancellable = cancellable
            } else {
                cancellable.cancel()
            }

        case let .refetch(start):
            // Without a connection of its own, the pool fetches (twice).
            let reader = registration?.refetchReader ?? otherProcesses.reader
            refetchGeneration += 1
            let refetchGeneration = refetchGeneration
            let generation = generation
            let previous = refetchCancellable
            refetchCancellable = nil
            previous?.cancel()
            refetchOwnCommits = registration?.ownCommitCount ?? 0
            let fetchStamp = FetchStamp(paced)
            self.fetchStamp = fetchStamp
            let cancellable = start(
                reader,
                { [weak self] error in
                    self?.refreshDidFail(error, generation: generation, refetchGeneration: refetchGeneration)
                },
                { [weak self] value in self?.receiveRefetched(value, refetchGeneration: refetchGeneration) },
                { fetchStamp.stamp() })
            if case .observing = state, refetchGeneration == self.refetchGeneration {
                refetchCancellable = cancellable
            } else {
                cancellable.cancel()
            }

        case .notify:
            registration?.notifyChanges()
            refreshDidEnd()

        case let .emit(emit):
            emit { [weak self] value in
                guard let self else { return }
                lock.synchronized {
                    deliver(value)
                    refreshDidEnd()
                }
            }
        }
    }
}

/// When the value of a refresh was fetched: its first value only, by the
/// clock of its `PacedReads`.
private final class FetchStamp: Sendable {
    private let paced: PacedReads
    private let _time = Mutex<TimeInterval?>(nil)

    init(_ paced: PacedReads) {
        self.paced = paced
    }

    /// The time of the first call to `stamp()`.
    var time: TimeInterval? { _time.withLock { $0 } }

    func stamp() {
        let now = paced.now
        _time.withLock { time in
            if time == nil { time = now }
        }
    }
}

/// The watch's registration is the signal of a subscription's `PacedReads`.
extension CommitWatch.Registration: CommitSignal {
    func readerWantsCommits() {
        listenerWantsCommits()
    }
}
