import Foundation
import GRDB
import PostgresClient

/// A PostgreSQL connection as the window engine reads it: arguments as text
/// parameters, values as PostgreSQL prints them.
struct PostgresReader: RowReading {
    let connection: PostgresConnection
    /// The names and types each result describes, for the schema check.
    let shownColumns: PostgresShownColumns?
    /// nil: as long as the connection lasts. Pass it to any statement run on
    /// `connection` directly.
    let answerTimeout: TimeInterval?

    init(
        _ connection: PostgresConnection, noting shownColumns: PostgresShownColumns? = nil,
        answerTimeout: TimeInterval? = nil)
    {
        self.connection = connection
        self.shownColumns = shownColumns
        self.answerTimeout = answerTimeout
    }

    func noting(_ shownColumns: PostgresShownColumns) -> PostgresReader {
        PostgresReader(connection, noting: shownColumns, answerTimeout: answerTimeout)
    }

    /// The values shown are those bound back: the server's text, or a number
    /// for the integer types.
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

    func fetchInt(_ sql: String, arguments: [DatabaseValue]) throws -> Int? {
        let result = try connection.execute(sql, arguments.map(PostgresValues.parameter), timeout: answerTimeout)
        guard let first = result.rows.first, let text = first.first ?? nil else { return nil }
        return Int(text)
    }

    func execute(_ sql: String, _ parameters: [String?] = []) throws -> PostgresResult {
        try connection.execute(sql, parameters, timeout: answerTimeout)
    }
}

/// A value read is bound back as a key of a later statement and must find
/// its row again: so it is kept as PostgreSQL printed it (which its input
/// function reads back to the same value), but for the integer types.
enum PostgresValues {
    static let integerTypes: Set<UInt32> = [20, 21, 23, 26]

    /// Untrusted: text that does not parse stays text.
    static func value(_ text: String?, type: UInt32) -> DatabaseValue {
        guard let text else { return .null }
        if integerTypes.contains(type), let integer = Int64(text) {
            return integer.databaseValue
        }
        // Floats stay text too: shown as the server prints them (`1`, as
        // psql does, not Swift's `1.0`), bound back exactly (`extra_float_digits`).
        return text.databaseValue
    }

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
