import GRDB

/// A delivered window of rows, as change highlighting compares them: each
/// row's identity and cells, in the window's order, and whether the window
/// reaches the start and the end of its ordering.
package struct WindowSnapshot<RowID: Hashable & Sendable>: Equatable, Sendable {
    package struct Row: Equatable, Sendable {
        /// The identity of the row: it does not change when its cells do.
        package var id: RowID
        package var cells: [DatabaseValue]
        /// A value that changes whenever the row does (PostgreSQL's
        /// `xmin`), or nil: two rows of the same identity and the same
        /// token hold the same cells, which are then not compared.
        package var changeToken: DatabaseValue?

        package init(id: RowID, cells: [DatabaseValue], changeToken: DatabaseValue? = nil) {
            self.id = id
            self.cells = cells
            self.changeToken = changeToken
        }

        /// Equal by id and stored cells, or, for rows with change tokens, by token.
        package static func == (lhs: Row, rhs: Row) -> Bool {
            lhs.id == rhs.id && lhs.cells.count == rhs.cells.count
                && (lhs.hasSameChangeToken(as: rhs)
                    || zip(lhs.cells, rhs.cells).allSatisfy { $0.isStoredIdentically(to: $1) })
        }

        func hasSameChangeToken(as other: Row) -> Bool {
            guard let token = changeToken, let otherToken = other.changeToken else { return false }
            return token.isStoredIdentically(to: otherToken)
        }
    }

    package var rows: [Row]
    /// True when no row sorts before `rows.first`.
    package var reachesStart: Bool
    /// True when no row sorts after `rows.last`.
    package var reachesEnd: Bool
    /// The exact number of rows of the table or query, or nil when it is
    /// not known (being counted).
    package var rowCount: Int?

    package init(rows: [Row], reachesStart: Bool, reachesEnd: Bool, rowCount: Int?) {
        self.rows = rows
        self.reachesStart = reachesStart
        self.reachesEnd = reachesEnd
        self.rowCount = rowCount
    }
}

/// Why a window differs from the previous one.
package enum WindowChange: Equatable, Sendable {
    /// The same query (same anchor, ordering and size), delivered again
    /// because the data changed: rows that arrive in it are new.
    case update
    /// Another window: the user scrolled, paged, jumped, reordered,
    /// filtered or resized, or the window moved to follow a row. Rows that
    /// arrive in it are not new, and rows that leave it were not deleted;
    /// cells that changed in rows of both windows are still changes.
    case navigation
}
