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
        DatabasePublishers.Value(
            start: { onError, onChange in
                self.start(in: reader, scheduling: scheduler, onError: onError, onChange: onChange)
            },
            reader: reader,
            schedule: { work in scheduler.schedule(work) },
            restart: { onError, onChange, onFetched in
                self.start(
                    in: reader, scheduling: RestartScheduler(base: scheduler, onSchedule: onFetched),
                    onError: onError, onChange: onChange)
            })
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
        DatabasePublishers.Value(start: { onError, onChange in
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
            start: start, reader: reader, schedule: schedule,
            otherProcesses: action, commits: commits)
    }
}

extension DatabasePublishers {
    /// A publisher that publishes the values of a `ValueObservation` or of a
    /// `SharedValueObservation`.
    ///
    /// You build one with `observation.rx.observe(in:scheduling:)`,
    /// `observation.publisher(in:scheduling:)` or
    /// `sharedObservation.publisher()`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let players: DatabasePublishers.Value<[Player]> = ValueObservation
    ///     .tracking { db in try Player.fetchAll(db) }
    ///     .rx.observe(in: dbQueue)
    /// ```
    public struct Value<Output>: Publisher {
        /// The publisher fails with the error of the database access:
        /// a `DatabaseError`, or any error thrown by your closures.
        public typealias Failure = Error

        typealias Start = ObservationStart<Output>

        private let start: Start
        /// The observed database and how to start the observation again,
        /// unless the observation is shared.
        private let source: (
            reader: any DatabaseReader,
            action: OtherProcessRefresh<Output>.Action,
            schedule: @Sendable (_ work: @escaping @Sendable () -> Void) -> Void)?
        private let commits: OtherProcessCommits?

        init(start: @escaping Start) {
            self.start = start
            self.source = nil
            self.commits = nil
        }

        init(
            start: @escaping Start,
            reader: any DatabaseReader,
            schedule: @escaping @Sendable (_ work: @escaping @Sendable () -> Void) -> Void,
            restart: @escaping RestartStart<Output>)
        {
            self.start = start
            self.source = (reader, .restart(restart), schedule)
            self.commits = nil
        }

        init(
            start: @escaping Start,
            reader: any DatabaseReader,
            schedule: @escaping @Sendable (_ work: @escaping @Sendable () -> Void) -> Void,
            otherProcesses action: OtherProcessRefresh<Output>.Action,
            commits: OtherProcessCommits)
        {
            self.start = start
            self.source = (reader, action, schedule)
            self.commits = commits
        }

        private init(_ publisher: Self, commits: OtherProcessCommits) {
            self.start = publisher.start
            self.source = publisher.source
            self.commits = commits
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
            Self(self, commits: commits)
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
            var otherProcesses: OtherProcessRefresh<Output>?
            if let commits, let source {
                otherProcesses = OtherProcessRefresh(
                    reader: source.reader, commits: commits, action: source.action, schedule: source.schedule)
            }
            let subscription = ObservationSubscription(start: start, otherProcesses: otherProcesses, downstream: subscriber)
            subscriber.receive(subscription: subscription)
        }
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
