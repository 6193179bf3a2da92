import Dispatch
import GRDB

// The request conveniences of RxGRDB 0.18: values publishers that filter out
// identical consecutive values, and a changes publisher.
//
// Records are compared through their fetched rows, so that a record type need
// not be Equatable for its duplicates to be filtered out: this is how RxGRDB
// 0.18 filtered records.
//
// Observed values must be Sendable, as in GRDB 7: records and values are, raw
// `Row` values are not (observe a record type instead).

extension GRDBReactive where Base: FetchRequest {
    /// Returns a publisher that emits a database connection right after each
    /// committed transaction that has modified the tables and columns fetched
    /// by the request.
    ///
    /// For example:
    ///
    /// ```swift
    /// let cancellable = Player.all().rx
    ///     .changes(in: dbQueue)
    ///     .sink(receiveCompletion: { _ in }, receiveValue: { (db: Database) in
    ///         print("Players have changed.")
    ///     })
    /// ```
    ///
    /// It is `DatabaseRegionObservation(tracking: request).rx.changes(in:)`:
    /// connections are emitted on the writer's queue, serialized with all
    /// database updates, and never for a rolled back transaction.
    ///
    /// - parameter writer: A database writer.
    /// - returns: A publisher of database connections.
    public func changes(in writer: any DatabaseWriter) -> DatabasePublishers.DatabaseRegion {
        DatabaseRegionObservation(tracking: base).rx.changes(in: writer)
    }

    /// Returns a publisher of the number of results of the request, fetched
    /// initially and after each transaction that changes it.
    ///
    /// For example:
    ///
    /// ```swift
    /// let cancellable = Player.all().rx
    ///     .observeCount(in: dbQueue)
    ///     .sink(receiveCompletion: { _ in }, receiveValue: { (count: Int) in
    ///         print("Fresh player count: \(count)")
    ///     })
    /// ```
    ///
    /// Identical consecutive values are filtered out.
    ///
    /// - parameter reader: A database reader.
    /// - parameter scheduler: A `ValueObservationScheduler`. By default, fresh
    ///   values are dispatched asynchronously on the main dispatch queue.
    /// - returns: A publisher of counts.
    public func observeCount(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler = .async(onQueue: .main))
    -> DatabasePublishers.Value<Int>
    {
        let request = UncheckedRequest(base)
        return ValueObservation
            .tracking { db in try request.base.fetchCount(db) }
            .removeDuplicates()
            .publisher(in: reader, scheduling: scheduler)
    }
}

extension GRDBReactive where Base: FetchRequest, Base.RowDecoder: FetchableRecord & Sendable {
    /// Returns a publisher of the records fetched by the request, initially
    /// and after each transaction that changes them.
    ///
    /// For example:
    ///
    /// ```swift
    /// let cancellable = Player.order(Column("score").desc).rx
    ///     .observeAll(in: dbQueue)
    ///     .sink(receiveCompletion: { _ in }, receiveValue: { (players: [Player]) in
    ///         print("Fresh players: \(players)")
    ///     })
    /// ```
    ///
    /// Identical consecutive values are filtered out.
    ///
    /// - parameter reader: A database reader.
    /// - parameter scheduler: A `ValueObservationScheduler`. By default, fresh
    ///   values are dispatched asynchronously on the main dispatch queue.
    /// - returns: A publisher of arrays of records.
    public func observeAll(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler = .async(onQueue: .main))
    -> DatabasePublishers.Value<[Base.RowDecoder]>
    {
        let request = UncheckedRequest(base)
        return ValueObservation
            .tracking { db -> FetchedRows<[Base.RowDecoder]> in
                let rows = try Row.fetchAll(db, request.base)
                return try FetchedRows(rows: rows, value: rows.map { try Base.RowDecoder(row: $0) })
            }
            .removeDuplicates(by: { $0.rows == $1.rows })
            .map(\.value)
            .publisher(in: reader, scheduling: scheduler)
    }

