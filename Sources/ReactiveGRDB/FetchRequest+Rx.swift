import Dispatch
import GRDB
import OpenCombine

// The request conveniences of RxGRDB 0.18: values publishers that filter out
// identical consecutive values, and a changes publisher, with its
// `startImmediately:` and `observeOn:` arguments.
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
    /// by the request, and, by default, right on subscription.
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
    /// It is `DatabaseRegionObservation(tracking: request).rx.changes(in:startImmediately:)`:
    /// connections are emitted on the writer's queue, serialized with all
    /// database updates, and never for a rolled back transaction. If
    /// `startImmediately` is true (the default, as in RxGRDB 0.18), the
    /// first connection is emitted synchronously, during the subscription
    /// (at the first demand, which `sink` makes on subscription), from
    /// the writer's queue, before any other write can happen.
    ///
    /// - parameter writer: A database writer.
    /// - parameter startImmediately: Whether a connection is emitted on
    ///   subscription. The default is true.
    /// - returns: A publisher of database connections.
    public func changes(in writer: any DatabaseWriter, startImmediately: Bool = true) -> DatabasePublishers.DatabaseRegion {
        DatabaseRegionObservation(tracking: base).rx.changes(in: writer, startImmediately: startImmediately)
    }
}

extension GRDBReactive where Base: FetchRequest {
    /// Returns a publisher of the number of results of the request,
    /// fetched initially and after each transaction that changes it.
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
    /// If `startImmediately` is true (the default), the first value is
    /// published from the current database state, synchronously during
    /// the subscription (at the first demand, which `sink` makes on
    /// subscription) if and only if the subscription happens on the main
    /// queue, on the main thread; otherwise, asynchronously on the main
    /// queue. If `startImmediately` is false, the initial value is fetched
    /// but not published: only a transaction that changes it publishes.
    /// All later values, and the error, are published asynchronously on
    /// the main queue.
    ///
    /// - parameter reader: A database reader.
    /// - parameter startImmediately: Whether the initial value is
    ///   published. The default is true.
    /// - returns: A publisher of counts.
    public func observeCount(
        in reader: any DatabaseReader,
        startImmediately: Bool = true)
    -> DatabasePublishers.Value<Int>
    {
        base.observationForCount().publisher(in: reader, scheduling: MainQueueScheduler(), startImmediately: startImmediately)
    }

    /// Returns a publisher of the number of results of the request, fetched
    /// initially and after each transaction that changes it, published as
    /// `scheduler` says.
    ///
    /// For example:
    ///
    /// ```swift
    /// let queue = DispatchQueue(label: "players")
    /// let publisher = Player.all().rx.observeCount(in: dbQueue, scheduling: .async(onQueue: queue))
    /// ```
    ///
    /// Identical consecutive values are filtered out.
    ///
    /// - parameter reader: A database reader.
    /// - parameter scheduler: A `ValueObservationScheduler`, such as
    ///   `.async(onQueue:)` or `.immediate`.
    /// - returns: A publisher of counts.
    public func observeCount(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler)
    -> DatabasePublishers.Value<Int>
    {
        base.observationForCount().publisher(in: reader, scheduling: scheduler)
    }

    /// Returns a publisher of the number of results of the request, published
    /// on `scheduler`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let queue = DispatchQueue(label: "players")
    /// let counts = Player.all().rx.observeCount(in: dbQueue, observeOn: queue.ocombine)
    /// ```
    ///
    /// It is RxGRDB 0.18's `observeOn:` argument: all values, the initial
    /// one too, and the error, are published asynchronously on
    /// `scheduler`, even the main queue's. If `startImmediately` is false,
    /// the initial value is fetched but not published. Identical
    /// consecutive values are filtered out.
    ///
    /// - parameter reader: A database reader.
    /// - parameter startImmediately: Whether the initial value is
    ///   published. The default is true.
    /// - parameter scheduler: The OpenCombine scheduler that publishes the
    ///   values and the error.
    /// - returns: A publisher of counts.
    public func observeCount<S: OpenCombine.Scheduler>(
        in reader: any DatabaseReader,
        startImmediately: Bool = true,
        observeOn scheduler: S)
    -> DatabasePublishers.Value<Int>
    {
        base.observationForCount().publisher(in: reader, scheduling: SchedulerOfValues(scheduler), startImmediately: startImmediately)
    }
}
extension GRDBReactive where Base: FetchRequest, Base.RowDecoder: FetchableRecord & Sendable {
    /// Returns a publisher of the records fetched by the request, fetched
    /// initially and after each transaction that changes it.
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
    /// If `startImmediately` is true (the default), the first value is
    /// published from the current database state, synchronously during
    /// the subscription (at the first demand, which `sink` makes on
    /// subscription) if and only if the subscription happens on the main
    /// queue, on the main thread; otherwise, asynchronously on the main
    /// queue. If `startImmediately` is false, the initial value is fetched
    /// but not published: only a transaction that changes it publishes.
    /// All later values, and the error, are published asynchronously on
    /// the main queue.
    ///
    /// - parameter reader: A database reader.
    /// - parameter startImmediately: Whether the initial value is
    ///   published. The default is true.
    /// - returns: A publisher of arrays of records.
    public func observeAll(
        in reader: any DatabaseReader,
        startImmediately: Bool = true)
    -> DatabasePublishers.Value<[Base.RowDecoder]>
    {
        base.observationForAll().publisher(in: reader, scheduling: MainQueueScheduler(), startImmediately: startImmediately)
    }

