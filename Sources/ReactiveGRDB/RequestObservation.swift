import Dispatch
import GRDB

/// An observation of the results of requests, that filters out identical
/// consecutive values: GRDBCombine's `observationForAll()`,
/// `observationForFirst()` and `observationForCount()`.
///
/// It publishes an initial value, then a fresh value after each transaction
/// that changes the results. A transaction that does not change them
/// publishes nothing, and neither does a commit of another process when the
/// publisher includes them: the values that are compared are the fetched
/// database rows for records, and the values themselves for counts and
/// plain values.
///
/// You build one from a request, or combine several with
/// `ValueObservation.combine(_:_:)`, then get a publisher with
/// `publisher(in:scheduling:)`.
///
/// For example:
///
/// ```swift
/// let observation: RequestObservation<[Player]> = Player.all().observationForAll()
/// let publisher = observation.publisher(in: dbQueue)
/// ```
public struct RequestObservation<Value: Sendable>: Sendable {
    /// Fetches a value and what is compared to detect duplicates.
    let fetch: @Sendable (Database) throws -> FetchedValue<Value>

    init(fetch: @escaping @Sendable (Database) throws -> FetchedValue<Value>) {
        self.fetch = fetch
    }

    /// An observation of a value compared with `==`.
    init(fetchValue: @escaping @Sendable (Database) throws -> Value) where Value: Equatable {
        fetch = { db in
            let value = try fetchValue(db)
            return FetchedValue(value: value, key: value)
        }
    }

    /// Returns a publisher of the observed values: an initial value, then a
    /// fresh value after each transaction that has changed it.
    ///
    /// For example:
    ///
    /// ```swift
    /// let cancellable = Player.all()
    ///     .observationForAll()
    ///     .publisher(in: dbQueue)
    ///     .sink(
    ///         receiveCompletion: { completion in print(completion) },
    ///         receiveValue: { (players: [Player]) in print("Fresh players: \(players)") })
    /// ```
    ///
    /// The publisher filters out identical consecutive values, including
    /// after the commits of other processes when you call
    /// `includingOtherProcesses(_:)` on it. It only completes with a
    /// database error. Call `fetchOnSubscription()` on it to fetch the
    /// initial value synchronously, on subscription.
    ///
    /// - parameter reader: A database reader.
    /// - parameter scheduler: A `ValueObservationScheduler`. By default, fresh
    ///   values are dispatched asynchronously on the main dispatch queue.
    /// - returns: A publisher of observed values.
    public func publisher(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler = .async(onQueue: .main))
    -> DatabasePublishers.Value<Value>
    {
        publisher(in: reader, scheduling: scheduler, startImmediately: true)
    }

    /// The publisher of `publisher(in:scheduling:)`, that publishes its
    /// initial value only if `startImmediately` is true: RxGRDB 0.18's
    /// `startImmediately:` argument.
    func publisher(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler,
        startImmediately: Bool)
    -> DatabasePublishers.Value<Value>
    {
        let fetch = fetch
        let observation = ValueObservation
            .tracking { db in try fetch(db) }
            .removeDuplicates(by: FetchedValue.isDuplicate)
        return DatabasePublishers.Value(
            observation, in: reader, scheduling: scheduler, startImmediately: startImmediately,
            removingDuplicates: FetchedValue.isDuplicate,
            output: \.value)
    }
}

extension ValueObservation where Reducer == ValueReducers.Fetch<Never> {
    // The extension fixes `Reducer`, so that `ValueObservation.combine(a, b)`
    // compiles, as in GRDB 4: the combined observation is not a GRDB
    // `ValueObservation`, which hides its fetch.

    /// Returns an observation that fetches the values of two request
    /// observations in a single database access.
    ///
    /// For example:
    ///
    /// ```swift
    /// let best = Player.order(Column("score").desc).observationForFirst()
    /// let count = Player.observationForCount()
    /// let observation = ValueObservation.combine(best, count)
    /// let publisher = observation.publisher(in: dbQueue) // publisher of (Player?, Int)
    /// ```
    ///
    /// Both values come from the same database state: the guarantee of data
    /// consistency that combining two publishers (with `combineLatest` or
    /// `zip`) loses. A transaction that changes neither value publishes
    /// nothing.
    ///
    /// - parameter first: A request observation.
    /// - parameter second: A request observation.
    /// - returns: An observation of both values.
    public static func combine<A, B>(
        _ first: RequestObservation<A>,
        _ second: RequestObservation<B>)
    -> RequestObservation<(A, B)>
    {
        RequestObservation { db in
            let a = try first.fetch(db)
            let b = try second.fetch(db)
            return FetchedValue(value: (a.value, b.value), key: CombinedKey(keys: [a.key, b.key]))
        }
    }

