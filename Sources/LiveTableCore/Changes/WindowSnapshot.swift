import GRDB

/// A delivered window of rows, as change highlighting compares them: each
/// row's identity and cells, in the window's order, and whether the window
/// reaches the start and the end of its ordering.
///
/// Both screens make one from what their observation delivers: the Hall
/// of Fame identifies a row by its player id (cells: name, score), the
/// viewer by its rowid or primary key (cells: the columns of the row); see
/// `HallOfFame.changeSnapshot` and `ViewerWindow.changeSnapshot(rowCount:)`.
///
/// - important: The order of the rows must follow from their identities
///   and cells alone (the cells hold every column the ordering sorts on):
///   change highlighting takes a row whose cells did not change for a row
///   that did not move, and reasons from it about which rows are new.
///
/// For example:
///
/// ```swift
/// let snapshot = WindowSnapshot(
///     rows: [WindowSnapshot.Row(id: 1, cells: ["Arthur".databaseValue, 100.databaseValue])],
///     reachesStart: true, reachesEnd: true, rowCount: 1)
/// ```
public struct WindowSnapshot<RowID: Hashable & Sendable>: Equatable, Sendable {
    /// One row: its identity, its cells, and maybe its change token.
    public struct Row: Equatable, Sendable {
        /// The identity of the row: it does not change when its cells do.
        public var id: RowID
        /// The values of the row, one per column; a cell is identified by
        /// its index.
        public var cells: [DatabaseValue]
        /// A value that changes whenever the row does (PostgreSQL's
        /// `xmin`), or nil: two rows of the same identity and the same
        /// token hold the same cells, which are then not compared.
        public var changeToken: DatabaseValue?

        /// Creates a row.
        ///
        /// For example:
        ///
        /// ```swift
        /// let row = WindowSnapshot<Int64>.Row(id: 42, cells: ["Bob".databaseValue, 7.databaseValue])
        /// ```
        public init(id: RowID, cells: [DatabaseValue], changeToken: DatabaseValue? = nil) {
            self.id = id
            self.cells = cells
            self.changeToken = changeToken
        }

        /// True when both rows have the same identity and their cells are
        /// stored identically (see `DatabaseValue.isStoredIdentically(to:)`),
        /// or, for rows with change tokens, the same token and as many
        /// cells.
        public static func == (lhs: Row, rhs: Row) -> Bool {
            lhs.id == rhs.id && lhs.cells.count == rhs.cells.count
                && (lhs.hasSameChangeToken(as: rhs)
                    || zip(lhs.cells, rhs.cells).allSatisfy { $0.isStoredIdentically(to: $1) })
        }

        /// True when both rows have a change token, and it is the same:
        /// the row did not change.
        func hasSameChangeToken(as other: Row) -> Bool {
            guard let token = changeToken, let otherToken = other.changeToken else { return false }
            return token.isStoredIdentically(to: otherToken)
        }
    }

    /// Consecutive rows of the ordering, in order.
    public var rows: [Row]
    /// True when no row sorts before `rows.first`.
    public var reachesStart: Bool
    /// True when no row sorts after `rows.last`.
    public var reachesEnd: Bool
    /// The exact number of rows of the table or query, or nil when it is
    /// not known (being counted).
    public var rowCount: Int?

    /// Creates a snapshot.
    ///
    /// For example:
    ///
    /// ```swift
    /// let empty = WindowSnapshot<Int64>(rows: [], reachesStart: true, reachesEnd: true, rowCount: 0)
    /// ```
    public init(rows: [Row], reachesStart: Bool, reachesEnd: Bool, rowCount: Int?) {
        self.rows = rows
        self.reachesStart = reachesStart
        self.reachesEnd = reachesEnd
        self.rowCount = rowCount
    }
}

/// Why a window differs from the previous one.
///
/// A host tells them apart by the request the window answers: the same
/// request as the previous window's is an `.update`.
///
/// For example:
///
/// ```swift
/// let cause: WindowChange = newValue.request == oldValue.request ? .update : .navigation
/// ```
public enum WindowChange: Equatable, Sendable {
    /// The same query (same anchor, ordering and size), delivered again
    /// because the data changed: rows that arrive in it are new.
    case update
    /// Another window: the user scrolled, paged, jumped, reordered,
    /// filtered or resized, or the window moved to follow a row. Rows that
    /// arrive in it are not new, and rows that leave it were not deleted;
    /// cells that changed in rows of both windows are still changes.
    case navigation
}