    /// Returns a publisher of the first record fetched by the request,
    /// initially and after each transaction that changes it.
    ///
    /// For example:
    ///
    /// ```swift
    /// let cancellable = Player.order(Column("score").desc).rx
    ///     .observeFirst(in: dbQueue)
    ///     .sink(receiveCompletion: { _ in }, receiveValue: { (player: Player?) in
    ///         print("Fresh best player: \(player)")
    ///     })
    /// ```
    ///
    /// Identical consecutive values are filtered out.
    ///
    /// - parameter reader: A database reader.
    /// - parameter scheduler: A `ValueObservationScheduler`. By default, fresh
    ///   values are dispatched asynchronously on the main dispatch queue.
    /// - returns: A publisher of optional records.
    public func observeFirst(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler = .async(onQueue: .main))
    -> DatabasePublishers.Value<Base.RowDecoder?>
    {
        let request = UncheckedRequest(base)
        return ValueObservation
            .tracking { db -> FetchedRows<Base.RowDecoder?> in
                let row = try Row.fetchOne(db, request.base)
                return try FetchedRows(rows: row.map { [$0] } ?? [], value: row.map { try Base.RowDecoder(row: $0) })
            }
            .removeDuplicates(by: { $0.rows == $1.rows })
            .map(\.value)
            .publisher(in: reader, scheduling: scheduler)
    }
}

extension GRDBReactive where Base: FetchRequest, Base.RowDecoder: DatabaseValueConvertible & Equatable & Sendable {
    /// Returns a publisher of the values fetched by the request, initially
    /// and after each transaction that changes them.
    ///
    /// For example:
    ///
    /// ```swift
    /// let request = Player.select(Column("name"), as: String.self)
    /// let names = request.rx.observeAll(in: dbQueue) // publisher of [String]
    /// ```
    ///
    /// Identical consecutive values are filtered out.
    ///
    /// - parameter reader: A database reader.
    /// - parameter scheduler: A `ValueObservationScheduler`. By default, fresh
    ///   values are dispatched asynchronously on the main dispatch queue.
    /// - returns: A publisher of arrays of values.
    public func observeAll(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler = .async(onQueue: .main))
    -> DatabasePublishers.Value<[Base.RowDecoder]>
    {
        let request = UncheckedRequest(base)
        return ValueObservation
            .tracking { db in try Base.RowDecoder.fetchAll(db, request.base) }
            .removeDuplicates()
            .publisher(in: reader, scheduling: scheduler)
    }

    /// Returns a publisher of the first value fetched by the request,
    /// initially and after each transaction that changes it.
    ///
    /// For example:
    ///
    /// ```swift
    /// let request = SQLRequest<Int>(sql: "SELECT MAX(score) FROM player")
    /// let maxScore = request.rx.observeFirst(in: dbQueue) // publisher of Int?
    /// ```
    ///
    /// Identical consecutive values are filtered out.
    ///
    /// - parameter reader: A database reader.
    /// - parameter scheduler: A `ValueObservationScheduler`. By default, fresh
    ///   values are dispatched asynchronously on the main dispatch queue.
    /// - returns: A publisher of optional values.
    public func observeFirst(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler = .async(onQueue: .main))
    -> DatabasePublishers.Value<Base.RowDecoder?>
    {
        let request = UncheckedRequest(base)
        return ValueObservation
            .tracking { db in try Base.RowDecoder.fetchOne(db, request.base) }
            .removeDuplicates()
            .publisher(in: reader, scheduling: scheduler)
    }
}

/// Carries a request into the observation's `@Sendable` fetch closure.
// @unchecked Sendable: GRDB requests are immutable values; the request types
// that do not declare Sendable (such as `SQLRequest` with a non-Sendable
// decoder type) only hold SQL, arguments and adapters.
private struct UncheckedRequest<Request>: @unchecked Sendable {
    let base: Request
    init(_ base: Request) { self.base = base }
}

/// Fetched rows, and the value decoded from them, so that observations can
/// compare rows.
// @unchecked Sendable: fetched rows are copies that are never mutated. They
// are compared on the observation's queue and delivered to one subscriber.
private struct FetchedRows<Value>: @unchecked Sendable {
    let rows: [Row]
    let value: Value
}
