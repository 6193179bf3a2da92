import GRDB
import Observation
import OpenCombine

/// A property wrapper that keeps a property up to date with the database:
/// GRDBCombine's `@DatabasePublished`.
///
/// You declare it with the publisher of a value observation. The property is
/// a `Result`: the latest value, or the error that ended the observation.
///
/// For example:
///
/// ```swift
/// final class PlayerList {
///     static let playersPublisher = Player.observationForAll().publisher(in: dbQueue)
///
///     @DatabasePublished(playersPublisher)
///     var players: Result<[Player], Error>
/// }
///
/// let list = PlayerList()
/// let players = try list.players.get() // [Player], fetched at once
/// let publisher = list.$players         // publisher of [Player], failing with Error
/// ```
///
/// By default, the initial value of the property is fetched at once, when
/// the property is initialized: this blocks the main queue until the
/// database access completes. With `init(initialValue:_:)`, the property
/// holds `initialValue` until the first value is fetched, asynchronously.
///
/// The property tracks the database for its whole life, which is the life
/// of its owner: use it in classes, not in structs. Publishers that include
/// the commits of other processes (`includingOtherProcesses(_:)`) work too.
///
/// `$property` is the wrapper itself: a publisher of the current value and
/// of each fresh one, which fails with the observation's error; an
/// OpenCombine `ObservableObject`, whose `objectWillChange` fires before
/// each change (the counterpart of the `BindableObject` conformance of
/// GRDBCombine); and a Swift Observation `Observable`, so that reading the
/// property inside `withObservationTracking(_:onChange:)` tracks it, in an
/// `@Observable` class too (where the property is `@ObservationIgnored`,
/// since the macro cannot rewrite a wrapped property).
///
/// - important: Create and read the property on the main queue, and give it
///   a publisher that publishes on the main queue (the default of
///   `publisher(in:)`). In Swift 6, declare the owner `@MainActor` if it is
///   used from actor-isolated code.
@propertyWrapper
public final class DatabasePublished<Value: Sendable>: Publisher, ObservableObject, Observable {
    public typealias Output = Value
    public typealias Failure = Error

    /// A publisher that emits before each change of the property.
    ///
    /// For example:
    ///
    /// ```swift
    /// final class PlayerList: ObservableObject {
    ///     @DatabasePublished(Player.observationForAll().publisher(in: dbQueue))
    ///     var players: Result<[Player], Error>
    ///
    ///     // The owner changes when its property changes.
    ///     var objectWillChange: ObservableObjectPublisher { $players.objectWillChange }
    /// }
    /// ```
    public let objectWillChange = ObservableObjectPublisher()

    private let registrar = ObservationRegistrar()
    /// The values of `$property`. Nil until the initial value is fetched.
    private let subject = CurrentValueSubject<Value?, Error>(nil)
    private var result: Result<Value, Error>?
    private var cancellable: AnyCancellable?

    /// Creates a property whose initial value is fetched at once, on the
    /// main queue.
    ///
    /// For example:
    ///
    /// ```swift
    /// final class PlayerList {
    ///     @DatabasePublished(Player.observationForAll().publisher(in: dbQueue))
    ///     var players: Result<[Player], Error>
    /// }
    /// ```
    ///
    /// The publisher is subscribed with `fetchOnSubscription()`: the
    /// property must be created on the main thread, or a fatal error is
    /// raised.
    ///
    /// - parameter publisher: The publisher of a value observation.
    public init(_ publisher: DatabasePublishers.Value<Value>) {
        subscribe(to: publisher.fetchOnSubscription())
        // A shared observation's publisher keeps its own scheduler.
        precondition(
            result != nil,
            "@DatabasePublished could not fetch its initial value on subscription: share the observation with `scheduling: .immediate`, or give an initialValue")
    }

    /// Creates a property that holds `initialValue` until the initial value
    /// is fetched, asynchronously.
    ///
    /// For example:
    ///
    /// ```swift
    /// final class PlayerList {
    ///     @DatabasePublished(initialValue: [], Player.observationForAll().publisher(in: dbQueue))
    ///     var players: Result<[Player], Error>
    /// }
    /// ```
    ///
    /// - parameter initialValue: The value of the property until the first
    ///   value is published.
    /// - parameter publisher: A publisher that publishes on the main queue.
    public init(initialValue: Value, _ publisher: some Publisher<Value, Error>) {
        result = .success(initialValue)
        subject.value = initialValue
        subscribe(to: publisher)
    }

    /// The latest value of the observation, or the error that ended it.
    ///
    /// For example:
    ///
    /// ```swift
    /// let players: [Player] = try list.players.get()
    /// ```
    public var wrappedValue: Result<Value, Error> {
        registrar.access(self, keyPath: \.wrappedValue)
        // Not nil after init.
        return result!
    }

    /// The property wrapper itself: `$property` is a publisher of the
    /// property's values, and an `ObservableObject`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let cancellable = list.$players.sink(
    ///     receiveCompletion: { completion in print(completion) },
    ///     receiveValue: { (players: [Player]) in print("Fresh players: \(players)") })
    /// ```
    public var projectedValue: DatabasePublished<Value> { self }

    /// Attaches the specified subscriber: it receives the current value,
    /// then each fresh value, and the error that ends the observation.
    ///
    /// For example:
    ///
    /// ```swift
    /// let cancellable = list.$players.sink(
    ///     receiveCompletion: { completion in print(completion) },
    ///     receiveValue: { (players: [Player]) in print("Fresh players: \(players)") })
    /// ```
    ///
    /// - parameter subscriber: The subscriber to attach.
    public func receive<S>(subscriber: S) where S: Subscriber, S.Input == Value, S.Failure == Error {
        subject.compactMap { $0 }.receive(subscriber: subscriber)
    }

    private func subscribe(to publisher: some Publisher<Value, Error>) {
        // Weak: the subscription must not keep the property alive after its
        // owner is gone; the property's deinit cancels it.
        cancellable = publisher.sink(
            receiveCompletion: { [weak self] completion in
                if case let .failure(error) = completion {
                    self?.update(.failure(error))
                }
            },
            receiveValue: { [weak self] value in
                self?.update(.success(value))
            })
    }

    private func update(_ result: Result<Value, Error>) {
        objectWillChange.send()
        registrar.withMutation(of: self, keyPath: \.wrappedValue) {
            self.result = result
        }
        switch result {
        case let .success(value):
            subject.send(value)
        case let .failure(error):
            subject.send(completion: .failure(error))
        }
    }
}
