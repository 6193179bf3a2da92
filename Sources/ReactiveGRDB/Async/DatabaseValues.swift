import Dispatch
import Foundation
import GRDB
import OpenCombine
import Synchronization

/// An asynchronous sequence of observed database values, that can include
/// the commits of other processes.
///
/// It is the `async` form of the value publishers: it produces the same
/// values as `DatabasePublishers.Value` (an initial value, then a fresh
/// value after each change), with these guarantees:
///
/// - A slow consumer never ends on a stale value. By default, the sequence
///   keeps only the newest value that the consumer has not taken yet
///   (`.bufferingNewest(1)`): after the last commit, the next value it gets
///   is the latest state.
/// - It needs no main queue: values go straight from the database
///   observation to the task that iterates, in an `async` main as in a
///   server.
/// - With `includingOtherProcesses(_:)`, it sees the commits of other
///   processes, on a read-only connection too, where GRDB's own
///   `values(in:)` fetches once.
/// - It ends when the task that iterates it is cancelled, or when the loop
///   is left: the database observation, and the watch of other processes'
///   commits, are released.
/// - It throws the errors of the observation: a database error, or a
///   `DatabaseFileChangedError` when the file is deleted or replaced.
///
/// For example:
///
/// ```swift
/// let observation = ValueObservation.tracking { db in try Player.fetchAll(db) }
/// for try await players in observation.rx.values(in: dbQueue).includingOtherProcesses() {
///     print("Fresh players: \(players)")
/// }
/// ```
///
/// You build one with `ValueObservation.rx.values(in:bufferingPolicy:)`,
/// the request conveniences `rx.valuesOfAll(in:bufferingPolicy:)`,
/// `rx.valuesOfFirst(in:bufferingPolicy:)` and
/// `rx.valuesOfCount(in:bufferingPolicy:)`, or
/// `SharedValueObservation.values(includingOtherProcessesIn:_:bufferingPolicy:)`.
public struct DatabaseValues<Element: Sendable>: AsyncSequence, Sendable {
    /// How values that the consumer has not taken yet are kept: see
    /// `AsyncThrowingStream`. The default, `.bufferingNewest(1)`, keeps the
    /// newest only.
    public typealias BufferingPolicy = AsyncThrowingStream<Element, Error>.Continuation.BufferingPolicy

    /// Builds the publisher of one iteration, which delivers its values
    /// with `scheduler`, and includes the commits of other processes when
    /// `commits` is not nil.
    typealias MakePublisher = @Sendable (
        _ scheduler: StreamScheduler,
        _ commits: OtherProcessCommits?)
    -> DatabasePublishers.Value<Element>

    private let makePublisher: MakePublisher
    private let commits: OtherProcessCommits?
    private let bufferingPolicy: BufferingPolicy

    init(commits: OtherProcessCommits? = nil, bufferingPolicy: BufferingPolicy, makePublisher: @escaping MakePublisher) {
        self.makePublisher = makePublisher
        self.commits = commits
        self.bufferingPolicy = bufferingPolicy
    }

    /// Returns a sequence that also sees the commits of other processes:
    /// after each, it produces a fresh value.
    ///
    /// It has the behavior of the publishers'
    /// `DatabasePublishers.Value.includingOtherProcesses(_:)`: it works on
    /// a `DatabaseQueue` or a `DatabasePool`, writable or read-only, in WAL
    /// or rollback-journal mode, and never writes to the database.
    ///
    /// For example:
    ///
    /// ```swift
    /// let counts = Player.all().rx.valuesOfCount(in: dbQueue).includingOtherProcesses()
    /// for try await count in counts {
    ///     print("\(count) players")
    /// }
    /// ```
    ///
    /// - parameter commits: How the commits are detected: by default,
    ///   with inotify's file events, which cost nothing while nothing is
    ///   written.
    /// - returns: A sequence of observed values.
    public func includingOtherProcesses(_ commits: OtherProcessCommits = .fileEvents) -> Self {
        Self(commits: commits, bufferingPolicy: bufferingPolicy, makePublisher: makePublisher)
    }

