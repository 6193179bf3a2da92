import Foundation
import GRDB
import OpenCombine

extension DatabasePublishers {
    /// A publisher that publishes the values of a `ValueObservation` or of a
    /// `SharedValueObservation`.
    ///
    /// You build one with `observation.rx.observe(in:scheduling:)`,
    /// `observation.publisher(in:scheduling:)`,
    /// `sharedObservation.publisher()`, a request's `rx.observeAll(in:)`
    /// and its siblings, or `requestObservation.publisher(in:scheduling:)`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let players: DatabasePublishers.Value<[Player]> = ValueObservation
    ///     .tracking { db in try Player.fetchAll(db) }
    ///     .rx.observe(in: dbQueue)
    /// ```
    ///
    /// It is `Sendable`: build it once, and subscribe from any task or
    /// queue.
    public struct Value<Output>: Publisher, Sendable {
        /// The publisher fails with the error of the database access:
        /// a `DatabaseError`, or any error thrown by your closures.
        public typealias Failure = Error

        /// How a subscription is made.
        struct Options: Sendable {
            /// The commits of other processes that the subscription sees.
            var commits: OtherProcessCommits?
            /// Whether the initial value is fetched on subscription, with
            /// the `.immediate` scheduler.
            var fetchesOnSubscription = false
        }

        /// Attaches a subscriber.
        typealias Subscribe = @Sendable (_ subscriber: AnySubscriber<Output, Error>, _ options: Options) -> Void

        private let subscribe: Subscribe
        private var options = Options()

        /// A publisher of a value observation, whose fetched values are
        /// turned into published values by `output`.
        ///
        /// With `isDuplicate`, a value that is a duplicate of the previous
        /// published one is not published, even when the observation starts
        /// again after a commit of another process: GRDB's reducer of
        /// the restarted observation does not know the previous value.
        ///
        /// With `startImmediately` false, the initial value is fetched but
        /// not published: it is the reference of the duplicates filter,
        /// and only the changes are published. It is fetched synchronously,
        /// when the observation starts, on any thread, so that every
        /// transaction committed after the subscription is a change.
        init<Reducer>(
            _ observation: ValueObservation<Reducer>,
            in reader: any DatabaseReader,
            scheduling scheduler: some ValueObservationScheduler,
            startImmediately: Bool = true,
            removingDuplicates isDuplicate: (@Sendable (Reducer.Value, Reducer.Value) -> Bool)?,
            output: @escaping @Sendable (Reducer.Value) -> Output)
        {
            subscribe = { subscriber, options in
                let downstream = ObservationDownstream(
                    downstream: subscriber, dropsInitialValue: !startImmediately,
                    isDuplicate: isDuplicate, output: output)
                switch (options.fetchesOnSubscription, startImmediately) {
                case (true, true):
                    Self.subscribe(downstream, to: observation, in: reader, scheduling: .immediate, commits: options.commits)
                case (true, false):
                    Self.subscribe(
                        downstream, to: observation, in: reader,
                        scheduling: ReferenceFetchScheduler(base: ImmediateValueObservationScheduler(), reader: reader),
                        commits: options.commits)
                case (false, true):
                    Self.subscribe(downstream, to: observation, in: reader, scheduling: scheduler, commits: options.commits)
                case (false, false):
                    Self.subscribe(
                        downstream, to: observation, in: reader,
                        scheduling: ReferenceFetchScheduler(base: scheduler, reader: reader), commits: options.commits)
                }
            }
        }

        /// A publisher of a shared observation, which does not know its
        /// database and scheduler.
        init(shared start: @escaping ObservationStart<Output>) {
            subscribe = { subscriber, _ in
                let subscription = ObservationSubscription(start: start, downstream: subscriber)
                subscriber.receive(subscription: subscription)
            }
        }