    /// Returns a publisher of the records fetched by the request, fetched
    /// initially and after each transaction that changes it, published as
    /// `scheduler` says.
    ///
    /// For example:
    ///
    /// ```swift
    /// let queue = DispatchQueue(label: "players")
    /// let publisher = Player.all().rx.observeAll(in: dbQueue, scheduling: .async(onQueue: queue))
    /// ```
    ///
    /// Identical consecutive values are filtered out.
    ///
    /// - parameter reader: A database reader.
    /// - parameter scheduler: A `ValueObservationScheduler`, such as
    ///   `.async(onQueue:)` or `.immediate`.
    /// - returns: A publisher of arrays of records.
    public func observeAll(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler)
    -> DatabasePublishers.Value<[Base.RowDecoder]>
    {
        base.observationForAll().publisher(in: reader, scheduling: scheduler)
    }

    /// Returns a publisher of the records fetched by the request, published on
    /// `scheduler`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let queue = DispatchQueue(label: "players")
    /// let players = Player.all().rx.observeAll(in: dbQueue, observeOn: queue.ocombine)
    /// ```
    ///
    /// It is RxGRDB 0.18's `observeOn:` argument: all values, the initial
    /// one too, and the error, are published asynchronously on
    /// `scheduler`, even the main queue's. If `startImmediately` is false,
    /// the initial value is fetched but not published. Identical
    /// consecutive values are filtered out.
    ///
    /// - parameter reader: A database reader.
    /// - parameter startImmediately: Whether the initial value is
    ///   published. The default is true.
    /// - parameter scheduler: The OpenCombine scheduler that publishes the
    ///   values and the error.
    /// - returns: A publisher of arrays of records.
    public func observeAll<S: OpenCombine.Scheduler>(
        in reader: any DatabaseReader,
        startImmediately: Bool = true,
        observeOn scheduler: S)
    -> DatabasePublishers.Value<[Base.RowDecoder]>
    {
        base.observationForAll().publisher(in: reader, scheduling: SchedulerOfValues(scheduler), startImmediately: startImmediately)
    }

    /// Returns a publisher of the first record fetched by the request, fetched
    /// initially and after each transaction that changes it.
    ///
    /// For example:
    ///
    /// ```swift
    /// let cancellable = Player.order(Column("score").desc).rx
    ///     .observeFirst(in: dbQueue)
    ///     .sink(receiveCompletion: { _ in }, receiveValue: { (player: Player?) in
    ///         print("Fresh best player: \(String(describing: player))")
    ///     })
    /// ```
    ///
    /// Identical consecutive values are filtered out.
    ///
    /// If `startImmediately` is true (the default), the first value is
    /// published from the current database state, synchronously during
    /// the subscription (at the first demand, which `sink` makes on
    /// subscription) if and only if the subscription happens on the main
    /// queue, on the main thread; otherwise, asynchronously on the main
    /// queue. If `startImmediately` is false, the initial value is fetched
    /// but not published: only a transaction that changes it publishes.
    /// All later values, and the error, are published asynchronously on
    /// the main queue.
    ///
    /// - parameter reader: A database reader.
    /// - parameter startImmediately: Whether the initial value is
    ///   published. The default is true.
    /// - returns: A publisher of optional records.
    public func observeFirst(
        in reader: any DatabaseReader,
        startImmediately: Bool = true)
    -> DatabasePublishers.Value<Base.RowDecoder?>
    {
        base.observationForFirst().publisher(in: reader, scheduling: MainQueueScheduler(), startImmediately: startImmediately)
    }

