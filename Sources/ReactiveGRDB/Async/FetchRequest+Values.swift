import GRDB

// The async forms of the request conveniences: the values of
// `rx.observeAll(in:)`, `rx.observeFirst(in:)` and `rx.observeCount(in:)`,
// identical consecutive values filtered out, as an asynchronous sequence.

extension GRDBReactive where Base: FetchRequest {
    /// Returns an asynchronous sequence of the number of results of the
    /// request, fetched initially and after each transaction that changes
    /// it.
    ///
    /// For example:
    ///
    /// ```swift
    /// for try await count in Player.all().rx.valuesOfCount(in: dbQueue).includingOtherProcesses() {
    ///     print("\(count) players")
    /// }
    /// ```
    ///
    /// It produces the values of `rx.observeCount(in:scheduling:)`, with
    /// the guarantees of `DatabaseValues`.
    ///
    /// - parameter reader: A database reader.
    /// - parameter bufferingPolicy: Which values the sequence keeps while
    ///   the consumer is busy: by default, the newest one.
    /// - returns: An asynchronous sequence of counts.
    public func valuesOfCount(
        in reader: any DatabaseReader,
        bufferingPolicy: DatabaseValues<Int>.BufferingPolicy = .bufferingNewest(1))
    -> DatabaseValues<Int>
    {
        let request = UncheckedValuesRequest(self)
        return DatabaseValues(bufferingPolicy: bufferingPolicy) { scheduler, commits in
            let publisher = request.rx.observeCount(in: reader, scheduling: scheduler)
            return commits.map { publisher.includingOtherProcesses($0) } ?? publisher
        }
    }
}

extension GRDBReactive where Base: FetchRequest, Base.RowDecoder: FetchableRecord & Sendable {
    /// Returns an asynchronous sequence of the records fetched by the
    /// request, initially and after each transaction that changes them.
    ///
    /// For example:
    ///
    /// ```swift
    /// for try await players in Player.all().rx.valuesOfAll(in: dbQueue).includingOtherProcesses() {
    ///     print("Fresh players: \(players)")
    /// }
    /// ```
    ///
    /// It produces the values of `rx.observeAll(in:scheduling:)`, with the
    /// guarantees of `DatabaseValues`.
    ///
    /// - parameter reader: A database reader.
    /// - parameter bufferingPolicy: Which values the sequence keeps while
    ///   the consumer is busy: by default, the newest one.
    /// - returns: An asynchronous sequence of arrays of records.
    public func valuesOfAll(
        in reader: any DatabaseReader,
        bufferingPolicy: DatabaseValues<[Base.RowDecoder]>.BufferingPolicy = .bufferingNewest(1))
    -> DatabaseValues<[Base.RowDecoder]>
    {
        let request = UncheckedValuesRequest(self)
        return DatabaseValues(bufferingPolicy: bufferingPolicy) { scheduler, commits in
            let publisher = request.rx.observeAll(in: reader, scheduling: scheduler)
            return commits.map { publisher.includingOtherProcesses($0) } ?? publisher
        }
    }

    /// Returns an asynchronous sequence of the first record fetched by the
    /// request, initially and after each transaction that changes it.
    ///
    /// For example:
    ///
    /// ```swift
    /// let best = Player.order(Column("score").desc).rx.valuesOfFirst(in: dbQueue)
    /// for try await player in best.includingOtherProcesses() {
    ///     print("Best player: \(String(describing: player))")
    /// }
    /// ```
    ///
    /// It produces the values of `rx.observeFirst(in:scheduling:)`, with
    /// the guarantees of `DatabaseValues`.
    ///
    /// - parameter reader: A database reader.
    /// - parameter bufferingPolicy: Which values the sequence keeps while
    ///   the consumer is busy: by default, the newest one.
    /// - returns: An asynchronous sequence of optional records.
    public func valuesOfFirst(
        in reader: any DatabaseReader,
        bufferingPolicy: DatabaseValues<Base.RowDecoder?>.BufferingPolicy = .bufferingNewest(1))
    -> DatabaseValues<Base.RowDecoder?>
    {
        let request = UncheckedValuesRequest(self)
        return DatabaseValues(bufferingPolicy: bufferingPolicy) { scheduler, commits in
            let publisher = request.rx.observeFirst(in: reader, scheduling: scheduler)
            return commits.map { publisher.includingOtherProcesses($0) } ?? publisher
        }
    }
}

extension GRDBReactive where Base: FetchRequest, Base.RowDecoder: DatabaseValueConvertible & Equatable & Sendable {
    /// Returns an asynchronous sequence of the values fetched by the
    /// request, initially and after each transaction that changes them.
    ///
    /// For example:
    ///
    /// ```swift
    /// let names = Player.select(Column("name"), as: String.self)
    /// for try await names in names.rx.valuesOfAll(in: dbQueue) {
    ///     print(names)
    /// }
    /// ```
    ///
    /// It produces the values of `rx.observeAll(in:scheduling:)`, with the
    /// guarantees of `DatabaseValues`.
    ///
    /// - parameter reader: A database reader.
    /// - parameter bufferingPolicy: Which values the sequence keeps while
    ///   the consumer is busy: by default, the newest one.
    /// - returns: An asynchronous sequence of arrays of values.
    public func valuesOfAll(
        in reader: any DatabaseReader,
        bufferingPolicy: DatabaseValues<[Base.RowDecoder]>.BufferingPolicy = .bufferingNewest(1))
    -> DatabaseValues<[Base.RowDecoder]>
    {
        let request = UncheckedValuesRequest(self)
        return DatabaseValues(bufferingPolicy: bufferingPolicy) { scheduler, commits in
            let publisher = request.rx.observeAll(in: reader, scheduling: scheduler)
            return commits.map { publisher.includingOtherProcesses($0) } ?? publisher
        }
    }

    /// Returns an asynchronous sequence of the first value fetched by the
    /// request, initially and after each transaction that changes it.
    ///
    /// For example:
    ///
    /// ```swift
    /// let maxScore = SQLRequest<Int>(sql: "SELECT MAX(score) FROM player")
    /// for try await score in maxScore.rx.valuesOfFirst(in: dbQueue) {
    ///     print("Best score: \(String(describing: score))")
    /// }
    /// ```
    ///
    /// It produces the values of `rx.observeFirst(in:scheduling:)`, with
    /// the guarantees of `DatabaseValues`.
    ///
    /// - parameter reader: A database reader.
    /// - parameter bufferingPolicy: Which values the sequence keeps while
    ///   the consumer is busy: by default, the newest one.
    /// - returns: An asynchronous sequence of optional values.
    public func valuesOfFirst(
        in reader: any DatabaseReader,
        bufferingPolicy: DatabaseValues<Base.RowDecoder?>.BufferingPolicy = .bufferingNewest(1))
    -> DatabaseValues<Base.RowDecoder?>
    {
        let request = UncheckedValuesRequest(self)
        return DatabaseValues(bufferingPolicy: bufferingPolicy) { scheduler, commits in
            let publisher = request.rx.observeFirst(in: reader, scheduling: scheduler)
            return commits.map { publisher.includingOtherProcesses($0) } ?? publisher
        }
    }
}

/// Carries a request's `rx` namespace into the sequence's `@Sendable`
/// closure.
// @unchecked Sendable: GRDB requests are immutable values that only hold
// SQL, arguments and adapters (see `UncheckedRequest`).
private struct UncheckedValuesRequest<Request>: @unchecked Sendable {
    let rx: GRDBReactive<Request>
    init(_ rx: GRDBReactive<Request>) { self.rx = rx }
}
