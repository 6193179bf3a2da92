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
        DatabasePublishers.Value { onError, onChange in
            self.start(in: reader, scheduling: scheduler, onError: onError, onChange: onChange)
        }
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
        DatabasePublishers.Value { onError, onChange in
            self.start(onError: onError, onChange: onChange)
        }
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
        public typealias Failure = Error

        typealias Start = ObservationStart<Output>

        private let start: Start

        init(start: @escaping Start) {
            self.start = start
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
            let subscription = ObservationSubscription(start: start, downstream: subscriber)
            subscriber.receive(subscription: subscription)
        }
    }
}