    /// Returns a publisher of the first record fetched by the request, fetched
    /// initially and after each transaction that changes it, published as
    /// `scheduler` says.
    ///
    /// For example:
    ///
    /// ```swift
    /// let queue = DispatchQueue(label: "players")
    /// let publisher = Player.order(Column("score").desc).rx.observeFirst(in: dbQueue, scheduling: .async(onQueue: queue))
    /// ```
    ///
    /// Identical consecutive values are filtered out.
    ///
    /// - parameter reader: A database reader.
    /// - parameter scheduler: A `ValueObservationScheduler`, such as
    ///   `.async(onQueue:)` or `.immediate`.
    /// - returns: A publisher of optional records.
    public func observeFirst(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler)
    -> DatabasePublishers.Value<Base.RowDecoder?>
    {
        base.observationForFirst().publisher(in: reader, scheduling: scheduler)
    }

    /// Returns a publisher of the first record fetched by the request,
    /// published on `scheduler`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let queue = DispatchQueue(label: "players")
    /// let best = Player.order(Column("score").desc).rx.observeFirst(in: dbQueue, observeOn: queue.ocombine)
    /// ```
    ///
    /// It is RxGRDB 0.18's `observeOn:` argument: all values, the initial
    /// one too, and the error, are published asynchronously on
    /// `scheduler`, even the main queue's. If `startImmediately` is false,
    /// the initial value is fetched but not published. Identical
    /// consecutive values are filtered out.
    ///
    /// - parameter reader: A database reader.
    /// - parameter startImmediately: Whether the initial value is
    ///   published. The default is true.
    /// - parameter scheduler: The OpenCombine scheduler that publishes the
    ///   values and the error.
    /// - returns: A publisher of optional records.
    public func observeFirst<S: OpenCombine.Scheduler>(
        in reader: any DatabaseReader,
        startImmediately: Bool = true,
        observeOn scheduler: S)
    -> DatabasePublishers.Value<Base.RowDecoder?>
    {
        base.observationForFirst().publisher(in: reader, scheduling: SchedulerOfValues(scheduler), startImmediately: startImmediately)
    }
}
extension GRDBReactive where Base: FetchRequest, Base.RowDecoder: DatabaseValueConvertible & Equatable & Sendable {
    /// Returns a publisher of the values fetched by the request, fetched
    /// initially and after each transaction that changes it.
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
    /// If `startImmediately` is true (the default), the first value is
    /// published from the current database state, synchronously during
    /// the subscription (at the first demand, which `sink` makes on
    /// subscription) if and only if the subscription happens on the main
    /// queue, on the main thread; otherwise, asynchronously on the main
    /// queue. If `startImmediately` is false, the initial value is fetched
    /// but not published: only a transaction that changes it publishes.
    /// All later values, and the error, are published asynchronously on
    /// the main queue.
    ///
    /// - parameter reader: A database reader.
    /// - parameter startImmediately: Whether the initial value is
    ///   published. The default is true.
    /// - returns: A publisher of arrays of values.
    public func observeAll(
        in reader: any DatabaseReader,
        startImmediately: Bool = true)
    -> DatabasePublishers.Value<[Base.RowDecoder]>
    {
        base.observationForAll().publisher(in: reader, scheduling: MainQueueScheduler(), startImmediately: startImmediately)
    }

    /// Returns a publisher of the values fetched by the request, fetched
    /// initially and after each transaction that changes it, published as
    /// `scheduler` says.
    ///
    /// For example:
    ///
    /// ```swift
    /// let queue = DispatchQueue(label: "players")
    /// let publisher = Player.select(Column("name"), as: String.self).rx.observeAll(in: dbQueue, scheduling: .async(onQueue: queue))
    /// ```
    ///
    /// Identical consecutive values are filtered out.
    ///
    /// - parameter reader: A database reader.
    /// - parameter scheduler: A `ValueObservationScheduler`, such as
    ///   `.async(onQueue:)` or `.immediate`.
    /// - returns: A publisher of arrays of values.
    public func observeAll(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler)
    -> DatabasePublishers.Value<[Base.RowDecoder]>
    {
        base.observationForAll().publisher(in: reader, scheduling: scheduler)
    }

