import GRDB

/// What the window engine needs from a connection, each engine type writing
/// its SQL in its source's dialect. GRDB's `Database` conforms with cached
/// statements (compiling a window's statements would cost more than running
/// them); PostgreSQL converts its text values to `DatabaseValue`s.
package protocol RowReading {
    /// `shown`: the first `shownColumns` values as the screen shows them
    /// (SQLite: as stored, a NUL or invalid UTF-8 kept); `values`: all of
    /// them as they bind back as arguments (keys of a later statement).
    func forEachRow(
        _ sql: String, arguments: [DatabaseValue], shownColumns: Int,
        _ body: (_ shown: [DatabaseValue], _ values: [DatabaseValue]) throws -> Void) throws

    /// Nil when there is no row or it is NULL.
    func fetchInt(_ sql: String, arguments: [DatabaseValue]) throws -> Int?
}

extension RowReading {
    /// The statement should end with `LIMIT 1`: every row is read.
    func firstRowValues(_ sql: String, arguments: [DatabaseValue]) throws -> [DatabaseValue]? {
        var first: [DatabaseValue]?
        try forEachRow(sql, arguments: arguments, shownColumns: 0) { _, values in
            if first == nil { first = values }
        }
        return first
    }
}
