import GRDB

/// What the window engine needs from a database connection: run one of its
/// statements with arguments and step through the rows. `RowWindow`,
/// `RowOrdering`'s counts and `currentPosition`, `RowSearch`,
/// `RowSource.exactRowCount(_:)` and `RowIdentityLookup` read through it,
/// writing their SQL in the dialect of their `RowSource` (`SQLDialect`).
///
/// GRDB's `Database` conforms, with the connection's cached statements
/// (compiling a window's statements would cost more than running them).
/// Another database conforms with its own connection, converting its
/// values to `DatabaseValue`s (PostgreSQL's text values to `.string`,
/// `.int64`, `.double` or NULL).
///
/// What a second database must provide by its own means, since it is
/// SQLite's alone: validating a query or a filter (`RowSource.query(_:in:)`,
/// `filtered(_:in:)`), the schema and its version (`TableSchema`,
/// `RowSource.schemaVersion(_:)`, `reloaded(_:)`), the cost of an ordering
/// (`RowOrdering.cost(of:in:)`, from `EXPLAIN QUERY PLAN`), quick and
/// chunked counts (`quickRowCount(_:limit:)`, `countRows(in:chunk:)`), and
/// the authorizer (`SourceAuthorizer`).
///
/// For example:
///
/// ```swift
/// let window = try database.read { db in     // db: Database, a RowReading
///     try RowWindow.fetch(db, source, request)
/// }
/// ```
public protocol RowReading {
    /// Runs `sql` with `arguments` (one per placeholder, in order) and
    /// calls `body` with each row, in order.
    ///
    /// - parameter shownColumns: The number of leading columns to give as
    ///   the screen shows them.
    /// - parameter body: Called with each row: `shown`, its first
    ///   `shownColumns` values as the screen shows them (SQLite: as stored,
    ///   a NUL or invalid UTF-8 kept; see `DatabaseValue.stored`), and
    ///   `values`, all its values as they are bound back as arguments
    ///   (keys of a later statement).
    func forEachRow(
        _ sql: String, arguments: [DatabaseValue], shownColumns: Int,
        _ body: (_ shown: [DatabaseValue], _ values: [DatabaseValue]) throws -> Void) throws

    /// The integer in the first column of the first row of `sql` (a count),
    /// nil when there is no row or it is NULL.
    func fetchInt(_ sql: String, arguments: [DatabaseValue]) throws -> Int?
}

extension RowReading {
    /// The values of the first row of `sql`, as bound back; nil when there
    /// is none. The statement should end with `LIMIT 1`: every row is read.
    func firstRowValues(_ sql: String, arguments: [DatabaseValue]) throws -> [DatabaseValue]? {
        var first: [DatabaseValue]?
        try forEachRow(sql, arguments: arguments, shownColumns: 0) { _, values in
            if first == nil { first = values }
        }
        return first
    }
}
