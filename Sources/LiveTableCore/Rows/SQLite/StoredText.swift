import CSQLite
import GRDB

/// Text exactly as SQLite stores it. GRDB reads TEXT as a C string: it
/// stops at the first NUL (`admin\0…` reads `admin`) and silently replaces
/// invalid UTF-8 with U+FFFD. What the viewer shows and exports is read
/// with its length, NUL included, and each byte of an invalid sequence
/// becomes one scalar of the last 128 code points of Supplementary Private
/// Use Area-B (U+10FF80 + byte - 0x80), which no text holds in practice.
/// The screen shows it as `\x{ff}`; exports write U+FFFD and count them.
package enum StoredText {
    static let invalidByteBase: UInt32 = 0x10FF80

    package static func decoding<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        if let text = String(validating: bytes, as: UTF8.self) {
            return text
        }
        var result = String.UnicodeScalarView()
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        // The parser consumes the bytes of an error without giving them
        // back: a second iterator, moved by the same lengths, reads them.
        var shadow = bytes.makeIterator()
        loop: while true {
            switch parser.parseScalar(from: &iterator) {
            case let .valid(encoded):
                result.append(Unicode.UTF8.decode(encoded))
                for _ in 0..<encoded.count { _ = shadow.next() }
            case let .error(length):
                for _ in 0..<length {
                    guard let byte = shadow.next() else { break }
                    // Only bytes of 0x80 and above make UTF-8 invalid.
                    result.append(Unicode.Scalar(invalidByteBase + UInt32(byte & 0x7F))!)
                }
            case .emptyInput:
                break loop
            }
        }
        return String(result)
    }

    package static func invalidByte(_ scalar: Unicode.Scalar) -> UInt8? {
        guard scalar.value >= invalidByteBase, scalar.value <= invalidByteBase + 0x7F else { return nil }
        return UInt8(scalar.value - invalidByteBase) | 0x80
    }

    package static func holdsInvalidBytes(_ text: String) -> Bool {
        text.unicodeScalars.contains { invalidByte($0) != nil }
    }

    /// What an export writes, as any UTF-8 reader would.
    static func replacingInvalidBytes(_ text: String) -> String {
        guard holdsInvalidBytes(text) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            result.append(invalidByte(scalar) == nil ? scalar : "\u{FFFD}")
        }
        return String(result)
    }
}

extension DatabaseValue {
    /// Text read with its length; other values as GRDB reads them.
    static func stored(_ statement: Statement, column: Int) -> DatabaseValue {
        let sqliteStatement = statement.sqliteStatement
        let index = Int32(column)
        guard sqlite3_column_type(sqliteStatement, index) == SQLITE_TEXT else {
            return DatabaseValue(sqliteStatement: sqliteStatement, index: index)
        }
        // sqlite3_column_text before sqlite3_column_bytes, as SQLite asks.
        guard let text = sqlite3_column_text(sqliteStatement, index) else { return "".databaseValue }
        let count = Int(sqlite3_column_bytes(sqliteStatement, index))
        return StoredText.decoding(UnsafeBufferPointer(start: text, count: count)).databaseValue
    }
}