        /// A publisher of a shared observation that sees the commits of
        /// other processes.
        init(
            shared start: @escaping ObservationStart<Output>,
            reader: any DatabaseReader,
            schedule: @escaping @Sendable (_ work: @escaping @Sendable () -> Void) -> Void,
            otherProcesses action: OtherProcessRefresh<Output>.Action,
            commits: OtherProcessCommits)
        {
            subscribe = { subscriber, options in
                let otherProcesses = OtherProcessRefresh(
                    reader: reader, commits: options.commits ?? commits, action: action, schedule: schedule)
                let subscription = ObservationSubscription(
                    start: start, otherProcesses: otherProcesses, downstream: subscriber)
                subscriber.receive(subscription: subscription)
            }
            options.commits = commits
        }

        private static func subscribe<Reducer, Downstream>(
            _ downstream: Downstream,
            to observation: ValueObservation<Reducer>,
            in reader: any DatabaseReader,
            scheduling scheduler: some ValueObservationScheduler,
            commits: OtherProcessCommits?)
        where Downstream: Subscriber & GRDBSendableMetatype, Downstream.Input == Reducer.Value,
              Downstream.Failure == Error
        {
            let otherProcesses = commits.map { commits in
                let action: OtherProcessRefresh<Reducer.Value>.Action
                if reader is DatabasePool, !reader.configuration.readonly {
                    // Fetched once, on the watch's read-only connection.
                    action = .refetch { refetchReader, onError, onChange, onFetched in
                        observation.start(
                            in: refetchReader, scheduling: RestartScheduler(base: scheduler, onSchedule: onFetched),
                            onError: onError, onChange: onChange)
                    }
                } else {
                    action = .restart { onError, onChange, onFetched in
                        let filter = OtherProcessNotification.Filter()
                        return observation
                            .handleEvents(databaseDidChange: { filter.databaseDidChange() })
                            .start(
                                in: reader, scheduling: RestartScheduler(base: scheduler, onSchedule: onFetched),
                                onError: onError, onChange: { value in
                                    if !filter.dropsValue() { onChange(value) }
                                })
                    }
                }
                return OtherProcessRefresh<Reducer.Value>(
                    reader: reader, commits: commits, action: action,
                    schedule: { work in scheduler.schedule(work) })
            }
            let subscription = ObservationSubscription(
                start: { onError, onChange in
                    // GRDB notifies every observation of the writer: the
                    // values of a shared publisher's request are not for
                    // this one, which reads other processes' commits itself.
                    let filter = OtherProcessNotification.Filter()
                    return observation
                        .handleEvents(databaseDidChange: { filter.databaseDidChange() })
                        .start(in: reader, scheduling: scheduler, onError: onError, onChange: { value in
                            if !filter.dropsValue() { onChange(value) }
                        })
                },
                otherProcesses: otherProcesses,
                downstream: downstream)
            downstream.receive(subscription: subscription)
        }

