import Foundation
import GRDB
import OpenCombine

extension ValueObservation {
    /// Returns a publisher of observed values.
    ///
    /// This is GRDB's spelling of `rx.observe(in:scheduling:)`: both return
    /// the same publisher.
    ///
    /// For example:
    ///
    /// ```swift
    /// let publisher = ValueObservation
    ///     .tracking { db in try Player.fetchAll(db) }
    ///     .publisher(in: dbQueue)
    /// ```
    ///
    /// - parameter reader: A database reader.
    /// - parameter scheduler: A `ValueObservationScheduler`. By default, fresh
    ///   values are dispatched asynchronously on the main dispatch queue.
    /// - returns: A publisher of observed values.
    public func publisher(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler = .async(onQueue: .main))
    -> DatabasePublishers.Value<Reducer.Value>
    {
        DatabasePublishers.Value(self, in: reader, scheduling: scheduler, removingDuplicates: nil, output: { $0 })
    }
}

extension ValueObservation {
    /// Returns a publisher of observed values, that filters out identical
    /// consecutive values, even after the commits of other processes.
    ///
    /// For example:
    ///
    /// ```swift
    /// let counts = ValueObservation
    ///     .tracking { db in try Player.fetchCount(db) }
    ///     .removeDuplicates()
    ///     .publisher(in: dbQueue)
    ///     .includingOtherProcesses()
    /// ```
    ///
    /// GRDB's `removeDuplicates()` compares the values of one observation.
    /// After a commit of another process, `includingOtherProcesses(_:)`
    /// starts the observation again: this publisher then compares its
    /// fresh value with the previous one, with `==`, so that a commit to
    /// another table publishes nothing. With `removeDuplicates(by:)`, the
    /// fresh value is compared with `==` too, if the values are
    /// `Equatable`; otherwise, add OpenCombine's `removeDuplicates(by:)`
    /// after `includingOtherProcesses(_:)`.
    ///
    /// - parameter reader: A database reader.
    /// - parameter scheduler: A `ValueObservationScheduler`. By default, fresh
    ///   values are dispatched asynchronously on the main dispatch queue.
    /// - returns: A publisher of observed values.
    public func publisher<Base>(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler = .async(onQueue: .main))
    -> DatabasePublishers.Value<Reducer.Value>
    where Reducer == ValueReducers.RemoveDuplicates<Base>, Reducer.Value: Equatable
    {
        DatabasePublishers.Value(self, in: reader, scheduling: scheduler, removingDuplicates: { $0 == $1 }, output: { $0 })
    }
}

extension ValueObservation {
    /// Returns an observation that fetches a fresh value whenever one of
    /// the tracked regions is changed by a transaction: RxGRDB 0.18's
    /// spelling of GRDB's `tracking(regions:fetch:)`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let observation = ValueObservation.tracking(Player.all(), fetch: { db -> ([Player], Int) in
    ///     let players = try Player.order(Column("score").desc).limit(10).fetchAll(db)
    ///     let count = try Player.fetchCount(db)
    ///     return (players, count)
    /// })
    /// ```
    ///
    /// The tracked region is the union of the regions of the arguments, and
    /// does not depend on what `fetch` reads.
    ///
    /// - parameter region: A request, table, or region to observe.
    /// - parameter otherRegions: Other requests, tables, or regions.
    /// - parameter fetch: A closure that fetches a value.
    /// - returns: A `ValueObservation`.
    @preconcurrency public static func tracking<Value>(
        _ region: any DatabaseRegionConvertible,
        _ otherRegions: any DatabaseRegionConvertible...,
        fetch: @escaping @Sendable (Database) throws -> Value)
    -> Self
    where Reducer == ValueReducers.Fetch<Value>
    {
        // At least one region, so that `tracking { db in ... }` keeps
        // calling GRDB's `tracking(_:)`.
        tracking(regions: [region] + otherRegions, fetch: fetch)
    }
}

