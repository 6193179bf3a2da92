import Foundation
import GRDB
import PostgresClient

/// A PostgreSQL connection as the window engine reads it (`RowReading`):
/// each statement runs with its arguments as text parameters, and each
/// value comes back as PostgreSQL prints it, converted by its column's
/// type (`PostgresValues`).
///
/// For example:
///
/// ```swift
/// let reader = PostgresReader(connection)
/// let window = try RowWindow.fetch(reader, source, request)
/// ```
struct PostgresReader: RowReading {
    /// The connection, used by one read at a time (`PostgresReadSession`).
    let connection: PostgresConnection
    /// Where the shown columns of each statement are noted, when given:
    /// the names and types the result describes, for the schema check
    /// (`PostgresSchemaChecks`).
    let shownColumns: PostgresShownColumns?
    /// Seconds to wait for each answer of the server on our side, nil for
    /// as long as the connection lasts (`PostgresReadSession.answerTimeout`):
    /// pass it to any statement run on `connection` directly.
    let answerTimeout: TimeInterval?

    init(
        _ connection: PostgresConnection, noting shownColumns: PostgresShownColumns? = nil,
        answerTimeout: TimeInterval? = nil)
    {
        self.connection = connection
        self.shownColumns = shownColumns
        self.answerTimeout = answerTimeout
    }

    /// The same reader, noting the shown columns of each statement in
    /// `shownColumns`.
    func noting(_ shownColumns: PostgresShownColumns) -> PostgresReader {
        PostgresReader(connection, noting: shownColumns, answerTimeout: answerTimeout)
    }

    /// Runs `sql`: see `RowReading.forEachRow(_:arguments:shownColumns:_:)`.
    /// The values shown are the values bound back: PostgreSQL's text
    /// output, or a number for the integer types.
    func forEachRow(
        _ sql: String, arguments: [DatabaseValue], shownColumns: Int,
        _ body: (_ shown: [DatabaseValue], _ values: [DatabaseValue]) throws -> Void) throws
    {
        let result = try connection.execute(sql, arguments.map(PostgresValues.parameter), timeout: answerTimeout)
        let types = result.columns.map(\.typeOID)
        if shownColumns > 0 {
            self.shownColumns?.seen.insert(Array(result.columns.prefix(shownColumns)))
        }
        for row in result.rows {
            let values = zip(row, types).map { PostgresValues.value($0, type: $1) }
            try body(Array(values.prefix(shownColumns)), values)
        }
    }

    /// Runs `sql`: see `RowReading.fetchInt(_:arguments:)`. A value that is
    /// not an integer reads as nil.
    func fetchInt(_ sql: String, arguments: [DatabaseValue]) throws -> Int? {
        let result = try connection.execute(sql, arguments.map(PostgresValues.parameter), timeout: answerTimeout)
        guard let first = result.rows.first, let text = first.first ?? nil else { return nil }
        return Int(text)
    }

    /// The whole result of `sql`, for the catalog's reads.
    func execute(_ sql: String, _ parameters: [String?] = []) throws -> PostgresResult {
        try connection.execute(sql, parameters, timeout: answerTimeout)
    }
}

/// PostgreSQL's values as the engine holds them (`DatabaseValue`), and
/// back as text parameters.
///
/// A value read is bound back as a key of a later statement, and must
/// find its row again: so it is kept as PostgreSQL printed it (its text
/// output, which its input function reads back to the same value:
/// numeric and float digits, timestamps in the session's time zone, `\x`
/// bytea, arrays, JSON), but for the integer types (`.int64`).
///
/// For example:
///
/// ```swift
/// PostgresValues.value("42", type: 23)        // .int64(42)       (int4)
/// PostgresValues.value("12.50", type: 1700)   // .string("12.50") (numeric)
/// PostgresValues.parameter(.null)             // nil: NULL
/// ```
enum PostgresValues {
    /// `pg_type` OIDs of the integer types: int8, int2, int4, oid.
    static let integerTypes: Set<UInt32> = [20, 21, 23, 26]

    /// The value of a column of type `type` that PostgreSQL printed as
    /// `text` (nil: NULL). Untrusted: text that does not parse stays text.
    static func value(_ text: String?, type: UInt32) -> DatabaseValue {
        guard let text else { return .null }
        if integerTypes.contains(type), let integer = Int64(text) {
            return integer.databaseValue
        }
        // Floats stay text too: shown as the server prints them (`1`, as
        // psql does, not Swift's `1.0`), bound back exactly (`extra_float_digits`).
        return text.databaseValue
    }

    /// `value` as a text parameter: nil for NULL, the digits of a number,
    /// the text itself, a BLOB as `\x` and hexadecimal digits (bytea's
    /// input).
    static func parameter(_ value: DatabaseValue) -> String? {
        switch value.storage {
        case .null: return nil
        case let .int64(integer): return String(integer)
        case let .double(double): return double.isFinite ? "\(double)" : (double.isNaN ? "NaN" : (double < 0 ? "-Infinity" : "Infinity"))
        case let .string(text): return text
        case let .blob(data): return "\\x" + data.map { String(format: "%02x", $0) }.joined()
        }
    }
}
