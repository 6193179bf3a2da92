import GRDB
import OpenCombine

/// A namespace for database publishers.
///
/// GRDB declares the same namespace on platforms that have Combine; on Linux,
/// ReactiveGRDB declares it, so that code written against GRDB's publishers
/// reads the same.
///
/// For example:
///
/// ```swift
/// let players: DatabasePublishers.Value<[Player]> = ValueObservation
///     .tracking { db in try Player.fetchAll(db) }
///     .publisher(in: dbQueue)
/// ```
public enum DatabasePublishers { }

extension DatabasePublishers {
    /// A publisher that reads a value from the database.
    ///
    /// It publishes exactly one value, or an error. You build one with
    /// `reader.rx.read(observeOn:value:)` or
    /// `reader.readPublisher(receiveOn:value:)`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let count: DatabasePublishers.Read<Int> = dbQueue.rx.read { db in
    ///     try Player.fetchCount(db)
    /// }
    /// ```
    ///
    /// It is `Sendable`: build it once, and subscribe from any task or
    /// queue.
    // @unchecked Sendable: `upstream` only wraps an immutable database
    // access (a `@Sendable` closure) and its scheduler, which OpenCombine's
    // contract lets any thread use.
    public struct Read<Output>: Publisher, @unchecked Sendable {
        /// The publisher fails with the error of the database access:
        /// a `DatabaseError`, or any error thrown by your closures.
        public typealias Failure = Error

        fileprivate let upstream: AnyPublisher<Output, Error>

        init<Context>(_ upstream: DatabaseFuture<Output, Context>) {
            self.upstream = upstream.eraseToAnyPublisher()
        }

        /// Attaches the specified subscriber to this publisher. The database
        /// access starts at the subscriber's first positive demand.
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
        public func receive<S>(subscriber: S) where S: Subscriber, S.Input == Output, S.Failure == Error {
            upstream.receive(subscriber: subscriber)
        }
    }

    /// A publisher that writes into the database.
    ///
    /// It publishes exactly one value, or an error. You build one with
    /// `writer.rx.write(observeOn:updates:)`,
    /// `writer.rx.write(observeOn:updates:thenRead:)`, or their
    /// `writePublisher(receiveOn:…)` spellings.
    ///
    /// For example:
    ///
    /// ```swift
    /// let write: DatabasePublishers.Write<Void> = dbQueue.rx.write { db in
    ///     try Player(name: "Arthur", score: 100).insert(db)
    /// }
    /// ```
    ///
    /// It is `Sendable`: build it once, and subscribe from any task or
    /// queue.
    // @unchecked Sendable: `upstream` only wraps an immutable database
    // access (a `@Sendable` closure) and its scheduler, which OpenCombine's
    // contract lets any thread use.
    public struct Write<Output>: Publisher, @unchecked Sendable {
        /// The publisher fails with the error of the database access:
        /// a `DatabaseError`, or any error thrown by your closures.
        public typealias Failure = Error

        fileprivate let upstream: AnyPublisher<Output, Error>

        init<Context>(_ upstream: DatabaseFuture<Output, Context>) {
            self.upstream = upstream.eraseToAnyPublisher()
        }

        /// Attaches the specified subscriber to this publisher. The database
        /// access starts at the subscriber's first positive demand.
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
        public func receive<S>(subscriber: S) where S: Subscriber, S.Input == Output, S.Failure == Error {
            upstream.receive(subscriber: subscriber)
        }
    }
}