    /// Returns an observation that fetches the values of three request
    /// observations in a single database access.
    ///
    /// For example:
    ///
    /// ```swift
    /// let best = Player.order(Column("score").desc).observationForFirst()
    /// let count = Player.observationForCount()
    /// let names = Player.select(Column("name"), as: String.self).observationForAll()
    /// let observation = ValueObservation.combine(best, count, names)
    /// let publisher = observation.publisher(in: dbQueue) // publisher of (Player?, Int, [String])
    /// ```
    ///
    /// - parameter first: A request observation.
    /// - parameter second: A request observation.
    /// - parameter third: A request observation.
    /// - returns: An observation of the three values.
    public static func combine<A, B, C>(
        _ first: RequestObservation<A>,
        _ second: RequestObservation<B>,
        _ third: RequestObservation<C>)
    -> RequestObservation<(A, B, C)>
    {
        RequestObservation { db in
            let a = try first.fetch(db)
            let b = try second.fetch(db)
            let c = try third.fetch(db)
            return FetchedValue(value: (a.value, b.value, c.value), key: CombinedKey(keys: [a.key, b.key, c.key]))
        }
    }

    // GRDB 4's `ValueObservation.combine` also took the observations of
    // `ValueObservation.tracking`. GRDB 7 keeps the fetch of a
    // `ValueObservation` internal: two of them can't be fetched in one
    // database access. These overloads, chosen for any other arguments than
    // request observations, turn the compiler's "generic parameter could
    // not be inferred" into the way to write it.

    /// Unavailable: `ValueObservation.combine` takes request observations.
    ///
    /// For example:
    ///
    /// ```swift
    /// // Instead of ValueObservation.combine(players, count):
    /// let observation = ValueObservation.tracking { db in
    ///     (try Player.fetchAll(db), try Player.fetchCount(db))
    /// }
    /// ```
    ///
    /// - parameter first: An observation.
    /// - parameter second: An observation.
    /// - returns: Nothing: it can't be called.
    @available(*, unavailable, message: "ValueObservation.combine takes request observations (observationForAll(), observationForFirst(), observationForCount()): GRDB 7's ValueObservation hides its fetch, so two of them can't share one database access. Fetch the values in one observation instead: ValueObservation.tracking { db in (try fetchA(db), try fetchB(db)) }")
    public static func combine<A, B>(_ first: A, _ second: B) -> Self {
        fatalError("unavailable")
    }

    /// Unavailable: `ValueObservation.combine` takes request observations.
    ///
    /// For example:
    ///
    /// ```swift
    /// // Instead of ValueObservation.combine(players, count, teams):
    /// let observation = ValueObservation.tracking { db in
    ///     (try Player.fetchAll(db), try Player.fetchCount(db), try Team.fetchAll(db))
    /// }
    /// ```
    ///
    /// - parameter first: An observation.
    /// - parameter second: An observation.
    /// - parameter third: An observation.
    /// - returns: Nothing: it can't be called.
    @available(*, unavailable, message: "ValueObservation.combine takes request observations (observationForAll(), observationForFirst(), observationForCount()): GRDB 7's ValueObservation hides its fetch, so two of them can't share one database access. Fetch the values in one observation instead: ValueObservation.tracking { db in (try fetchA(db), try fetchB(db), try fetchC(db)) }")
    public static func combine<A, B, C>(_ first: A, _ second: B, _ third: C) -> Self {
        fatalError("unavailable")
    }
}

/// A fetched value, and what is compared to detect duplicates: the fetched
/// rows for records, the value itself otherwise.
// @unchecked Sendable: the key holds copies of fetched rows or plain values,
// never mutated. It is compared on the observation's queue and by the
// subscription's delivering thread, one value after the other.
struct FetchedValue<Value>: @unchecked Sendable {
    let value: Value
    let key: any Equatable

    @Sendable static func isDuplicate(_ lhs: Self, _ rhs: Self) -> Bool {
        areEqual(lhs.key, rhs.key)
    }
}

/// The keys of combined observations.
private struct CombinedKey: Equatable {
    let keys: [any Equatable]

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.keys.count == rhs.keys.count && zip(lhs.keys, rhs.keys).allSatisfy { areEqual($0, $1) }
    }
}

private func areEqual(_ lhs: any Equatable, _ rhs: any Equatable) -> Bool {
    func isEqual<T: Equatable>(_ lhs: T, _ rhs: any Equatable) -> Bool {
        (rhs as? T) == lhs
    }
    return isEqual(lhs, rhs)
}
