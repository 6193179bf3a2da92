import GRDB

// GRDBCombine's request observations. Records are compared through their
// fetched rows, so that a record type need not be Equatable for its
// duplicates to be filtered out, as GRDB 4 compared them. Observed values
// must be Sendable, as in GRDB 7: records and values are, raw `Row` values
// are not (observe a record type instead).

extension FetchRequest {
    /// Returns an observation of the number of results of the request.
    ///
    /// For example:
    ///
    /// ```swift
    /// let publisher = Player.all().observationForCount().publisher(in: dbQueue) // publisher of Int
    /// ```
    ///
    /// Its publisher filters out identical consecutive values.
    ///
    /// - returns: A `RequestObservation` of counts.
    public func observationForCount() -> RequestObservation<Int> {
        let request = UncheckedRequest(self)
        return RequestObservation(fetchValue: { db in try request.base.fetchCount(db) })
    }
}

extension FetchRequest where RowDecoder: FetchableRecord & Sendable {
    /// Returns an observation of the records fetched by the request.
    ///
    /// For example:
    ///
    /// ```swift
    /// let publisher = Player.order(Column("name")).observationForAll().publisher(in: dbQueue) // publisher of [Player]
    /// ```
    ///
    /// Its publisher filters out identical consecutive values, by comparing
    /// the fetched rows: the record type need not be `Equatable`.
    ///
    /// - returns: A `RequestObservation` of arrays of records.
    public func observationForAll() -> RequestObservation<[RowDecoder]> {
        let request = UncheckedRequest(self)
        return RequestObservation { db in
            let rows = try Row.fetchAll(db, request.base)
            return try FetchedValue(value: rows.map { try RowDecoder(row: $0) }, key: rows)
        }
    }

    /// Returns an observation of the first record fetched by the request.
    ///
    /// For example:
    ///
    /// ```swift
    /// let publisher = Player.filter(key: 1).observationForFirst().publisher(in: dbQueue) // publisher of Player?
    /// ```
    ///
    /// Its publisher filters out identical consecutive values, by comparing
    /// the fetched rows: the record type need not be `Equatable`.
    ///
    /// - returns: A `RequestObservation` of optional records.
    public func observationForFirst() -> RequestObservation<RowDecoder?> {
        let request = UncheckedRequest(self)
        return RequestObservation { db in
            let row = try Row.fetchOne(db, request.base)
            return try FetchedValue(value: row.map { try RowDecoder(row: $0) }, key: row.map { [$0] } ?? [])
        }
    }
}

extension FetchRequest where RowDecoder: DatabaseValueConvertible & Equatable & Sendable {
    /// Returns an observation of the values fetched by the request.
    ///
    /// For example:
    ///
    /// ```swift
    /// let request = Player.select(Column("name"), as: String.self)
    /// let publisher = request.observationForAll().publisher(in: dbQueue) // publisher of [String]
    /// ```
    ///
    /// Its publisher filters out identical consecutive values.
    ///
    /// - returns: A `RequestObservation` of arrays of values.
    public func observationForAll() -> RequestObservation<[RowDecoder]> {
        let request = UncheckedRequest(self)
        return RequestObservation(fetchValue: { db in try RowDecoder.fetchAll(db, request.base) })
    }

    /// Returns an observation of the first value fetched by the request.
    ///
    /// For example:
    ///
    /// ```swift
    /// let request = SQLRequest<Int>(sql: "SELECT MAX(score) FROM player")
    /// let publisher = request.observationForFirst().publisher(in: dbQueue) // publisher of Int?
    /// ```
    ///
    /// The value is nil when the request yields no row, or a NULL value. Its
    /// publisher filters out identical consecutive values.
    ///
    /// - returns: A `RequestObservation` of optional values.
    public func observationForFirst() -> RequestObservation<RowDecoder?> {
        let request = UncheckedRequest(self)
        return RequestObservation(fetchValue: { db in try RowDecoder.fetchOne(db, request.base) })
    }
}

extension TableRecord where Self: FetchableRecord & Sendable {
    /// Returns an observation of all the records of the table.
    ///
    /// For example:
    ///
    /// ```swift
    /// let publisher = Player.observationForAll().publisher(in: dbQueue) // publisher of [Player]
    /// ```
    ///
    /// It is `Self.all().observationForAll()`.
    ///
    /// - returns: A `RequestObservation` of arrays of records.
    public static func observationForAll() -> RequestObservation<[Self]> {
        all().observationForAll()
    }

    /// Returns an observation of the first record of the table.
    ///
    /// For example:
    ///
    /// ```swift
    /// let publisher = Player.observationForFirst().publisher(in: dbQueue) // publisher of Player?
    /// ```
    ///
    /// It is `Self.all().observationForFirst()`.
    ///
    /// - returns: A `RequestObservation` of optional records.
    public static func observationForFirst() -> RequestObservation<Self?> {
        all().observationForFirst()
    }
}

extension TableRecord {
    /// Returns an observation of the number of records in the table.
    ///
    /// For example:
    ///
    /// ```swift
    /// let publisher = Player.observationForCount().publisher(in: dbQueue) // publisher of Int
    /// ```
    ///
    /// It is `Self.all().observationForCount()`.
    ///
    /// - returns: A `RequestObservation` of counts.
    public static func observationForCount() -> RequestObservation<Int> {
        all().observationForCount()
    }
}

/// Carries a request into the observation's `@Sendable` fetch closure.
// @unchecked Sendable: GRDB requests are immutable values; the request types
// that do not declare Sendable (such as `SQLRequest` with a non-Sendable
// decoder type) only hold SQL, arguments and adapters.
struct UncheckedRequest<Request>: @unchecked Sendable {
    let base: Request
    init(_ base: Request) { self.base = base }
}
