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
/// Rows are stepped through with a raw statement, their text and BLOBs
/// read in place and encoded straight into a byte buffer (no `String` nor
/// `DatabaseValue` per value), which goes out a megabyte at a time: as
/// fast as the `sqlite3` command's `-csv`.
///
/// For example:
///
/// ```swift
/// try RowExport.export(database, source, format: .csv) { bytes in
///     FileHandle.standardOutput.write(Data(bytes))
/// }
/// ```
public enum RowExport {
    /// The number of rows read at once.
    public static let pageSize = 10_000

    /// The size of the output handed to `write` at once.
    public static let bufferSize = 1 << 20

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

/// The export's output buffer, handed to its writer when full: SQLite's
/// export and PostgreSQL's (`PostgresDataSource.export`) write through it.
struct ExportOutput {
    var bytes: [UInt8] = []
    let write: (UnsafeRawBufferPointer) throws -> Void

    init(write: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        self.write = write
        bytes.reserveCapacity(RowExport.bufferSize + RowExport.bufferSize / 4)
    }

    /// Writes what the buffer holds, then `more`, in one piece.
    mutating func flush(_ more: some Sequence<UInt8> = EmptyCollection()) throws {
        bytes.append(contentsOf: more)
        try bytes.withUnsafeBytes { try write($0) }
        bytes.removeAll(keepingCapacity: true)
    }
}

/// A value as a database holds it, its text and BLOB bytes read in place:
/// what `RowEncoder` encodes. SQLite's statements give their columns as
/// such; PostgreSQL's text values are `.text`, or a number for JSON.
enum StoredValue {
    case null
    case integer(Int64)
    case real(Double)
    /// UTF-8 bytes, as stored: they may be invalid.
    case text(UnsafeRawBufferPointer)
    case blob(UnsafeRawBufferPointer)
    /// A JSON value's bytes, written as they are in JSON, as text otherwise:
    /// PostgreSQL's booleans, numbers, json and jsonb.
    case json(UnsafeRawBufferPointer)

    /// Calls `body` with `value`.
    static func read(_ value: DatabaseValue, _ body: (StoredValue) -> Void) {
        switch value.storage {
        case .null: body(.null)
        case let .int64(integer): body(.integer(integer))
        case let .double(double): body(.real(double))
        case var .string(text): text.withUTF8 { body(.text(UnsafeRawBufferPointer($0))) }
        case let .blob(data): data.withUnsafeBytes { body(.blob($0)) }
        }
    }
}

/// Encodes rows in one of the export formats: pure functions of values,
/// written as bytes.
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
    /// UTF-8, written as U+FFFD.
    public private(set) var invalidTextCount = 0
    /// Each column's `"key": ` in JSON: the column names, each name that an
    /// earlier column has numbered (`id`, `id:1`, `id:2`).
    private let jsonKeys: [[UInt8]]

