import Foundation
import GRDB

/// The formats `livetable view FILE TABLE --format` prints.
public enum ExportFormat: String, CaseIterable, Sendable {
    /// RFC 4180: a header line, fields separated by commas, lines ended by
    /// CRLF; a field holding a comma, a double quote, CR or LF is quoted,
    /// its quotes doubled. NULL is an empty field, empty text and an empty
    /// BLOB are `""`, a BLOB is its bytes in lowercase hexadecimal.
    case csv
    /// Tab-separated: a header line, lines ended by LF; backslash, tab, LF
    /// and CR in values are written `\\`, `\t`, `\n`, `\r` (as PostgreSQL's
    /// COPY does); NULL is `\N`; a BLOB is its bytes in lowercase hexadecimal.
    case tsv
    /// One JSON array of objects, one per line, keyed by column name:
    /// integers and reals are numbers (infinities `1e999` and `-1e999`),
    /// text is a string, NULL is `null`, a BLOB is a base64 string. A name
    /// that an earlier column has is numbered, so that no key is lost: the
    /// columns of `SELECT id, id` are `"id"` and `"id:1"`.
    case json
}

/// Writes all the rows of a source in a format, page by page, in constant
/// memory.
///
/// For example:
///
/// ```swift
/// try RowExport.export(database, source, format: .csv) { text in
///     FileHandle.standardOutput.write(Data(text.utf8))
/// }
/// ```
public enum RowExport {
    /// The number of rows read at once.
    public static let pageSize = 1000

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
    /// - parameter write: Called with consecutive pieces of the output.
    /// - returns: What was written.
    @discardableResult
    public static func export(
        _ database: ViewerDatabase, _ source: RowSource, format: ExportFormat,
        pageSize: Int = pageSize, write: (String) throws -> Void) throws -> Summary
    {
        let ordering = try RowOrdering(source)
        let names = source.columnNames
        var encoder = RowEncoder(format: format, columnNames: names)
        try write(encoder.header())
        let pageSize = max(1, pageSize)

        if try source.isQuery || database.read({ db in try ordering.cost(of: source, in: db) }) == .scan {
            let sql = source.querySQL
                ?? source.selectSQL(where: nil, orderBy: ordering.orderBy(forward: true), limit: false)
            try database.read { db in
                let statement = try db.makeStatement(sql: sql)
                let columns = 0..<statement.columnCount
                let cursor = try Row.fetchCursor(statement)
                var text = ""
                while try cursor.next() != nil {
                    // Read as stored: a NUL does not end the text.
                    text += encoder.record(columns.map { DatabaseValue.stored(statement, column: $0) })
                    if text.utf8.count >= 1 << 16 {
                        try write(text)
                        text = ""
                    }
                }
                try write(text)
            }
        } else {
            var anchor = RowAnchor.first
            while true {
                let request = RowWindowRequest(ordering: ordering, anchor: anchor, before: 0, after: pageSize)
                let window = try database.read { db in try RowWindow.fetch(db, source, request) }
                try write(window.rows.map { encoder.record($0) }.joined())
                guard !window.reachesEnd, var last = window.positions.last else { break }
                // The position just after the last row.
                last.occurrence += 1
                anchor = .position(last)
            }
        }
        try write(encoder.footer())
        return Summary(rowCount: encoder.recordCount, invalidTextCount: encoder.invalidTextCount)
    }

    /// What an export wrote.
    public struct Summary: Equatable, Sendable {
        /// The number of rows.
        public var rowCount: Int
        /// The number of text values that held bytes that are not UTF-8,
        /// written as U+FFFD.
        public var invalidTextCount: Int

        /// A one-line warning about what the output could not keep, or nil.
        ///
        /// For example:
        ///
        /// ```swift
        /// let summary = RowExport.Summary(rowCount: 10, invalidTextCount: 2)
        /// summary.warning // "2 text values are not valid UTF-8: their invalid bytes are written as U+FFFD"
        /// ```
        public var warning: String? {
            switch invalidTextCount {
            case 0: return nil
            case 1: return "1 text value is not valid UTF-8: its invalid bytes are written as U+FFFD"
            default: return "\(invalidTextCount) text values are not valid UTF-8: their invalid bytes are written as U+FFFD"
            }
        }
    }
}

