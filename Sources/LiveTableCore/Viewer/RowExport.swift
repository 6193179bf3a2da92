import Foundation
import GRDB

/// The formats `livetable view FILE TABLE --format` prints, and `s` saves.
package enum ExportFormat: String, CaseIterable, Sendable {
    /// RFC 4180. NULL is an empty field, so empty text and an empty BLOB are
    /// `""`; a BLOB is lowercase hexadecimal.
    case csv
    /// Escapes as PostgreSQL's COPY does (`\\`, `\t`, `\n`, `\r`); NULL is `\N`.
    case tsv
    /// An array of objects, one a line; a BLOB is base64, infinities are
    /// `1e999`. A repeated column name is numbered (`id`, `id:1`), so that no
    /// key is lost.
    case json
    /// One JSON object a line, as `json` writes each.
    case jsonl
    /// A Markdown (GitHub) table: `|` escaped, a line break as `<br>`, NULL
    /// empty, a BLOB in hexadecimal.
    case md

    /// The format a file's name ends with (`orders.csv`); nil for another.
    package init?(fileName: String) {
        guard let dot = fileName.lastIndex(of: "."), !fileName[dot...].contains("/") else { return nil }
        self.init(rawValue: fileName[fileName.index(after: dot)...].lowercased())
    }

    var isJSON: Bool { self == .json || self == .jsonl }
}

/// What an export writes of a source: its rows, in an order, and some of its
/// columns: a sheet as the screen shows it, or as `--format` asks.
package struct ExportPlan: Equatable, Sendable {
    package var source: RowSource
    /// Nil: the natural order (rowid, primary key or all columns; a query's
    /// own).
    package var ordering: RowOrdering?
    /// Indices of the source's columns, in the order written.
    package var columns: [Int]

    package init(source: RowSource, ordering: RowOrdering? = nil, columns: [Int]? = nil) {
        self.source = source
        self.ordering = ordering
        self.columns = columns ?? Array(source.columns.indices)
    }

    /// A sheet in its sort (unsorted: the natural order), filtered as its
    /// source is, with `columns` named as `--sort` names one, or all.
    package init(_ viewed: ViewedSource, columns names: [String]?) throws {
        let source = viewed.source
        let indices = try names?.map { name in
            guard let index = source.columns.firstIndex(where: { $0.name == name })
                ?? source.columns.firstIndex(where: { $0.name.lowercased() == name.lowercased() })
            else {
                throw SourceError.noSuchColumn(name: name, source: source.name, columns: source.columnNames)
            }
            return index
        }
        self.init(source: source, ordering: viewed.ordering.sortColumn == nil ? nil : viewed.ordering, columns: indices)
    }

    package var columnNames: [String] {
        columns.map { source.columns[$0].heading ?? source.columns[$0].name }
    }
}

/// Writes all the rows of a source in a format, in constant memory: values
/// are read in place and encoded straight into a byte buffer (no `String`
/// nor `DatabaseValue` per value), as fast as `sqlite3 -csv`.
package enum RowExport {
    package static let pageSize = 10_000

    package static let bufferSize = 1 << 20

    /// What an export wrote.
    package struct Summary: Equatable, Sendable {
        package var rowCount: Int
        package var invalidTextCount: Int

        package var warning: String? {
            switch invalidTextCount {
            case 0: return nil
            case 1: return "1 text value is not valid UTF-8: its invalid bytes are written as U+FFFD"
            default: return "\(invalidTextCount) text values are not valid UTF-8: their invalid bytes are written as U+FFFD"
            }
        }
    }
}

/// The export's buffer, handed to its writer when full (SQLite's and
/// PostgreSQL's exports), with the number of rows written so far.
struct ExportOutput {
    var bytes: [UInt8] = []
    let write: (UnsafeRawBufferPointer, Int) throws -> Void
    /// Checked at each piece, and by the reads: a save that is stopped.
    let ticket: ReadTicket

    init(ticket: ReadTicket, write: @escaping (UnsafeRawBufferPointer, Int) throws -> Void) {
        self.write = write
        self.ticket = ticket
        bytes.reserveCapacity(RowExport.bufferSize + RowExport.bufferSize / 4)
    }

    mutating func flush(_ more: some Sequence<UInt8> = EmptyCollection(), rows: Int) throws {
        if ticket.shouldStop { throw CancellationError() }
        bytes.append(contentsOf: more)
        try bytes.withUnsafeBytes { try write($0, rows) }
        bytes.removeAll(keepingCapacity: true)
    }
}