extension GRDBReactive {
    /// Returns a publisher of observed values: an initial value, then a fresh
    /// value whenever a transaction has changed the observed region.
    ///
    /// For example:
    ///
    /// ```swift
    /// let observation = ValueObservation.tracking { db in
    ///     try Player.fetchAll(db)
    /// }
    ///
    /// let cancellable = observation.rx
    ///     .observe(in: dbQueue)
    ///     .sink(
    ///         receiveCompletion: { completion in ... },
    ///         receiveValue: { (players: [Player]) in print("Fresh players: \(players)") })
    /// ```
    ///
    /// The publisher has the same behavior as `ValueObservation`:
    ///
    /// - It notifies an initial value before the eventual changes.
    /// - It may coalesce subsequent changes into a single notification.
    /// - It may notify consecutive identical values. Filter them out with
    ///   `ValueObservation.removeDuplicates()`.
    /// - It stops emitting any value after the database connection is closed.
    ///   It never completes, and fails on a database error.
    /// - By default, it notifies all values on the main dispatch queue,
    ///   asynchronously. The `.immediate` scheduler notifies the initial value
    ///   synchronously, at the first demand, which must then happen on the
    ///   main thread (a fatal error is raised otherwise). `sink` requests
    ///   values as soon as it is subscribed:
    ///
    ///   ```swift
    ///   let cancellable = observation.rx
    ///       .observe(in: dbQueue, scheduling: .immediate)
    ///       .sink(receiveCompletion: { _ in }, receiveValue: { players in print("fresh players") })
    ///   // <- here "fresh players" is already printed.
    ///   ```
    ///
    /// The database observation starts at the first positive demand, and
    /// stops when the subscription is cancelled.
    ///
    /// - important: Combining several value publishers, with `zip` for
    ///   example, loses all guarantees of data consistency. Instead,
    ///   compose requests into one single `ValueObservation`:
    ///
    ///   ```swift
    ///   // DATA CONSISTENCY GUARANTEED
    ///   let hallOfFame = ValueObservation
    ///       .tracking { db -> HallOfFame in
    ///           let playerCount = try Player.fetchCount(db)
    ///           let bestPlayers = try Player.limit(10).orderedByScore().fetchAll(db)
    ///           return HallOfFame(playerCount: playerCount, bestPlayers: bestPlayers)
    ///       }
    ///       .rx.observe(in: dbQueue)
    ///   ```
    ///
    /// - parameter reader: A database reader.
    /// - parameter scheduler: A `ValueObservationScheduler`. By default, fresh
    ///   values are dispatched asynchronously on the main dispatch queue.
    /// - returns: A publisher of observed values.
    public func observe<Reducer>(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler = .async(onQueue: .main))
    -> DatabasePublishers.Value<Reducer.Value>
    where Base == ValueObservation<Reducer>
    {
        base.publisher(in: reader, scheduling: scheduler)
    }

    /// Returns a publisher of observed values, that filters out identical
    /// consecutive values, even after the commits of other processes.
    ///
    /// For example:
    ///
    /// ```swift
    /// let counts = ValueObservation
    ///     .tracking { db in try Player.fetchCount(db) }
    ///     .removeDuplicates()
    ///     .rx.observe(in: dbQueue)
    ///     .includingOtherProcesses()
    /// ```
    ///
    /// See `ValueObservation.publisher(in:scheduling:)`.
    ///
    /// - parameter reader: A database reader.
    /// - parameter scheduler: A `ValueObservationScheduler`. By default, fresh
    ///   values are dispatched asynchronously on the main dispatch queue.
    /// - returns: A publisher of observed values.
    public func observe<Reducer>(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler = .async(onQueue: .main))
    -> DatabasePublishers.Value<ValueReducers.RemoveDuplicates<Reducer>.Value>
    where Base == ValueObservation<ValueReducers.RemoveDuplicates<Reducer>>,
          ValueReducers.RemoveDuplicates<Reducer>.Value: Equatable
    {
        base.publisher(in: reader, scheduling: scheduler)
    }