/// Encodes rows in one of the export formats: pure functions of values.
///
/// For example:
///
/// ```swift
/// var encoder = RowEncoder(format: .csv, columnNames: ["name", "note"])
/// encoder.header()                                          // "name,note\r\n"
/// encoder.record(["Bob".databaseValue, "a,b".databaseValue]) // "Bob,\"a,b\"\r\n"
/// ```
public struct RowEncoder: Sendable {
    /// The format.
    public let format: ExportFormat
    /// The names of the columns.
    public let columnNames: [String]
    /// The number of records encoded so far.
    public private(set) var recordCount = 0
    /// The number of text values encoded so far that held bytes of invalid
    /// UTF-8 (see `StoredText`), written as U+FFFD.
    public private(set) var invalidTextCount = 0
    /// The keys of a JSON object: the column names, each name that an
    /// earlier column has numbered (`id`, `id:1`, `id:2`).
    private let jsonKeys: [String]

    /// Creates an encoder.
    public init(format: ExportFormat, columnNames: [String]) {
        self.format = format
        self.columnNames = columnNames
        self.jsonKeys = Self.uniqueKeys(columnNames)
    }

    /// `names`, each one that comes again numbered from 1 (`id`, `id:1`),
    /// skipping a number that another column's name already takes.
    static func uniqueKeys(_ names: [String]) -> [String] {
        var taken = Set(names)
        var seen: Set<String> = []
        var keys: [String] = []
        for name in names {
            guard seen.contains(name) else {
                seen.insert(name)
                keys.append(name)
                continue
            }
            var number = 1
            while taken.contains("\(name):\(number)") { number += 1 }
            let key = "\(name):\(number)"
            taken.insert(key)
            keys.append(key)
        }
        return keys
    }

    /// What comes before the first record.
    public func header() -> String {
        switch format {
        case .csv: return columnNames.map(Self.csvField).joined(separator: ",") + "\r\n"
        case .tsv: return columnNames.map(Self.tsvField).joined(separator: "\t") + "\n"
        case .json: return "["
        }
    }

    /// One record.
    public mutating func record(_ values: [DatabaseValue]) -> String {
        defer { recordCount += 1 }
        var values = values
        for index in values.indices {
            // A stand-in for a byte of invalid UTF-8 is U+10FF80 or above,
            // whose UTF-8 starts with 0xF4: rare, and cheap to look for.
            if case let .string(text) = values[index].storage, text.utf8.contains(0xF4),
                StoredText.holdsInvalidBytes(text)
            {
                invalidTextCount += 1
                values[index] = StoredText.replacingInvalidBytes(text).databaseValue
            }
        }
        switch format {
        case .csv:
            return values.map(Self.csvValue).joined(separator: ",") + "\r\n"
        case .tsv:
            return values.map(Self.tsvValue).joined(separator: "\t") + "\n"
        case .json:
            let members = zip(jsonKeys, values).map { name, value in
                Self.jsonString(name) + ": " + Self.jsonValue(value)
            }
            return (recordCount == 0 ? "\n" : ",\n") + "{" + members.joined(separator: ", ") + "}"
        }
    }

    /// What comes after the last record.
    public func footer() -> String {
        switch format {
        case .csv, .tsv: return ""
        case .json: return recordCount == 0 ? "]\n" : "\n]\n"
        }
    }

    // MARK: - CSV

    static func csvValue(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return ""
        case let .string(text): return text.isEmpty ? "\"\"" : csvField(text)
        // Quoted, as empty text is: an empty field is NULL.
        case let .blob(data) where data.isEmpty: return "\"\""
        default: return plainText(value)
        }
    }

    static func csvField(_ text: String) -> String {
        let needsQuotes = text.unicodeScalars.contains { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" }
        return needsQuotes ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }

    // MARK: - TSV

    static func tsvValue(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return "\\N"
        case let .string(text): return tsvField(text)
        default: return plainText(value)
        }
    }

    static func tsvField(_ text: String) -> String {
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\t": result += "\\t"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Numbers and BLOBs, the same in CSV and TSV.
    private static func plainText(_ value: DatabaseValue) -> String {
        switch value.storage {
        case let .int64(integer): return String(integer)
        case let .double(double): return CellText.text(of: double)
        case let .blob(data): return hexadecimal(data)
        case .null, .string: return ""
        }
    }

    private static func hexadecimal(_ data: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(data.count * 2)
        for byte in data {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: - JSON

    static func jsonValue(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return "null"
        case let .int64(integer): return String(integer)
        case let .double(double):
            if double.isInfinite { return double < 0 ? "-1e999" : "1e999" }
            if double.isNaN { return "null" }
            return "\(double)"
        case let .string(text): return jsonString(text)
        case let .blob(data): return "\"" + data.base64EncodedString() + "\""
        }
    }

    static func jsonString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case let scalar where scalar.value < 0x20 || scalar.value == 0x7F:
                result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
