/// A number of rows, and how sure it is.
package enum RowCount: Equatable, Sendable {
    /// Counted.
    case exact(Int)
    /// Estimated without counting: from `sqlite_stat1` (as of the last
    /// `ANALYZE`), or from the span of the rowids.
    case estimated(Int)
    /// Counting stopped at this many rows, and nothing cheaper tells more.
    case atLeast(Int)

    /// The number, exact or not.
    package var value: Int {
        switch self {
        case let .exact(count), let .estimated(count), let .atLeast(count): return count
        }
    }

    /// True for `.exact`.
    package var isExact: Bool {
        if case .exact = self { return true }
        return false
    }
}