    /// Returns a publisher of observed values, with RxGRDB 0.18's
    /// scheduling: the initial value is published synchronously when the
    /// observation starts on the main queue.
    ///
    /// For example:
    ///
    /// ```swift
    /// // On the main queue
    /// let cancellable = ValueObservation
    ///     .tracking { db in try Player.fetchAll(db) }
    ///     .rx.observe(in: dbQueue, startImmediately: true)
    ///     .sink(
    ///         receiveCompletion: { completion in ... },
    ///         receiveValue: { (players: [Player]) in print("Fresh players: \(players)") })
    /// // <- here "Fresh players" has been printed.
    /// ```
    ///
    /// If `startImmediately` is true, the first value is published from
    /// the current database state. It is published synchronously, during
    /// the subscription (at the first demand, which `sink` makes on
    /// subscription), if and only if the subscription happens on the main
    /// queue, on the main thread; otherwise, asynchronously on the main
    /// queue: after `dispatchMain()` or in an `async` main, where the main
    /// queue is drained on another thread than the main thread, it is
    /// published asynchronously, and nothing traps.
    ///
    /// If `startImmediately` is false, the initial value is fetched but not
    /// published: only the values fetched after a transaction has changed
    /// the observed region are. It is fetched synchronously, during the
    /// subscription, on any thread, with or without a scheduler: every
    /// transaction committed after the subscription is a change. GRDB's `ValueObservation` may publish
    /// consecutive identical values: a `DatabasePool` may publish the
    /// initial state once more, as its first change. Filter them out with
    /// `ValueObservation.removeDuplicates()`.
    ///
    /// All later values, and the error, are published asynchronously on the
    /// main queue.
    ///
    /// `observe(in:)`, without this argument, is RxGRDB 3's spelling: its
    /// initial value is published asynchronously on the main queue. See
    /// `observe(in:scheduling:)`.
    ///
    /// - parameter reader: A database reader.
    /// - parameter startImmediately: Whether the initial value is
    ///   published.
    /// - returns: A publisher of observed values.
    public func observe<Reducer>(
        in reader: any DatabaseReader,
        startImmediately: Bool)
    -> DatabasePublishers.Value<Reducer.Value>
    where Base == ValueObservation<Reducer>
    {
        base.publisher(in: reader, scheduling: MainQueueScheduler(), startImmediately: startImmediately)
    }

    /// Returns a publisher of observed values, that filters out identical
    /// consecutive values, even after the commits of other processes, with
    /// RxGRDB 0.18's scheduling: the initial value is published
    /// synchronously when the observation starts on the main queue.
    ///
    /// For example:
    ///
    /// ```swift
    /// // Publishes the player count after each change, not the current one
    /// let counts = ValueObservation
    ///     .tracking { db in try Player.fetchCount(db) }
    ///     .removeDuplicates()
    ///     .rx.observe(in: dbQueue, startImmediately: false)
    /// ```
    ///
    /// With `startImmediately` false, a change that publishes the same
    /// value as the unpublished initial one is filtered out too. See
    /// `observe(in:startImmediately:)` for the scheduling.
    ///
    /// - parameter reader: A database reader.
    /// - parameter startImmediately: Whether the initial value is
    ///   published.
    /// - returns: A publisher of observed values.
    public func observe<Reducer>(
        in reader: any DatabaseReader,
        startImmediately: Bool)
    -> DatabasePublishers.Value<ValueReducers.RemoveDuplicates<Reducer>.Value>
    where Base == ValueObservation<ValueReducers.RemoveDuplicates<Reducer>>,
          ValueReducers.RemoveDuplicates<Reducer>.Value: Equatable
    {
        base.publisher(in: reader, scheduling: MainQueueScheduler(), startImmediately: startImmediately)
    }

