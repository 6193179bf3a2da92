import Foundation
import GRDB

/// A score as the database stores it. The column is `INTEGER`, but another process may write `'abc'`,
/// `X'00FF'` or `-1e30`: the app shows, sorts and counts them as SQLite does, rather than crash.
package enum Score: Hashable, Sendable {
    /// NULL: the table declares the column `NOT NULL`, but a replaced
    /// table may hold it.
    case null
    /// An integer, the only kind of score the app writes.
    case integer(Int64)
    /// A real, such as `-1e30` or `Inf`, that another process wrote.
    case real(Double)
    /// A text that is not a number, such as `'abc'`, that another process wrote.
    case text(String)
    /// A blob that another process wrote.
    case blob(Data)

    init(_ value: Int) {
        self = .integer(Int64(value))
    }

    package init(databaseValue: DatabaseValue) {
        switch databaseValue.storage {
        case .null: self = .null
        case let .int64(value): self = .integer(value)
        case let .double(value): self = .real(value)
        case let .string(value): self = .text(value)
        case let .blob(value): self = .blob(value)
        }
    }

    var integerValue: Int? {
        if case let .integer(value) = self { return Int(exactly: value) }
        return nil
    }

    // MARK: - Equatable and Hashable

    /// True when both scores are stored the same: texts compare byte by
    /// byte, as SQLite does, not as Swift strings (which equate canonically
    /// equivalent texts).
    package static func == (lhs: Score, rhs: Score) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.integer(a), .integer(b)): return a == b
        case let (.real(a), .real(b)): return a == b
        case let (.text(a), .text(b)): return a.utf8.elementsEqual(b.utf8)
        case let (.blob(a), .blob(b)): return a == b
        default: return false
        }
    }

    package func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0)
        case let .integer(value):
            hasher.combine(1)
            hasher.combine(value)
        case let .real(value):
            hasher.combine(2)
            hasher.combine(value)
        case let .text(value):
            hasher.combine(3)
            for byte in value.utf8 { hasher.combine(byte) }
        case let .blob(value):
            hasher.combine(4)
            hasher.combine(value)
        }
    }
}

// MARK: - Comparable

extension Score: Comparable {
    /// True when `lhs` sorts before `rhs` in SQLite's ascending order:
    /// NULL, then numbers (integers and reals compared by value), then
    /// texts (byte by byte, the BINARY collation), then blobs (byte by byte).
    package static func < (lhs: Score, rhs: Score) -> Bool {
        DatabaseValue.sqliteComparison(lhs.databaseValue, rhs.databaseValue) < 0
    }
}

// MARK: - Text

extension Score: CustomStringConvertible {
    /// The score as the Hall of Fame shows it: numbers as SQLite writes
    /// them as text (`794`, `-1.0e+30`, `Inf`), and texts and blobs as
    /// SQL literals (`'abc'`, `''`, `X'00FF'`), so that a text is never
    /// mistaken for a number.
    package var description: String {
        switch self {
        case .null:
            return "NULL"
        case let .integer(value):
            return String(value)
        case let .real(value):
            return Self.sqliteText(of: value)
        case let .text(value):
            return "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case let .blob(value):
            return "X'" + value.map { byte in
                let hex = String(byte, radix: 16, uppercase: true)
                return byte < 16 ? "0" + hex : hex
            }.joined() + "'"
        }
    }

    /// A real as SQLite writes it (`CAST(x AS TEXT)`, SQLite's `%!.15g`):
    /// 15 significant digits, always with a decimal point.
    static func sqliteText(of value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Inf" : "Inf" }
        var text = String(format: "%.15g", value)
        if !text.contains(".") {
            if let exponent = text.firstIndex(of: "e") {
                text.insert(contentsOf: ".0", at: exponent)
            } else {
                text += ".0"
            }
        }
        return text
    }
}

// MARK: - Literals

extension Score: ExpressibleByIntegerLiteral {
    package init(integerLiteral value: Int64) {
        self = .integer(value)
    }
}

// MARK: - Database

extension Score: DatabaseValueConvertible {
    package var databaseValue: DatabaseValue {
        switch self {
        case .null: return .null
        case let .integer(value): return value.databaseValue
        case let .real(value): return value.databaseValue
        case let .text(value): return value.databaseValue
        case let .blob(value): return value.databaseValue
        }
    }

    package static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Score? {
        Score(databaseValue: dbValue)
    }
}

extension DatabaseValue {
    /// Compares two values as SQLite sorts them, with the BINARY collation:
    /// NULL first, then numbers (integers and reals compared by value,
    /// exactly), then texts (byte by byte), then blobs (byte by byte).
    static func sqliteComparison(_ lhs: DatabaseValue, _ rhs: DatabaseValue) -> Int {
        func rank(_ value: DatabaseValue) -> Int {
            switch value.storage {
            case .null: return 0
            case .int64, .double: return 1
            case .string: return 2
            case .blob: return 3
            }
        }
        func order<T: Comparable>(_ a: T, _ b: T) -> Int {
            a < b ? -1 : (a == b ? 0 : 1)
        }
        func bytes<C: Collection>(_ a: C, _ b: C) -> Int where C.Element == UInt8 {
            if a.lexicographicallyPrecedes(b) { return -1 }
            return b.lexicographicallyPrecedes(a) ? 1 : 0
        }
        switch (lhs.storage, rhs.storage) {
        case let (.int64(a), .int64(b)): return order(a, b)
        case let (.double(a), .double(b)): return order(a, b)
        case let (.int64(a), .double(b)): return integerRealComparison(a, b)
        case let (.double(a), .int64(b)): return -integerRealComparison(b, a)
        case let (.string(a), .string(b)): return bytes(a.utf8, b.utf8)
        case let (.blob(a), .blob(b)): return bytes(a, b)
        default: return order(rank(lhs), rank(rhs))
        }
    }

    /// Compares an integer and a real exactly, as SQLite's
    /// `sqlite3IntFloatCompare` does: converting the integer to a double
    /// would equate integers that differ beyond 2^53.
    private static func integerRealComparison(_ integer: Int64, _ real: Double) -> Int {
        if real.isNaN { return 1 }
        if real < -9223372036854775808.0 { return 1 }
        if real >= 9223372036854775808.0 { return -1 }
        let truncated = Int64(real)
        if integer < truncated { return -1 }
        if integer > truncated { return 1 }
        // Same integer part: the fraction of the real decides.
        let fraction = real - Double(truncated)
        return fraction > 0 ? -1 : (fraction < 0 ? 1 : 0)
    }
}
