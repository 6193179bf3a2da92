import GRDB
import OpenCombine

/// A namespace for database publishers.
///
/// GRDB declares the same namespace on platforms that have Combine; on Linux,
/// ReactiveGRDB declares it, so that code written against GRDB's publishers
/// reads the same.
public enum DatabasePublishers { }

extension DatabasePublishers {
    /// A publisher that reads a value from the database.
    ///
    /// It publishes exactly one value, or an error. You build one with
    /// `reader.rx.read(observeOn:value:)` or
    /// `reader.readPublisher(receiveOn:value:)`.
    public struct Read<Output>: Publisher {
        public typealias Failure = Error

        fileprivate let upstream: AnyPublisher<Output, Error>

        init(_ upstream: some Publisher<Output, Error>) {
            self.upstream = upstream.eraseToAnyPublisher()
        }

        /// Attaches the specified subscriber to this publisher.
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
    public struct Write<Output>: Publisher {
        public typealias Failure = Error

        fileprivate let upstream: AnyPublisher<Output, Error>

        init(_ upstream: some Publisher<Output, Error>) {
            self.upstream = upstream.eraseToAnyPublisher()
        }

        /// Attaches the specified subscriber to this publisher.
        ///
        /// - parameter subscriber: The subscriber to attach.
        public func receive<S>(subscriber: S) where S: Subscriber, S.Input == Output, S.Failure == Error {
            upstream.receive(subscriber: subscriber)
        }
    }
}