    /// Returns a publisher of observed values, that publishes all its
    /// values on an OpenCombine scheduler: RxGRDB 0.18's `observeOn:`
    /// argument.
    ///
    /// For example:
    ///
    /// ```swift
    /// let queue = DispatchQueue(label: "players")
    /// let publisher = ValueObservation
    ///     .tracking { db in try Player.fetchAll(db) }
    ///     .rx.observe(in: dbQueue, observeOn: queue.ocombine)
    /// ```
    ///
    /// All values, the initial one too, and the error, are published
    /// asynchronously on the scheduler, even the main queue's. If
    /// `startImmediately` is false, the initial value is fetched but not
    /// published: only the changes are. See
    /// `observe(in:startImmediately:)`.
    ///
    /// - parameter reader: A database reader.
    /// - parameter startImmediately: Whether the initial value is
    ///   published. The default is true.
    /// - parameter scheduler: The OpenCombine scheduler of all values.
    /// - returns: A publisher of observed values.
    public func observe<Reducer, S: OpenCombine.Scheduler>(
        in reader: any DatabaseReader,
        startImmediately: Bool = true,
        observeOn scheduler: S)
    -> DatabasePublishers.Value<Reducer.Value>
    where Base == ValueObservation<Reducer>
    {
        base.publisher(in: reader, scheduling: SchedulerOfValues(scheduler), startImmediately: startImmediately)
    }

    /// Returns a publisher of observed values, that filters out identical
    /// consecutive values, even after the commits of other processes, and
    /// publishes all its values on an OpenCombine scheduler.
    ///
    /// For example:
    ///
    /// ```swift
    /// let queue = DispatchQueue(label: "counts")
    /// let counts = ValueObservation
    ///     .tracking { db in try Player.fetchCount(db) }
    ///     .removeDuplicates()
    ///     .rx.observe(in: dbQueue, observeOn: queue.ocombine)
    /// ```
    ///
    /// See `observe(in:startImmediately:observeOn:)`.
    ///
    /// - parameter reader: A database reader.
    /// - parameter startImmediately: Whether the initial value is
    ///   published. The default is true.
    /// - parameter scheduler: The OpenCombine scheduler of all values.
    /// - returns: A publisher of observed values.
    public func observe<Reducer, S: OpenCombine.Scheduler>(
        in reader: any DatabaseReader,
        startImmediately: Bool = true,
        observeOn scheduler: S)
    -> DatabasePublishers.Value<ValueReducers.RemoveDuplicates<Reducer>.Value>
    where Base == ValueObservation<ValueReducers.RemoveDuplicates<Reducer>>,
          ValueReducers.RemoveDuplicates<Reducer>.Value: Equatable
    {
        base.publisher(in: reader, scheduling: SchedulerOfValues(scheduler), startImmediately: startImmediately)
    }
}

extension ValueObservation {
    /// The publisher of `publisher(in:scheduling:)`, that publishes its
    /// initial value only if `startImmediately` is true.
    func publisher(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler,
        startImmediately: Bool)
    -> DatabasePublishers.Value<Reducer.Value>
    {
        DatabasePublishers.Value(
            self, in: reader, scheduling: scheduler, startImmediately: startImmediately,
            removingDuplicates: nil, output: { $0 })
    }

    /// The publisher of `publisher(in:scheduling:)` for `removeDuplicates()`,
    /// that publishes its initial value only if `startImmediately` is true.
    func publisher<Base>(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler,
        startImmediately: Bool)
    -> DatabasePublishers.Value<Reducer.Value>
    where Reducer == ValueReducers.RemoveDuplicates<Base>, Reducer.Value: Equatable
    {
        DatabasePublishers.Value(
            self, in: reader, scheduling: scheduler, startImmediately: startImmediately,
            removingDuplicates: { $0 == $1 }, output: { $0 })
    }
}

