import CSQLite
import Foundation
import GRDB

// MARK: - The export's SQLite loop

extension RowExport {
    /// Writes every row of `source` to `write`: a table or view in its
    /// identity order (rowid, primary key, or all columns), a query in its
    /// own order.
    ///
    /// When the order is an index search, each page of rows is its own
    /// short read, so that an export of millions of rows never keeps a
    /// writer waiting for longer than one page (the export then sees each
    /// row once, as of the moment its page was read). When the order costs
    /// a scan (a view), and for a query, the rows are read in one read, so
    /// that the scan runs once.
    ///
    /// - parameter database: The database.
    /// - parameter source: The table, view or query.
    /// - parameter format: The format.
    /// - parameter pageSize: The number of rows per read.
    /// Text is written whole, NUL bytes included; a byte that is not UTF-8
    /// is written as U+FFFD (every format is UTF-8 text), and the summary
    /// counts the values that held one, for the command to say so.
    ///
    /// - parameter write: Called with consecutive pieces of the output: the
    ///   header, then the rows of each page (a page of large values in
    ///   several pieces of about `bufferSize` bytes), then the footer. The
    ///   bytes are valid only during the call.
    /// - returns: What was written.
    @discardableResult
    package static func export(
        _ database: SQLiteDataSource, _ source: RowSource, format: ExportFormat,
        pageSize: Int = pageSize, write: (UnsafeRawBufferPointer) throws -> Void) throws -> Summary
    {
        try export(database, ExportPlan(source: source), format: format, ticket: ReadTicket(), pageSize: pageSize) { bytes, _ in
            try write(bytes)
        }
    }

    /// As `export(_:_:format:pageSize:write:)`, for a plan's order and
    /// columns; `write` also takes the number of rows written so far. An
    /// abandoned ticket interrupts the read, and the export throws.
    @discardableResult
    package static func export(
        _ database: SQLiteDataSource, _ plan: ExportPlan, format: ExportFormat, ticket: ReadTicket,
        pageSize: Int = pageSize, write: (UnsafeRawBufferPointer, Int) throws -> Void) throws -> Summary
    {
        try withoutActuallyEscaping(write) { write in
            var output = ExportOutput(ticket: ticket, write: write)
            return try export(database, plan, format: format, pageSize: pageSize, into: &output)
        }
    }

    private static func export(
        _ database: SQLiteDataSource, _ plan: ExportPlan, format: ExportFormat, pageSize: Int,
        into output: inout ExportOutput) throws -> Summary
    {
        let source = plan.source
        let ordering = try plan.ordering ?? RowOrdering(source)
        var encoder = RowEncoder(format: format, columnNames: plan.columnNames)
        try output.flush(encoder.header().utf8, rows: 0)
        let pageSize = max(1, pageSize)
        let ticket = output.ticket

        if try source.isQuery || !ordering.isUnique
            || database.read(background: true, ticket: ticket, { db in try ordering.cost(of: source, in: db) }) == .scan
        {
            // A query in its own order, unless sorted or filtered.
            let ownOrder = source.isQuery && plan.ordering == nil
            let sql = ownOrder && source.filter == nil ? source.querySQL : nil
            let statementSQL = sql ?? source.selectSQL(
                where: nil, orderBy: ownOrder ? nil : ordering.orderBy(forward: true), limit: false)
            try database.read(background: true, ticket: ticket) { db in
                let statement = try db.makeStatement(sql: statementSQL)
                _ = try encodeRows(of: statement, arguments: [], limit: nil, columns: plan.columns,
                                   keyIndices: [], encoder: &encoder, output: &output)
            }
            try output.flush(rows: encoder.recordCount)
        } else {
            // The key columns that are not columns of the source are
            // selected after them, to page from the last row.
            let columnCount = source.columnExpressions.count
            var extra: [String] = []
            let keyIndices = ordering.keyColumns.map { column -> Int in
                if let index = source.columnExpressions.firstIndex(of: column.expression) { return index }
                extra.append(column.expression)
                return columnCount + extra.count - 1
            }
            var lastKey: [DatabaseValue]?
            var isDone = false
            while !isDone {
                try database.read(background: true, ticket: ticket) { db in
                    var remaining = pageSize
                    for range in lastKey.map(ordering.after) ?? ordering.all(forward: true) where remaining > 0 {
                        let statement = try db.cachedStatement(sql: source.selectSQL(
                            extra: extra, indexedBy: ordering.indexName, where: range.condition,
                            orderBy: ordering.orderBy(forward: true), limit: true))
                        let arguments = StatementArguments(range.arguments + [Int64(remaining).databaseValue])
                        let (count, key) = try encodeRows(
                            of: statement, arguments: arguments, limit: remaining, columns: plan.columns,
                            keyIndices: keyIndices, encoder: &encoder, output: &output)
                        remaining -= count
                        if let key { lastKey = key }
                    }
                    // A short page is the last one.
                    isDone = remaining > 0
                }
                // Out of the read: a writer waits for no output.
                try output.flush(rows: encoder.recordCount)
            }
        }
        try output.flush(encoder.footer().utf8, rows: encoder.recordCount)
        return Summary(rowCount: encoder.recordCount, invalidTextCount: encoder.invalidTextCount)
    }

    /// Encodes the rows of `statement` (its `columns`, `limit` rows at most) into `output`; returns their number and, when
    /// they reach the limit, the key (the values at `keyIndices`) of the
    /// last one: where the next page starts.
    private static func encodeRows(
        of statement: Statement, arguments: StatementArguments, limit: Int?, columns: [Int], keyIndices: [Int],
        encoder: inout RowEncoder, output: inout ExportOutput) throws -> (Int, [DatabaseValue]?)
    {
        let cursor = try Row.fetchCursor(statement, arguments: arguments)
        let sqliteStatement = statement.sqliteStatement
        var count = 0
        var key: [DatabaseValue]?
        // The cursor steps the statement; its columns are read in place.
        while try cursor.next() != nil {
            encoder.beginRecord(into: &output.bytes)
            for (position, column) in columns.enumerated() {
                StoredValue.read(sqliteStatement, column) { value in
                    encoder.appendField(value, column: position, into: &output.bytes)
                }
            }
            encoder.endRecord(into: &output.bytes)
            count += 1
            if count == limit, !keyIndices.isEmpty {
                // The last row of the page: its key only, not every row's.
                key = keyIndices.map { DatabaseValue(sqliteStatement: sqliteStatement, index: CInt($0)) }
            }
            if output.bytes.count >= RowExport.bufferSize {
                try output.flush(rows: encoder.recordCount)
            }
        }
        return (count, key)
    }
}

extension StoredValue {
    /// Calls `body` with column `column` of the current row of `statement`.
    static func read(_ statement: SQLiteStatement, _ column: Int, _ body: (StoredValue) -> Void) {
        let index = CInt(column)
        switch sqlite3_column_type(statement, index) {
        case SQLITE_NULL:
            body(.null)
        case SQLITE_INTEGER:
            body(.integer(sqlite3_column_int64(statement, index)))
        case SQLITE_FLOAT:
            body(.real(sqlite3_column_double(statement, index)))
        case SQLITE_TEXT:
            let start = sqlite3_column_text(statement, index)
            body(.text(UnsafeRawBufferPointer(start: start, count: Int(sqlite3_column_bytes(statement, index)))))
        default:
            let start = sqlite3_column_blob(statement, index)
            body(.blob(UnsafeRawBufferPointer(start: start, count: Int(sqlite3_column_bytes(statement, index)))))
        }
    }
}