    /// Returns a publisher of the values fetched by the request, published on
    /// `scheduler`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let queue = DispatchQueue(label: "names")
    /// let names = Player.select(Column("name"), as: String.self).rx.observeAll(in: dbQueue, observeOn: queue.ocombine)
    /// ```
    ///
    /// It is RxGRDB 0.18's `observeOn:` argument: all values, the initial
    /// one too, and the error, are published asynchronously on
    /// `scheduler`, even the main queue's. If `startImmediately` is false,
    /// the initial value is fetched but not published. Identical
    /// consecutive values are filtered out.
    ///
    /// - parameter reader: A database reader.
    /// - parameter startImmediately: Whether the initial value is
    ///   published. The default is true.
    /// - parameter scheduler: The OpenCombine scheduler that publishes the
    ///   values and the error.
    /// - returns: A publisher of arrays of values.
    public func observeAll<S: OpenCombine.Scheduler>(
        in reader: any DatabaseReader,
        startImmediately: Bool = true,
        observeOn scheduler: S)
    -> DatabasePublishers.Value<[Base.RowDecoder]>
    {
        base.observationForAll().publisher(in: reader, scheduling: SchedulerOfValues(scheduler), startImmediately: startImmediately)
    }

    /// Returns a publisher of the first value fetched by the request, fetched
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
    /// If `startImmediately` is true (the default), the first value is
    /// published from the current database state, synchronously during
    /// the subscription (at the first demand, which `sink` makes on
    /// subscription) if and only if the subscription happens on the main
    /// queue, on the main thread; otherwise, asynchronously on the main
    /// queue. If `startImmediately` is false, the initial value is fetched
    /// but not published: only a transaction that changes it publishes.
    /// All later values, and the error, are published asynchronously on
    /// the main queue.
    ///
    /// - parameter reader: A database reader.
    /// - parameter startImmediately: Whether the initial value is
    ///   published. The default is true.
    /// - returns: A publisher of optional values.
    public func observeFirst(
        in reader: any DatabaseReader,
        startImmediately: Bool = true)
    -> DatabasePublishers.Value<Base.RowDecoder?>
    {
        base.observationForFirst().publisher(in: reader, scheduling: MainQueueScheduler(), startImmediately: startImmediately)
    }

    /// Returns a publisher of the first value fetched by the request, fetched
    /// initially and after each transaction that changes it, published as
    /// `scheduler` says.
    ///
    /// For example:
    ///
    /// ```swift
    /// let queue = DispatchQueue(label: "players")
    /// let publisher = SQLRequest<Int>(sql: "SELECT MAX(score) FROM player").rx.observeFirst(in: dbQueue, scheduling: .async(onQueue: queue))
    /// ```
    ///
    /// Identical consecutive values are filtered out.
    ///
    /// - parameter reader: A database reader.
    /// - parameter scheduler: A `ValueObservationScheduler`, such as
    ///   `.async(onQueue:)` or `.immediate`.
    /// - returns: A publisher of optional values.
    public func observeFirst(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler)
    -> DatabasePublishers.Value<Base.RowDecoder?>
    {
        base.observationForFirst().publisher(in: reader, scheduling: scheduler)
    }

    /// Returns a publisher of the first value fetched by the request, published
    /// on `scheduler`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let queue = DispatchQueue(label: "scores")
    /// let maxScore = SQLRequest<Int>(sql: "SELECT MAX(score) FROM player").rx.observeFirst(in: dbQueue, observeOn: queue.ocombine)
    /// ```
    ///
    /// It is RxGRDB 0.18's `observeOn:` argument: all values, the initial
    /// one too, and the error, are published asynchronously on
    /// `scheduler`, even the main queue's. If `startImmediately` is false,
    /// the initial value is fetched but not published. Identical
    /// consecutive values are filtered out.
    ///
    /// - parameter reader: A database reader.
    /// - parameter startImmediately: Whether the initial value is
    ///   published. The default is true.
    /// - parameter scheduler: The OpenCombine scheduler that publishes the
    ///   values and the error.
    /// - returns: A publisher of optional values.
    public func observeFirst<S: OpenCombine.Scheduler>(
        in reader: any DatabaseReader,
        startImmediately: Bool = true,
        observeOn scheduler: S)
    -> DatabasePublishers.Value<Base.RowDecoder?>
    {
        base.observationForFirst().publisher(in: reader, scheduling: SchedulerOfValues(scheduler), startImmediately: startImmediately)
    }
}

/// A `ValueObservationScheduler` that publishes values on an OpenCombine
/// scheduler, as RxGRDB 0.18's `observeOn:` argument did with an RxSwift
/// scheduler.
// @unchecked Sendable: OpenCombine schedulers are called from any thread by
// contract (operators such as `receive(on:)` do), and the dispatch and run
// loop schedulers wrap thread-safe queues.
struct SchedulerOfValues<S: OpenCombine.Scheduler>: ValueObservationScheduler, @unchecked Sendable {
    let scheduler: S

    init(_ scheduler: S) {
        self.scheduler = scheduler
    }

    func immediateInitialValue() -> Bool { false }

    func schedule(_ action: @escaping @Sendable () -> Void) {
        scheduler.schedule(action)
    }
}