extension SharedValueObservation {
    /// Returns a publisher of the shared observed values.
    ///
    /// All subscribers share a single database observation, which is
    /// started and stopped according to the `extent` given to
    /// `ValueObservation.shared(in:scheduling:extent:)`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let sharedObservation = ValueObservation
    ///     .tracking { db in try Player.fetchAll(db) }
    ///     .shared(in: dbQueue)
    ///
    /// let publisher = sharedObservation.publisher()
    /// ```
    ///
    /// - returns: A publisher of observed values.
    public func publisher() -> DatabasePublishers.Value<Element> {
        DatabasePublishers.Value(shared: { onError, onChange in
            self.start(onError: onError, onChange: onChange)
        })
    }

    /// Returns a publisher of the shared observed values, that also sees
    /// the commits of other processes to the database of `reader`.
    ///
    /// `reader` must be the database the observation was shared in.
    ///
    /// For example:
    ///
    /// ```swift
    /// let sharedObservation = ValueObservation
    ///     .tracking { db in try Player.fetchAll(db) }
    ///     .shared(in: dbPool)
    ///
    /// let publisher = sharedObservation.publisher(includingOtherProcessesIn: dbPool)
    /// ```
    ///
    /// On a writable database, a commit of another process makes GRDB
    /// notify all the observations of the database (with
    /// `Database.notifyChanges(in:)`, on the writer's queue: the fresh
    /// value waits for the app's writes in progress). On a read-only
    /// database, where GRDB fetches once, the subscription subscribes to
    /// the shared observation again: the value is fresh when this
    /// subscription is the only one of a `.whileObserved` shared
    /// observation, which then starts again. Other shared observations
    /// replay their last value: use `publisher(in:)` and
    /// `includingOtherProcesses(_:)` instead.
    ///
    /// A `DatabaseFileChangedError` is published on the main queue, the
    /// default scheduler of shared observations.
    ///
    /// - parameter reader: The database the observation was shared in.
    /// - parameter commits: How the commits are detected: by default,
    ///   with inotify's file events.
    /// - returns: A publisher of observed values.
    public func publisher(
        includingOtherProcessesIn reader: any DatabaseReader,
        _ commits: OtherProcessCommits = .fileEvents)
    -> DatabasePublishers.Value<Element>
    {
        // The scheduler of a shared observation is not known: its default
        // is the main queue.
        publisher(includingOtherProcessesIn: reader, commits, schedule: { work in DispatchQueue.main.async(execute: work) })
    }

    /// `publisher(includingOtherProcessesIn:_:)`, whose errors of the watch
    /// are delivered by `schedule`.
    func publisher(
        includingOtherProcessesIn reader: any DatabaseReader,
        _ commits: OtherProcessCommits,
        schedule: @escaping @Sendable (_ work: @escaping @Sendable () -> Void) -> Void)
    -> DatabasePublishers.Value<Element>
    {
        let start: ObservationStart<Element> = { onError, onChange in
            self.start(onError: onError, onChange: onChange)
        }
        let action: OtherProcessRefresh<Element>.Action
        if let writer = reader as? any DatabaseWriter, !reader.configuration.readonly {
            let notifier = ChangeNotifier(writer: writer)
            action = .notify { notifier.notify() }
        } else {
            action = .restart { onError, onChange, _ in start(onError, onChange) }
        }
        return DatabasePublishers.Value(
            shared: start, reader: reader, schedule: schedule,
            otherProcesses: action, commits: commits)
    }
}

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
                OtherProcessRefresh<Reducer.Value>(
                    reader: reader, commits: commits,
                    action: .restart { onError, onChange, onFetched in
                        observation.start(
                            in: reader, scheduling: RestartScheduler(base: scheduler, onSchedule: onFetched),
                            onError: onError, onChange: onChange)
                    },
                    schedule: { work in scheduler.schedule(work) })
            }
            let subscription = ObservationSubscription(
                start: { onError, onChange in
                    observation.start(in: reader, scheduling: scheduler, onError: onError, onChange: onChange)
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
        /// again, and its initial value is the fresh value: it is fetched
        /// on a reader of a `DatabasePool`, without waiting for the
        /// writer. What another process changed is not known, so any
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
/// The subscription calls it one value at a time, with its lock held.
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
