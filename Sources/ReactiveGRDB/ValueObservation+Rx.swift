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
    /// value waits for the app's writes in progress), once per commit
    /// whatever the number of subscriptions: the shared observation fetches
    /// once, for all its subscribers. On a read-only
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
        if reader is any DatabaseWriter, !reader.configuration.readonly {
            action = .notify
        } else {
            action = .restart { onError, onChange, _ in start(onError, onChange) }
        }
        return DatabasePublishers.Value(
            shared: start, reader: reader, schedule: schedule,
            otherProcesses: action, commits: commits)
    }
}
