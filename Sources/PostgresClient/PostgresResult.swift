import CLibPQ

/// A column of a result: its name and the OID of its type in `pg_type`.
package struct PostgresColumn: Sendable, Equatable, Hashable {
    package var name: String
    /// The OID of the column's type (`pg_type.oid`): 23 for `int4`, 25 for `text`…
    package var typeOID: UInt32

    package init(name: String, typeOID: UInt32) {
        self.name = name
        self.typeOID = typeOID
    }
}

/// The whole result of a statement: its columns, and its rows as
/// PostgreSQL prints them (text), NULL as nil.
package struct PostgresResult: Sendable, Equatable {
    /// The columns; empty for a statement that returns no rows (`UPDATE`).
    package var columns: [PostgresColumn]
    package var rows: [[String?]]
    /// The command tag the server sent (`"SELECT 3"`); empty for an empty statement.
    package var commandTag: String
    /// The rows an `INSERT`, `UPDATE`, `DELETE`, `MERGE`, `SELECT`, `MOVE`,
    /// `FETCH` or `COPY` touched; nil for other commands.
    package var affectedRows: Int?

    package init(columns: [PostgresColumn], rows: [[String?]], commandTag: String, affectedRows: Int?) {
        self.columns = columns
        self.rows = rows
        self.commandTag = commandTag
        self.affectedRows = affectedRows
    }

    init(_ result: OpaquePointer) {
        columns = describeColumns(of: result)
        let rowCount = Int(PQntuples(result))
        let columnCount = columns.count
        rows = (0..<rowCount).map { row in
            let view = PostgresRow(result: result, index: Int32(row))
            return (0..<columnCount).map { view.string(column: $0) }
        }
        commandTag = PQcmdStatus(result).map { String(cString: $0) } ?? ""
        affectedRows = PQcmdTuples(result).flatMap { Int(String(cString: $0)) }
    }
}

/// One row of a streamed result (``PostgresConnection/forEachRow(_:_:timeout:columns:_:)``),
/// read in place: its values stay in libpq's memory, so that an export can
/// copy their bytes without making a `String` of each.
package struct PostgresRow {
    private let result: OpaquePointer
    private let index: Int32

    init(result: OpaquePointer, index: Int32) {
        self.result = result
        self.index = index
    }

    package var count: Int { Int(PQnfields(result)) }

    /// Whether the value of `column` (0-based) is NULL. A column out of
    /// range reads as NULL.
    package func isNull(column: Int) -> Bool {
        guard (0..<count).contains(column) else { return true }
        return PQgetisnull(result, index, Int32(column)) != 0
    }

    /// Calls `body` with the UTF-8 bytes of the value of `column`, as PostgreSQL prints it; empty for
    /// NULL and a column out of range. The bytes are valid only during `body`.
    package func withBytes<T>(column: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        guard !isNull(column: column), let value = PQgetvalue(result, index, Int32(column)) else {
            return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        let length = Int(PQgetlength(result, index, Int32(column)))
        return try body(UnsafeRawBufferPointer(start: value, count: length))
    }

    /// The value of `column` as text; nil for NULL. Bytes that are not UTF-8 are replaced with U+FFFD.
    package func string(column: Int) -> String? {
        if isNull(column: column) { return nil }
        return withBytes(column: column) { String(decoding: $0, as: UTF8.self) }
    }

    package var values: [String?] {
        (0..<count).map { string(column: $0) }
    }
}

func describeColumns(of result: OpaquePointer) -> [PostgresColumn] {
    (0..<PQnfields(result)).map { column in
        PostgresColumn(
            name: PQfname(result, column).map { String(cString: $0) } ?? "",
            typeOID: UInt32(PQftype(result, column)))
    }
}
