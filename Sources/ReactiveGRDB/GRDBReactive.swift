import GRDB

/// A namespace for the reactive extensions of GRDB types, reached through
/// their `rx` property.
///
/// `GRDBReactive` is the Linux counterpart of RxSwift's `Reactive` struct
/// that RxGRDB extends. Because it is a struct that wraps any value, it works
/// on value types such as `ValueObservation` and requests as well as on
/// database connections.
///
/// For example:
///
/// ```swift
/// let players = dbQueue.rx.read { db in try Player.fetchAll(db) }
/// let observation = ValueObservation.tracking { db in try Player.fetchAll(db) }
/// let values = observation.rx.observe(in: dbQueue)
/// ```
public struct GRDBReactive<Base> {
    /// The extended value.
    ///
    /// For example:
    ///
    /// ```swift
    /// let reader: any DatabaseReader = dbQueue.rx.base
    /// ```
    public let base: Base

    /// Creates a namespace for the reactive extensions of `base`. The `rx`
    /// properties call it for you.
    ///
    /// For example:
    ///
    /// ```swift
    /// let reactive = GRDBReactive<any DatabaseReader>(dbQueue)
    /// let players = reactive.read { db in try Player.fetchAll(db) }
    /// ```
    ///
    /// - parameter base: The extended value.
    public init(_ base: Base) {
        self.base = base
    }
}

// A namespace of Sendable values (connections, observations, requests) can
// be built in one task and used in another.
extension GRDBReactive: Sendable where Base: Sendable { }

// `rx` is declared on the protocols rather than on each concrete type, so that
// it is reachable on `DatabaseQueue`, `DatabasePool`, `DatabaseSnapshot`, on
// values of a generic type `R: DatabaseReader`, and on existentials. For a
// writer, the more refined `DatabaseWriter` extension wins overload resolution.

extension DatabaseReader {
    /// Reactive extensions of a database reader: `rx.read(observeOn:value:)`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let reader: any DatabaseReader = try dbPool.makeSnapshot()
    /// let players = reader.rx.read { db in try Player.fetchAll(db) }
    /// ```
    public var rx: GRDBReactive<any DatabaseReader> {
        GRDBReactive(self)
    }
}

extension DatabaseWriter {
    /// Reactive extensions of a database writer: `rx.read(observeOn:value:)`,
    /// `rx.write(observeOn:updates:)`, `rx.writeAndReturn(observeOn:updates:)`
    /// and `rx.write(observeOn:updates:thenRead:)`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let write = dbQueue.rx.write { db in try Player(name: "Arthur", score: 100).insert(db) }
    /// ```
    public var rx: GRDBReactive<any DatabaseWriter> {
        GRDBReactive(self)
    }
}

extension ValueObservation {
    /// Reactive extensions of a value observation:
    /// `rx.observe(in:scheduling:)`, and RxGRDB 0.18's
    /// `rx.observe(in:startImmediately:observeOn:)`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let players = ValueObservation
    ///     .tracking { db in try Player.fetchAll(db) }
    ///     .rx.observe(in: dbQueue)
    /// ```
    public var rx: GRDBReactive<Self> {
        GRDBReactive(self)
    }
}

extension DatabaseRegionObservation {
    /// Reactive extensions of a database region observation:
    /// `rx.changes(in:)`, and RxGRDB 0.18's
    /// `rx.changes(in:startImmediately:)`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let changes = DatabaseRegionObservation
    ///     .tracking(Player.all())
    ///     .rx.changes(in: dbQueue)
    /// ```
    public var rx: GRDBReactive<Self> {
        GRDBReactive(self)
    }
}

extension FetchRequest {
    /// Reactive extensions of a request: RxGRDB 0.18's
    /// `rx.observeAll(in:startImmediately:observeOn:)`,
    /// `rx.observeFirst(in:startImmediately:observeOn:)`,
    /// `rx.observeCount(in:startImmediately:observeOn:)`, their
    /// `scheduling:` forms, and `rx.changes(in:startImmediately:)`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let players = Player.all().rx.observeAll(in: dbQueue)
    /// ```
    public var rx: GRDBReactive<Self> {
        GRDBReactive(self)
    }
}
