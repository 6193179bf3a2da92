import GRDB

extension Database: RowReading {
    /// Runs a cached statement: see `RowReading.forEachRow(_:arguments:shownColumns:_:)`.
    /// The shown values are read as stored (`DatabaseValue.stored`).
    package func forEachRow(
        _ sql: String, arguments: [DatabaseValue], shownColumns: Int,
        _ body: (_ shown: [DatabaseValue], _ values: [DatabaseValue]) throws -> Void) throws
    {
        let statement = try cachedStatement(sql: sql)
        let cursor = try Row.fetchCursor(statement, arguments: StatementArguments(arguments))
        while let row = try cursor.next() {
            let values = Array(row.databaseValues)
            try body((0..<shownColumns).map { DatabaseValue.stored(statement, column: $0) }, values)
        }
    }

    /// Runs a cached statement: see `RowReading.fetchInt(_:arguments:)`.
    package func fetchInt(_ sql: String, arguments: [DatabaseValue]) throws -> Int? {
        try Int.fetchOne(cachedStatement(sql: sql), arguments: StatementArguments(arguments))
    }
}
