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
    public struct DatabaseRegion: Publisher {
        public typealias Output = Database
        public typealias Failure = Error

        let observation: DatabaseRegionObservation
        let writer: any DatabaseWriter

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
            // GRDB starts the observation with a reentrant write, so that
            // it can start from inside a database access too.
            let subscription = ObservationSubscription(
                start: { onError, onChange in
                    observation.start(in: writer, onError: onError, onChange: onChange)
                },
                downstream: subscriber)
            subscriber.receive(subscription: subscription)
        }
    }
}