        /// Returns a publisher that also sees the commits of other
        /// processes: after each, it publishes a fresh value.
        ///
        /// GRDB's observations see the transactions of their own database
        /// connection only. This publisher also sees the commits of other
        /// processes (another app, the `sqlite3` command, a script), on a
        /// `DatabaseQueue` or a `DatabasePool`, writable or read-only, in
        /// WAL or rollback-journal mode. It never writes to the database,
        /// and never changes its journal mode.
        ///
        /// For example:
        ///
        /// ```swift
        /// let cancellable = ValueObservation
        ///     .tracking { db in try Player.fetchAll(db) }
        ///     .publisher(in: dbPool)       // or .rx.observe(in: dbPool)
        ///     .includingOtherProcesses()
        ///     .sink(
        ///         receiveCompletion: { completion in ... },
        ///         receiveValue: { players in print("Fresh players: \(players)") })
        /// ```
        ///
        /// After a commit of another process, the observation starts
        /// again, and its initial value is the fresh value. On a writable
        /// `DatabasePool`, the fresh value is fetched once on a read-only
        /// connection of the watch, without waiting for the writer, and the
        /// observation keeps running. What another process changed is not known, so any
        /// commit of another process makes a fresh value, even one that
        /// changes other tables. The app's own transactions are notified
        /// by GRDB as usual, and cost no other fetch. A burst of commits
        /// is coalesced: one fetch at a time, and the last one sees the
        /// last commit. To fetch less often during a burst, so that a
        /// writer of a rollback-journal file is not slowed down, pace the
        /// fetches: `.includingOtherProcesses(.fileEvents.paced(.dutyCycle(0.1)))`.
        ///
        /// A database in memory, which no other process can open, or opened
        /// from a `file:` URI, is not watched.
        ///
        /// The publisher fails with a `DatabaseFileChangedError` if the
        /// database file is deleted or replaced (renamed over), or its
        /// directory deleted: the connection would keep reading the file it
        /// opened, and its values would never change again. Later
        /// subscriptions on the same connection fail at once with the same
        /// error: open the database again to follow the new file.
        ///
        /// - important: Call it on the publisher that `publisher(in:)`,
        ///   `rx.observe(in:)` or a request's `rx.observeAll(in:)`,
        ///   `rx.observeFirst(in:)` or `rx.observeCount(in:)` return. A
        ///   shared observation's publisher does not know its database:
        ///   use `SharedValueObservation.publisher(includingOtherProcessesIn:_:)`.
        ///
        /// - parameter commits: How the commits are detected: by default,
        ///   with inotify's file events, which cost nothing while nothing
        ///   is written.
        /// - returns: A publisher of observed values.
        public func includingOtherProcesses(_ commits: OtherProcessCommits = .fileEvents) -> Self {
            var publisher = self
            publisher.options.commits = commits
            return publisher
        }

        /// Returns a publisher that fetches its initial value synchronously,
        /// right on subscription, and publishes all its values on the main
        /// queue.
        ///
        /// Without it, the values are published as the scheduler of the
        /// publisher says: by default, all asynchronously on the main queue.
        /// With it, the publisher uses GRDB's `.immediate` scheduler: the
        /// subscription must happen on the main thread, or a fatal error is
        /// raised.
        ///
        /// For example:
        ///
        /// ```swift
        /// let cancellable = Player.observationForAll()
        ///     .publisher(in: dbQueue)
        ///     .fetchOnSubscription()
        ///     .sink(
        ///         receiveCompletion: { completion in print(completion) },
        ///         receiveValue: { (players: [Player]) in print("Fresh players: \(players)") })
        /// // <- here "Fresh players" has been printed.
        /// ```
        ///
        /// A shared observation's publisher keeps the scheduler given to
        /// `shared(in:scheduling:extent:)`: share with `scheduling: .immediate`
        /// instead.
        ///
        /// - returns: A publisher whose initial value is fetched on
        ///   subscription.
        public func fetchOnSubscription() -> Self {
            var publisher = self
            publisher.options.fetchesOnSubscription = true
            return publisher
        }

        /// Attaches the specified subscriber to this publisher. The database
        /// observation starts at the subscriber's first positive demand,
        /// and stops when the subscription is cancelled.
        ///
        /// For example:
        ///
        /// ```swift
        /// let cancellable = publisher.sink(
        ///     receiveCompletion: { completion in ... },
        ///     receiveValue: { value in ... })
        /// ```
        ///
        /// - parameter subscriber: The subscriber to attach.
        public func receive<S>(subscriber: S)
        where S: Subscriber & GRDBSendableMetatype, S.Input == Output, S.Failure == Error
        {
            subscribe(AnySubscriber(subscriber), options)
        }
    }
}

