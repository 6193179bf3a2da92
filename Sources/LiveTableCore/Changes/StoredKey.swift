import Foundation
import GRDB

/// Database values as a dictionary key, equal only when they are stored
/// identically: the identity of a row that is not a single integer (the
/// primary key of a `WITHOUT ROWID` table, or all the values of a row of
/// a view).
///
/// GRDB's `DatabaseValue` equality is SQL's: `1 == 1.0`, and texts
/// compare as Swift strings, which equate canonically equivalent texts
/// ("é" and "e" + U+0301) that SQLite stores, sorts and keys as two
/// values. A `StoredKey` tells them apart, as SQLite's BINARY collation
/// does, so two rows never share a key.
///
/// For example:
///
/// ```swift
/// let key = StoredKey(["Europe".databaseValue, 42.databaseValue])
/// StoredKey([1.databaseValue]) == StoredKey([(1.0).databaseValue]) // false
/// ```
public struct StoredKey: Hashable, Sendable {
    /// The values, in order.
    public var values: [DatabaseValue]

    /// Creates a key from values.
    ///
    /// For example:
    ///
    /// ```swift
    /// let key = StoredKey(Array(row.databaseValues))
    /// ```
    public init(_ values: [DatabaseValue]) {
        self.values = values
    }

    /// True when both keys hold the same number of values, each stored
    /// identically (see `DatabaseValue.isStoredIdentically(to:)`).
    public static func == (lhs: StoredKey, rhs: StoredKey) -> Bool {
        lhs.values.count == rhs.values.count
            && zip(lhs.values, rhs.values).allSatisfy { $0.isStoredIdentically(to: $1) }
    }

    /// Hashes the key consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(values.count)
        for value in values {
            value.hashStorage(into: &hasher)
        }
    }
}

// MARK: - Stored identity

extension DatabaseValue {
    /// True when both values are stored identically, so that a screen
    /// shows them the same: the same storage class, integers and blobs
    /// equal, reals of the same bits, texts of the same bytes.
    ///
    /// This is the equality of change highlighting, not of SQL: `1` and
    /// `1.0` differ (the screen shows "1" and "1.0"); "é" and "e" + U+0301
    /// differ (SQLite stores two texts); `-0.0` and `0.0` differ; and a
    /// NaN (which SQLite stores as NULL, but a value built in memory may
    /// hold) equals itself, so that it never looks changed when it is not.
    ///
    /// For example:
    ///
    /// ```swift
    /// 1.databaseValue.isStoredIdentically(to: (1.0).databaseValue)     // false
    /// "a".databaseValue.isStoredIdentically(to: "a".databaseValue)   // true
    /// ```
    public func isStoredIdentically(to other: DatabaseValue) -> Bool {
        switch (storage, other.storage) {
        case (.null, .null): return true
        case let (.int64(a), .int64(b)): return a == b
        case let (.double(a), .double(b)): return a.bitPattern == b.bitPattern
        case let (.string(a), .string(b)): return a.utf8.elementsEqual(b.utf8)
        case let (.blob(a), .blob(b)): return a == b
        default: return false
        }
    }

    /// Hashes the value consistently with `isStoredIdentically(to:)`.
    func hashStorage(into hasher: inout Hasher) {
        switch storage {
        case .null:
            hasher.combine(0)
        case let .int64(value):
            hasher.combine(1)
            hasher.combine(value)
        case let .double(value):
            hasher.combine(2)
            hasher.combine(value.bitPattern)
        case let .string(value):
            hasher.combine(3)
            hasher.combine(value.utf8.count)
            for byte in value.utf8 { hasher.combine(byte) }
        case let .blob(value):
            hasher.combine(4)
            hasher.combine(value)
        }
    }
}
