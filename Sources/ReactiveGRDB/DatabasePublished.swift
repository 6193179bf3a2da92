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
/// When the owner is an `ObservableObject` whose `objectWillChange` is a
/// stored `ObservableObjectPublisher`, the owner's `objectWillChange` fires
/// before each change too, from the first time the property is read
/// through its owner:
///
/// ```swift
/// final class PlayerList: ObservableObject {
///     let objectWillChange = ObservableObjectPublisher()
///
///     @DatabasePublished(Player.observationForAll().publisher(in: dbQueue))
///     var players: Result<[Player], Error>
///
///     @DatabasePublished(Player.observationForCount().publisher(in: dbQueue))
///     var playerCount: Result<Int, Error>
/// }
/// ```
///
/// An owner that has a `@Published` property needs no declaration: the
/// `objectWillChange` that OpenCombine synthesizes for it is stored in its
/// `@Published` properties. A `@MainActor` owner declares a main-actor
/// conformance, `@MainActor ObservableObject`, since
/// `ObservableObjectPublisher` is not `Sendable`.
///
/// - important: Create and read the property on the main queue, and give it
///   a publisher that publishes on the main queue (the default of
///   `publisher(in:)`). In Swift 6, declare the owner `@MainActor` if it is
///   used from actor-isolated code.
@propertyWrapper
public final class DatabasePublished<Value: Sendable>: Publisher, ObservableObject, Observable {
    /// The wrapper publishes the values of the observation.
    public typealias Output = Value
    /// The wrapper fails with the error of the observation.
    public typealias Failure = Error

    /// A publisher that emits before each change of the property.
    ///
    /// For example:
    ///
    /// ```swift
    /// let cancellable = list.$players.objectWillChange.sink {
    ///     print("Players will change")
    /// }
    /// ```
    public let objectWillChange = ObservableObjectPublisher()

    /// Sends the owner's `objectWillChange`, if the owner is an
    /// `ObservableObject`. Nil until the owner is known.
    private var ownerWillChange: (() -> Void)?
    /// Whether the property has been read through its owner.
    private var knowsOwner = false

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

    /// The property, read through its owner: the wrapper learns its owner,
    /// whose `objectWillChange` then fires before each change, if the owner
    /// is an `ObservableObject` with an `ObservableObjectPublisher`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let players: [Player] = try list.players.get()
    /// ```
    ///
    /// The compiler calls this subscript when the owner is a class; you do
    /// not call it.
    ///
    /// - parameter owner: The owner of the property.
    /// - parameter wrappedKeyPath: The key path of the property.
    /// - parameter storageKeyPath: The key path of the wrapper.
    // OpenCombine's synthesized `objectWillChange` only looks for the
    // `@Published` properties of an object (it finds them by reflection,
    // through a protocol that is private to OpenCombine): this is how the
    // wrapper reaches its owner instead.
    public static subscript<Owner: AnyObject>(
        _enclosingInstance owner: Owner,
        wrapped wrappedKeyPath: KeyPath<Owner, Result<Value, Error>>,
        storage storageKeyPath: KeyPath<Owner, DatabasePublished<Value>>
    ) -> Result<Value, Error> {
        let wrapper = owner[keyPath: storageKeyPath]
        if !wrapper.knowsOwner {
            wrapper.knowsOwner = true
            if let owner = owner as? any ObservableObject {
                wrapper.ownerWillChange = wrapper.willChange(of: owner)
            }
        }
        return wrapper.wrappedValue
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

    /// Returns a function that sends the `objectWillChange` of the owner,
    /// unless it is not an `ObservableObjectPublisher`, or is the wrapper's
    /// own (`var objectWillChange { $players.objectWillChange }`).
    private func willChange<Owner: ObservableObject>(of owner: Owner) -> (() -> Void)? {
        guard Owner.ObjectWillChangePublisher.self == ObservableObjectPublisher.self else { return nil }
        return { [weak owner, objectWillChange] in
            // An owner without a stored publisher nor a `@Published`
            // property gets a fresh publisher from OpenCombine on each
            // access, with no subscriber: sending it does nothing.
            guard let publisher = owner?.objectWillChange as? ObservableObjectPublisher,
                  publisher !== objectWillChange
            else { return }
            publisher.send()
        }
    }

    private func update(_ result: Result<Value, Error>) {
        ownerWillChange?()
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