/// A value as a database holds it, its bytes read in place.
enum StoredValue {
    case null
    case integer(Int64)
    case real(Double)
    /// UTF-8 bytes as stored: they may be invalid.
    case text(UnsafeRawBufferPointer)
    case blob(UnsafeRawBufferPointer)
    /// Written as is in JSON, as text otherwise (PostgreSQL's booleans,
    /// numbers, json and jsonb).
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

/// Encodes rows in one of the export formats: pure functions of values.
package struct RowEncoder: Sendable {
    package let format: ExportFormat
    package let columnNames: [String]
    package private(set) var recordCount = 0
    package private(set) var invalidTextCount = 0
    private let jsonKeys: [[UInt8]]

    package init(format: ExportFormat, columnNames: [String]) {
        self.format = format
        self.columnNames = columnNames
        jsonKeys = Self.uniqueKeys(columnNames).map { Array((Self.jsonString($0) + ": ").utf8) }
    }

    /// Skips a number that another column's name already takes.
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

    package func header() -> String {
        switch format {
        case .csv: return columnNames.map(Self.csvField).joined(separator: ",") + "\r\n"
        case .tsv: return columnNames.map(Self.tsvField).joined(separator: "\t") + "\n"
        case .json: return "["
        case .jsonl: return ""
        case .md:
            let names = columnNames.map { Self.markdownField($0) }
            return "| " + names.joined(separator: " | ") + " |\n|" + String(repeating: "---|", count: names.count) + "\n"
        }
    }

    package mutating func record(_ values: [DatabaseValue]) -> String {
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

    package func footer() -> String {
        switch format {
        case .csv, .tsv, .jsonl, .md: return ""
        case .json: return recordCount == 0 ? "]\n" : "\n]\n"
        }
    }

    // MARK: - Bytes

    mutating func beginRecord(into out: inout [UInt8]) {
        switch format {
        case .json:
            if recordCount > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\n"))
            out.append(UInt8(ascii: "{"))
        case .jsonl: out.append(UInt8(ascii: "{"))
        case .md: out.append(UInt8(ascii: "|"))
        case .csv, .tsv: break
        }
    }

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
        case .md:
            out.append(UInt8(ascii: " "))
            switch value {
            case .null: break
            case let .text(bytes), let .json(bytes): appendValidUTF8(bytes, into: &out, Self.appendMarkdownText)
            default: Self.appendPlain(value, into: &out)
            }
            out.append(contentsOf: [UInt8(ascii: " "), UInt8(ascii: "|")])
        case .json, .jsonl:
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

    mutating func endRecord(into out: inout [UInt8]) {
        switch format {
        case .csv: out.append(contentsOf: [13, 10])
        case .tsv: out.append(10)
        case .json: out.append(UInt8(ascii: "}"))
        case .jsonl: out.append(contentsOf: [UInt8(ascii: "}"), 10])
        case .md: out.append(10)
        }
        recordCount += 1
    }

    /// The output is always valid UTF-8; ASCII, the common case, is checked
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

    /// `-0`, `12.50`, `1e+20`; not `NaN`, `Infinity`, nor `.5`.
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

    /// Empty text is `""`, so that it differs from NULL.
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

    // MARK: - Markdown

    static func markdownField(_ text: String) -> String {
        var bytes: [UInt8] = []
        var text = text
        text.withUTF8 { appendMarkdownText(UnsafeRawBufferPointer($0), into: &bytes) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A table cell is one line: `\r\n`, `\n` and `\r` are each `<br>`.
    private static func appendMarkdownText(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        var previous: UInt8 = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "|"), UInt8(ascii: "\\"): out.append(contentsOf: [92, byte])
            case 10 where previous == 13: break
            case 10, 13: out.append(contentsOf: "<br>".utf8)
            default: out.append(byte)
            }
            previous = byte
        }
    }

    // MARK: - JSON

    static func jsonString(_ text: String) -> String {
        var bytes: [UInt8] = []
        var text = text
        text.withUTF8 { appendJSONText(UnsafeRawBufferPointer($0), into: &bytes) }
        return String(decoding: bytes, as: UTF8.self)
    }

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

private func isCSVSpecial(_ byte: UInt8) -> Bool { byte == 44 || byte == 34 || byte == 13 || byte == 10 }

private func isTSVSpecial(_ byte: UInt8) -> Bool { byte == 92 || byte == 9 || byte == 10 || byte == 13 }

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