    /// Starts the database observation, and returns an iterator of its
    /// values.
    ///
    /// The observation starts at once, and is released when the iterator
    /// is, or when the task that iterates it is cancelled. `for try await`
    /// calls it for you.
    ///
    /// For example:
    ///
    /// ```swift
    /// var iterator = Player.all().rx.valuesOfCount(in: dbQueue).makeAsyncIterator()
    /// let count = try await iterator.next()
    /// ```
    ///
    /// - returns: An iterator of observed values.
    public func makeAsyncIterator() -> Iterator {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: Element.self, throwing: Error.self, bufferingPolicy: bufferingPolicy)
        let subscription = IterationSubscription()
        // Weak: the stream retains its termination handler, and the
        // subscription retains the stream's continuation. The iterator
        // alone keeps the subscription alive.
        continuation.onTermination = { [weak subscription] _ in
            subscription?.cancel()
        }
        // Unlimited demand: the publisher drops nothing, and the stream's
        // buffering policy decides what the consumer gets.
        let cancellable = makePublisher(StreamScheduler(), commits).sink(
            receiveCompletion: { completion in
                switch completion {
                case .finished:
                    continuation.finish()
                case let .failure(error):
                    continuation.finish(throwing: error)
                }
            },
            receiveValue: { value in
                continuation.yield(value)
            })
        subscription.set(cancellable)
        return Iterator(base: stream.makeAsyncIterator(), subscription: subscription)
    }

    /// An iterator of observed values.
    ///
    /// For example:
    ///
    /// ```swift
    /// var iterator = Player.all().rx.valuesOfAll(in: dbQueue).makeAsyncIterator()
    /// while let players = try await iterator.next() {
    ///     print(players)
    /// }
    /// ```
    public struct Iterator: AsyncIteratorProtocol {
        private var base: AsyncThrowingStream<Element, Error>.AsyncIterator
        /// Cancels the observation when the last copy of the iterator is
        /// released.
        private let subscription: IterationSubscription

        fileprivate init(base: AsyncThrowingStream<Element, Error>.AsyncIterator, subscription: IterationSubscription) {
            self.base = base
            self.subscription = subscription
        }

        /// Returns the next observed value: the newest one that the
        /// consumer has not taken yet, or waits for one. Returns nil when
        /// the task is cancelled.
        ///
        /// For example:
        ///
        /// ```swift
        /// let players = try await iterator.next()
        /// ```
        ///
        /// - returns: The next value, or nil at the end.
        /// - throws: The error of the observation.
        public mutating func next() async throws -> Element? {
            try await base.next()
        }

        /// Returns the next observed value, as `next()` does, without
        /// leaving the actor of the caller: a `for try await` loop in
        /// `@MainActor` code waits on the main actor, with no hop to
        /// another executor and back.
        ///
        /// For example:
        ///
        /// ```swift
        /// let players = try await iterator.next(isolation: #isolation)
        /// ```
        ///
        /// - parameter actor: The actor of the caller.
        /// - returns: The next value, or nil at the end.
        /// - throws: The error of the observation.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error) -> Element? {
            try await base.next(isolation: actor)
        }
    }
}

/// The scheduler of the values of an async sequence: each value is put in
/// the sequence's stream where GRDB produces it, without a hop to another
/// queue, since the consuming task runs on the concurrency pool anyway.
///
/// GRDB schedules the values of an observation one after the other, in
/// order (from the writer's queue, or the serial queue where a pool's
/// observation reduces its values); the stream only buffers them, so the
/// database queue is held for microseconds. The initial value is never
/// immediate: the observation starts asynchronously, and never waits for
/// a database queue.
struct StreamScheduler: ValueObservationScheduler {
    func immediateInitialValue() -> Bool { false }

    func schedule(_ action: @escaping @Sendable () -> Void) {
        action()
    }
}

/// The subscription of one iteration: cancelled when the stream terminates
/// (its task was cancelled) or when the iterator is released.
private final class IterationSubscription: Sendable {
    private let state = Mutex((cancellable: AnyCancellable?.none, isCancelled: false))

    func set(_ cancellable: AnyCancellable) {
        let cancelled = state.withLock { state in
            if !state.isCancelled { state.cancellable = cancellable }
            return state.isCancelled
        }
        if cancelled { cancellable.cancel() }
    }

    func cancel() {
        let cancellable = state.withLock { state in
            defer { state.cancellable = nil }
            state.isCancelled = true
            // nonisolated(unsafe): AnyCancellable is not Sendable; it is only cancelled.
            nonisolated(unsafe) let cancellable = state.cancellable
            return cancellable
        }
        cancellable?.cancel()
    }

    deinit {
        cancel()
    }
}