/// The subscriber of an observation subscription: it turns fetched values
/// into published values, and drops a value identical to the previous
/// published one, if asked to.
///
/// The subscription calls it one value at a time, from one thread at a time.
private final class ObservationDownstream<Fetched, Downstream>: Subscriber
where Downstream: Subscriber, Downstream.Failure == Error
{
    typealias Input = Fetched
    typealias Failure = Error

    private let downstream: Downstream
    private let isDuplicate: (@Sendable (Fetched, Fetched) -> Bool)?
    private let output: @Sendable (Fetched) -> Downstream.Input
    private var previous: Fetched?
    /// Whether the next value is the initial one, not to be published.
    private var dropsInitialValue: Bool

    init(
        downstream: Downstream,
        dropsInitialValue: Bool = false,
        isDuplicate: (@Sendable (Fetched, Fetched) -> Bool)?,
        output: @escaping @Sendable (Fetched) -> Downstream.Input)
    {
        self.downstream = downstream
        self.dropsInitialValue = dropsInitialValue
        self.isDuplicate = isDuplicate
        self.output = output
    }

    var combineIdentifier: CombineIdentifier { downstream.combineIdentifier }

    func receive(subscription: any Subscription) {
        downstream.receive(subscription: subscription)
    }

    func receive(_ input: Fetched) -> Subscribers.Demand {
        if dropsInitialValue {
            // Not published, but compared with the next value.
            dropsInitialValue = false
            if isDuplicate != nil { previous = input }
            return .max(1)
        }
        if let isDuplicate {
            if let previous, isDuplicate(previous, input) {
                // The dropped value used one unit of demand: give it back.
                return .max(1)
            }
            previous = input
        }
        return downstream.receive(output(input))
    }

    func receive(completion: Subscribers.Completion<Error>) {
        downstream.receive(completion: completion)
    }
}

/// The scheduler of a restarted observation: the observation's own, except
/// that the fresh value is not delivered from `start`.
///
/// A restart happens on the queue of the watch, where the `.immediate`
/// scheduler traps ("must be started from the main thread"). Its values are
/// scheduled as the later values of the observation are: on the main queue
/// for `.immediate`.
///
/// It calls `onSchedule` as each value, fetched, is scheduled: the end of
/// the read, which a paced refresh measures.
private struct RestartScheduler<Base: ValueObservationScheduler>: ValueObservationScheduler {
    let base: Base
    let onSchedule: @Sendable () -> Void

    func immediateInitialValue() -> Bool { false }

    func schedule(_ action: @escaping @Sendable () -> Void) {
        onSchedule()
        base.schedule(action)
    }
}

/// The scheduler of an observation whose initial value is not published,
/// only the changes: the initial value, the reference that the changes are
/// compared with, is fetched synchronously when the observation starts, on
/// the current thread, whatever it is. Later values are scheduled by `base`.
///
/// Fetched asynchronously, by a reader of a `DatabasePool`, the reference
/// would include the transactions committed after the subscription and
/// before the fetch, which would then never be published. Fetched
/// synchronously, it is the state at the subscription: GRDB then starts
/// observing the writer, and publishes any later commit.
///
/// Unlike `.immediate`, which delivers the initial value to its subscriber
/// and must be started on the main thread, it can be started anywhere:
/// the initial value it delivers is not published. GRDB fetches it with a
/// reentrant access on a `DatabaseQueue` and on a read-only database, so
/// that the observation may start inside a database access. A writable
/// `DatabasePool` fetches it with a read, which is not reentrant: inside
/// a read access of the pool, the reference is fetched asynchronously.
private struct ReferenceFetchScheduler<Base: ValueObservationScheduler>: ValueObservationScheduler {
    let base: Base
    let reader: any DatabaseReader

    func immediateInitialValue() -> Bool {
        !reader.isInsideReadAccessOfWritablePool
    }

    func schedule(_ action: @escaping @Sendable () -> Void) {
        base.schedule(action)
    }
}

extension DatabaseReader {
    /// Whether the current code runs inside a read access of this reader,
    /// a writable `DatabasePool`, where GRDB's synchronous reads trap.
    ///
    /// A reentrant read uses the connection of the current read access, in
    /// its transaction; otherwise the writer's, inside a write access, or
    /// an idle reader, out of any transaction. A read access that opens no
    /// transaction, `unsafeRead`, is not told.
    fileprivate var isInsideReadAccessOfWritablePool: Bool {
        guard let pool = self as? DatabasePool, !pool.configuration.readonly else { return false }
        let isInsideRead = try? pool.unsafeReentrantRead { db in
            db.configuration.readonly && db.isInsideTransaction
        }
        return isInsideRead ?? false
    }
}
