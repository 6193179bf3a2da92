import Foundation
import GRDB
import OpenCombine

extension DatabaseRegionObservation {
    /// Returns a publisher that emits a database connection right after each
    /// committed transaction that has impacted the tracked region.
    ///
    /// This is GRDB's spelling of `rx.changes(in:)`: both return the same
    /// publisher.
    ///
    /// For example:
    ///
    /// ```swift
    /// let publisher = DatabaseRegionObservation
    ///     .tracking(Player.all())
    ///     .publisher(in: dbQueue)
    /// ```
    ///
    /// - parameter writer: A database writer.
    /// - returns: A publisher of database connections.
    public func publisher(in writer: any DatabaseWriter) -> DatabasePublishers.DatabaseRegion {
        DatabasePublishers.DatabaseRegion(observation: self, writer: writer)
    }
}

extension DatabaseRegionObservation {
    /// Returns an observation of the database regions of requests: RxGRDB
    /// 3's spelling of GRDB's `init(tracking:)`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let observation = DatabaseRegionObservation.tracking(Player.all())
    /// let changes = observation.rx.changes(in: dbQueue)
    /// ```
    ///
    /// - parameter regions: Requests, tables, or regions to observe.
    /// - returns: A `DatabaseRegionObservation`.
    public static func tracking(_ regions: any DatabaseRegionConvertible...) -> Self {
        Self(tracking: regions)
    }

    /// Returns an observation of the database regions of requests: RxGRDB
    /// 3's spelling of GRDB's `init(tracking:)`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let regions: [any DatabaseRegionConvertible] = [Player.all(), Table("team")]
    /// let observation = DatabaseRegionObservation.tracking(regions)
    /// ```
    ///
    /// - parameter regions: An array of requests, tables, or regions to
    ///   observe.
    /// - returns: A `DatabaseRegionObservation`.
    public static func tracking(_ regions: [any DatabaseRegionConvertible]) -> Self {
        Self(tracking: regions)
    }
}

extension GRDBReactive where Base == DatabaseRegionObservation {
    /// Returns a publisher that emits a database connection right after each
    /// committed transaction that has impacted the tracked region.
    ///
    /// For example:
    ///
    /// ```swift
    /// let cancellable = DatabaseRegionObservation
    ///     .tracking(Player.all())
    ///     .rx.changes(in: dbQueue)
    ///     .sink(
    ///         receiveCompletion: { completion in ... },
    ///         receiveValue: { (db: Database) in print("Players have changed.") })
    ///
    /// try dbQueue.write { db in
    ///     try Player(name: "Arthur", score: 100).insert(db)
    ///     try Player(name: "Barbara", score: 1000).insert(db)
    /// }
    /// // Prints "Players have changed."
    /// ```
    ///
    /// The publisher can be created and subscribed from any thread, including
    /// from inside a database access: the observation starts synchronously
    /// at the first demand, so that a subscription made from a write misses
    /// no later transaction. The connection is emitted synchronously on the
    /// writer's dispatch queue, serialized with all database updates: until
    /// the subscriber returns, no other write can happen. Rolled back
    /// transactions emit nothing. The publisher never emits an initial
    /// element, and only completes with a database error.
    ///
    /// - important: Do not hop to another queue before you use the emitted
    ///   connection: it can only be used on the writer's queue.
    ///
    /// - parameter writer: A database writer.
    /// - returns: A publisher of database connections.
    public func changes(in writer: any DatabaseWriter) -> DatabasePublishers.DatabaseRegion {
        base.publisher(in: writer)
    }

    /// Returns a publisher that emits a database connection right after each
    /// committed transaction that has impacted the tracked region, and, if
    /// `startImmediately` is true, right on subscription: RxGRDB 0.18's
    /// spelling.
    ///
    /// For example:
    ///
    /// ```swift
    /// // Prints the current player count, then the count after each
    /// // transaction that changes the player table.
    /// let cancellable = DatabaseRegionObservation
    ///     .tracking(Player.all())
    ///     .rx.changes(in: dbQueue, startImmediately: true)
    ///     .tryMap { db in try Player.fetchCount(db) }
    ///     .sink(
    ///         receiveCompletion: { completion in ... },
    ///         receiveValue: { count in print(count) })
    /// ```
    ///
    /// If `startImmediately` is true, the first connection is emitted
    /// synchronously, during the subscription (at the first demand, which
    /// `sink` makes on subscription), from the writer's queue, in the same
    /// database access that starts the observation: no transaction can
    /// happen between the first element and the observation of the next
    /// ones. It can be subscribed from any thread, and from inside a
    /// database access. If `startImmediately` is false, the publisher is
    /// the one of `changes(in:)`, without an initial element.
    ///
    /// `changes(in:)`, without this argument, is RxGRDB 3's spelling, which
    /// has no initial element, where RxGRDB 0.18's default was true.
    ///
    /// - parameter writer: A database writer.
    /// - parameter startImmediately: Whether a connection is emitted on
    ///   subscription.
    /// - returns: A publisher of database connections.
    public func changes(in writer: any DatabaseWriter, startImmediately: Bool) -> DatabasePublishers.DatabaseRegion {
        var publisher = base.publisher(in: writer)
        publisher.startsImmediately = startImmediately
        return publisher
    }
}