    /// Creates an encoder.
    public init(format: ExportFormat, columnNames: [String]) {
        self.format = format
        self.columnNames = columnNames
        jsonKeys = Self.uniqueKeys(columnNames).map { Array((Self.jsonString($0) + ": ").utf8) }
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
        var bytes: [UInt8] = []
        beginRecord(into: &bytes)
        for (column, value) in values.enumerated() {
            StoredValue.read(value) { appendField($0, column: column, into: &bytes) }
        }
        endRecord(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// What comes after the last record.
    public func footer() -> String {
        switch format {
        case .csv, .tsv: return ""
        case .json: return recordCount == 0 ? "]\n" : "\n]\n"
        }
    }

    // MARK: - Bytes

    /// Starts a record.
    mutating func beginRecord(into out: inout [UInt8]) {
        if format == .json {
            if recordCount > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\n"))
            out.append(UInt8(ascii: "{"))
        }
    }

    /// Appends the field of column `column` (from 0), with the separator
    /// before it.
    mutating func appendField(_ value: StoredValue, column: Int, into out: inout [UInt8]) {
        switch format {
        case .csv:
            if column > 0 { out.append(UInt8(ascii: ",")) }
            switch value {
            case .null: break
            case let .text(bytes), let .json(bytes): appendValidUTF8(bytes, into: &out, Self.appendCSVText)
            // Quoted, as empty text is: an empty field is NULL.
            case let .blob(bytes) where bytes.isEmpty: out.append(contentsOf: [34, 34])
            default: Self.appendPlain(value, into: &out)
            }
        case .tsv:
            if column > 0 { out.append(UInt8(ascii: "\t")) }
            switch value {
            case .null: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "N")])
            case let .text(bytes), let .json(bytes): appendValidUTF8(bytes, into: &out, Self.appendTSVText)
            default: Self.appendPlain(value, into: &out)
            }
        case .json:
            if column > 0 { out.append(contentsOf: [UInt8(ascii: ","), UInt8(ascii: " ")]) }
            if jsonKeys.indices.contains(column) { out.append(contentsOf: jsonKeys[column]) }
            switch value {
            case .null: out.append(contentsOf: "null".utf8)
            case let .integer(integer): Self.appendInteger(integer, into: &out)
            case let .real(double):
                if double.isInfinite {
                    out.append(contentsOf: (double < 0 ? "-1e999" : "1e999").utf8)
                } else if double.isNaN {
                    out.append(contentsOf: "null".utf8)
                } else {
                    out.append(contentsOf: "\(double)".utf8)
                }
            case let .text(bytes): appendValidUTF8(bytes, into: &out, Self.appendJSONText)
            case let .json(bytes): appendValidUTF8(bytes, into: &out) { bytes, out in out.append(contentsOf: bytes) }
            case let .blob(bytes):
                out.append(UInt8(ascii: "\""))
                out.append(contentsOf: Data(bytes).base64EncodedString().utf8)
                out.append(UInt8(ascii: "\""))
            }
        }
    }

    /// Ends a record.
    mutating func endRecord(into out: inout [UInt8]) {
        switch format {
        case .csv: out.append(contentsOf: [13, 10])
        case .tsv: out.append(10)
        case .json: out.append(UInt8(ascii: "}"))
        }
        recordCount += 1
    }

    /// Calls `append` with `bytes` when they are valid UTF-8, and with
    /// them repaired (U+FFFD for each invalid sequence) otherwise: the
    /// output is always valid UTF-8. ASCII, the common case, is checked
    /// without decoding.
    private mutating func appendValidUTF8(
        _ bytes: UnsafeRawBufferPointer, into out: inout [UInt8],
        _ append: (UnsafeRawBufferPointer, inout [UInt8]) -> Void)
    {
        if !bytes.contains(where: { $0 >= 0x80 }) || isValidUTF8(bytes) {
            append(bytes, &out)
            return
        }
        invalidTextCount += 1
        var repaired = String(decoding: bytes, as: UTF8.self)
        repaired.withUTF8 { append(UnsafeRawBufferPointer($0), &out) }
    }

    /// Numbers and BLOBs, the same in CSV and TSV.
    private static func appendPlain(_ value: StoredValue, into out: inout [UInt8]) {
        switch value {
        case let .integer(integer): appendInteger(integer, into: &out)
        case let .real(double): out.append(contentsOf: CellText.text(of: double).utf8)
        case let .blob(bytes): appendHexadecimal(bytes, into: &out)
        case .null, .text, .json: break
        }
    }

    private static func appendInteger(_ integer: Int64, into out: inout [UInt8]) {
        if integer < 0 { out.append(UInt8(ascii: "-")) }
        // The magnitude, as unsigned: Int64.min has no positive counterpart.
        var magnitude = integer.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 20 digits at most
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            for index in stride(from: count - 1, through: 0, by: -1) {
                out.append(buffer[index])
            }
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func appendHexadecimal(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        out.reserveCapacity(out.count + bytes.count * 2)
        for byte in bytes {
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0x0F)])
        }
    }

    /// Whether `bytes` are a JSON number (`-0`, `12.50`, `1e+20`): not
    /// `NaN`, `Infinity`, nor `.5`.
    static func isJSONNumber(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        func digits() -> Int {
            let start = index
            while index < bytes.count, (48...57).contains(bytes[index]) { index += 1 }
            return index - start
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let whole = digits()
        guard whole > 0, whole == 1 || bytes[index - whole] != UInt8(ascii: "0") else { return false }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return false }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return false }
        }
        return index == bytes.count
    }

    // MARK: - CSV

    static func csvField(_ text: String) -> String {
        var bytes: [UInt8] = []
        var text = text
        text.withUTF8 { appendCSVText(UnsafeRawBufferPointer($0), into: &bytes) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Text quoted when it holds a comma, a double quote, CR or LF (its
    /// quotes doubled); empty text is `""`, so that it differs from NULL.
    private static func appendCSVText(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        let needsQuotes = bytes.isEmpty || bytes.contains(where: isCSVSpecial)
        guard needsQuotes else {
            out.append(contentsOf: bytes)
            return
        }
        out.append(34)
        for byte in bytes {
            if byte == 34 { out.append(34) }
            out.append(byte)
        }
        out.append(34)
    }

    // MARK: - TSV

    static func tsvField(_ text: String) -> String {
        var bytes: [UInt8] = []
        var text = text
        text.withUTF8 { appendTSVText(UnsafeRawBufferPointer($0), into: &bytes) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Text with backslash, tab, LF and CR written `\\`, `\t`, `\n`, `\r`.
    private static func appendTSVText(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        guard bytes.contains(where: isTSVSpecial) else {
            out.append(contentsOf: bytes)
            return
        }
        for byte in bytes {
            switch byte {
            case 92: out.append(contentsOf: [92, 92])
            case 9: out.append(contentsOf: [92, UInt8(ascii: "t")])
            case 10: out.append(contentsOf: [92, UInt8(ascii: "n")])
            case 13: out.append(contentsOf: [92, UInt8(ascii: "r")])
            default: out.append(byte)
            }
        }
    }

    // MARK: - JSON

    static func jsonString(_ text: String) -> String {
        var bytes: [UInt8] = []
        var text = text
        text.withUTF8 { appendJSONText(UnsafeRawBufferPointer($0), into: &bytes) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A JSON string: quotes, backslashes and control characters escaped.
    private static func appendJSONText(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        out.append(34)
        for byte in bytes {
            switch byte {
            case 34: out.append(contentsOf: [92, 34])
            case 92: out.append(contentsOf: [92, 92])
            case 10: out.append(contentsOf: [92, UInt8(ascii: "n")])
            case 13: out.append(contentsOf: [92, UInt8(ascii: "r")])
            case 9: out.append(contentsOf: [92, UInt8(ascii: "t")])
            case 0..<0x20, 0x7F:
                out.append(contentsOf: "\\u00".utf8)
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
        out.append(34)
    }
}

/// A comma, a double quote, CR or LF.
private func isCSVSpecial(_ byte: UInt8) -> Bool { byte == 44 || byte == 34 || byte == 13 || byte == 10 }

/// A backslash, a tab, LF or CR.
private func isTSVSpecial(_ byte: UInt8) -> Bool { byte == 92 || byte == 9 || byte == 10 || byte == 13 }

/// True when `bytes` are valid UTF-8.
private func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var iterator = bytes.makeIterator()
    var decoder = UTF8()
    while true {
        switch decoder.decode(&iterator) {
        case .scalarValue: continue
        case .emptyInput: return true
        case .error: return false
        }
    }
}
