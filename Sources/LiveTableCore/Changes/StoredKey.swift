import Foundation
import GRDB

/// Database values as a dictionary key, equal only when stored identically. GRDB equates
/// 1 and 1.0, and "é" with "e" + U+0301, which SQLite keys as two values.
package struct StoredKey: Hashable, Sendable {
    package var values: [DatabaseValue]

    package init(_ values: [DatabaseValue]) {
        self.values = values
    }

    /// True when both keys hold the same number of values, each stored
    /// identically (see `DatabaseValue.isStoredIdentically(to:)`).
    package static func == (lhs: StoredKey, rhs: StoredKey) -> Bool {
        lhs.values.count == rhs.values.count
            && zip(lhs.values, rhs.values).allSatisfy { $0.isStoredIdentically(to: $1) }
    }

    package func hash(into hasher: inout Hasher) {
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
    package func isStoredIdentically(to other: DatabaseValue) -> Bool {
        switch (storage, other.storage) {
        case (.null, .null): return true
        case let (.int64(a), .int64(b)): return a == b
        case let (.double(a), .double(b)): return a.bitPattern == b.bitPattern
        case let (.string(a), .string(b)): return a.utf8.elementsEqual(b.utf8)
        case let (.blob(a), .blob(b)): return a == b
        default: return false
        }
    }

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