extension DatabasePublishers {
    /// A publisher that emits a database connection right after each
    /// committed transaction that has impacted a tracked region.
    ///
    /// You build one with `observation.rx.changes(in:)`,
    /// `observation.publisher(in:)` or `request.rx.changes(in:)`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let changes: DatabasePublishers.DatabaseRegion = DatabaseRegionObservation
    ///     .tracking(Player.all())
    ///     .rx.changes(in: dbQueue)
    /// ```
    ///
    /// It is `Sendable`: build it once, and subscribe from any task or
    /// queue.
    public struct DatabaseRegion: Publisher, Sendable {
        /// The publisher publishes the database connection that has just
        /// committed: use it right away, on the queue it is published on.
        public typealias Output = Database
        /// The publisher fails with the error of the observation: a
        /// `DatabaseError`, or a `DatabaseFileChangedError`.
        public typealias Failure = Error

        let observation: DatabaseRegionObservation
        let writer: any DatabaseWriter
        var commits: OtherProcessCommits?
        /// Whether a connection is emitted on subscription.
        var startsImmediately = false

        /// Returns a publisher that also emits after each commit of another
        /// process.
        ///
        /// GRDB's observations see the transactions of their own database
        /// connection only. This publisher also sees the commits of other
        /// processes, on a `DatabaseQueue` or a `DatabasePool`, writable or
        /// read-only, in WAL or rollback-journal mode. It never writes to
        /// the database.
        ///
        /// For example:
        ///
        /// ```swift
        /// let cancellable = DatabaseRegionObservation
        ///     .tracking(Player.all())
        ///     .publisher(in: dbPool)       // or .rx.changes(in: dbPool)
        ///     .includingOtherProcesses()
        ///     .sink(
        ///         receiveCompletion: { completion in ... },
        ///         receiveValue: { (db: Database) in print("Players may have changed.") })
        /// ```
        ///
        /// After a commit of another process, the connection is emitted on
        /// the writer's queue, as after a transaction of the app: the
        /// emission waits for the app's writes in progress. What another
        /// process changed is not known, so any of its commits emits, even
        /// one that changes other tables. A burst of commits is coalesced
        /// into fewer emissions, the last one after the last commit.
        ///
        /// The publisher fails with a `DatabaseFileChangedError` if the
        /// database file is deleted or replaced, or its directory deleted.
        ///
        /// - parameter commits: How the commits are detected: by default,
        ///   with inotify's file events, which cost nothing while nothing
        ///   is written.
        /// - returns: A publisher of database connections.
        public func includingOtherProcesses(_ commits: OtherProcessCommits = .fileEvents) -> Self {
            var publisher = self
            publisher.commits = commits
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
        where S: Subscriber & GRDBSendableMetatype, S.Input == Database, S.Failure == Error
        {
            let observation = observation
            let writer = writer
            let startsImmediately = startsImmediately
            let otherProcesses = commits.map { commits in
                OtherProcessRefresh<Database>(
                    reader: writer, commits: commits,
                    action: .emit { emit in
                        writer.asyncWriteWithoutTransaction { db in emit(db) }
                    },
                    // Where the observation's errors come from.
                    schedule: { work in writer.asyncWriteWithoutTransaction { _ in work() } })
            }
            // GRDB starts the observation with a reentrant write, so that
            // it can start from inside a database access too.
            let subscription = ObservationSubscription(
                start: { onError, onChange in
                    guard startsImmediately else {
                        return observation.start(in: writer, onError: onError, onChange: onChange)
                    }
                    // The first connection, and the start, in one database
                    // access: no transaction can happen in between.
                    return writer.unsafeReentrantWrite { db in
                        let cancellable = observation.start(in: writer, onError: onError, onChange: onChange)
                        onChange(db)
                        return cancellable
                    }
                },
                otherProcesses: otherProcesses,
                downstream: subscriber)
            subscriber.receive(subscription: subscription)
        }
    }
}
