import GRDB

/// The differences between two windows of rows, by row identity, not by
/// position: a row that moved is not changed; a row whose sort value
/// changed (and moved) is changed in that cell only.
///
/// Rows that arrive in the window or leave it are told apart by where they
/// stand. A window is a run of consecutive rows of its ordering, so every
/// row that sorts between two rows of the window is in it. A *steady* row
/// is in both windows with the same cells, hence the same sort key, and
/// has not moved. A row that arrives between two steady rows did not sort
/// there before: it was inserted, or an update of its sort values moved it
/// there. It is `added`. The same holds before the first steady row when
/// the previous window reached the start of the ordering, and after the
/// last one when it reached the end. A row that arrives elsewhere, at an
/// edge, may be a row that was just outside the window, pushed in by a
/// deletion or a move: it is not added.
///
/// In the same way, a row that leaves from between two steady rows of the
/// previous window (or from an edge that the new window reaches) no longer
/// sorts there: it was deleted, or an update moved it out of the window.
/// It is `departed`. Only the database can tell which: a host that notes
/// deletions asks it (`SELECT rowid FROM t WHERE rowid IN (…)`, a lookup
/// by key that costs nothing like a scan), and reports the missing ones
/// to `ChangeHighlighter.noteDeletions(_:)`. A row that leaves at an edge
/// was pushed out (an insert before it, a scroll) and is not departed.
///
/// The cost is linear in the size of the windows (dictionaries by id),
/// whatever the size of the table.
///
/// For example:
///
/// ```swift
/// let diff = WindowDiff(from: oldSnapshot, to: newSnapshot, cause: .update)
/// diff.changedCells[42] // [1]: the score of player 42 changed
/// diff.addedRows        // [57]: player 57 arrived among the visible rows
/// ```
public struct WindowDiff<RowID: Hashable & Sendable>: Equatable, Sendable {
    /// For each row of both windows whose cells changed, the indices of
    /// the changed cells, in increasing order. A cell that one of the
    /// windows lacks (the columns changed) is changed.
    public var changedCells: [RowID: [Int]]
    /// The rows of the new window that are new in its range (inserted,
    /// or moved there by an update), in window order. Always empty for a
    /// `.navigation`.
    public var addedRows: [RowID]
    /// The rows of the old window that left the range of the new one
    /// (deleted, or moved out by an update), in old window order. Always
    /// empty for a `.navigation`.
    public var departedRows: [RowID]

    /// Creates a difference from its parts.
    ///
    /// For example:
    ///
    /// ```swift
    /// let diff = WindowDiff<Int64>(changedCells: [1: [0]], addedRows: [], departedRows: [])
    /// ```
    public init(changedCells: [RowID: [Int]] = [:], addedRows: [RowID] = [], departedRows: [RowID] = []) {
        self.changedCells = changedCells
        self.addedRows = addedRows
        self.departedRows = departedRows
    }

    /// The differences between `old` and `new`.
    ///
    /// A row id that occurs twice in a window (which a well-formed window
    /// never holds) counts once, at its first place.
    ///
    /// - parameter old: The previous window.
    /// - parameter new: The window just delivered.
    /// - parameter cause: Whether `new` answers the same query as `old`.
    public init(from old: WindowSnapshot<RowID>, to new: WindowSnapshot<RowID>, cause: WindowChange) {
        let oldRows = Self.rowsByID(old)
        let newRows = Self.rowsByID(new)

        var changedCells: [RowID: [Int]] = [:]
        // For each window, true at the index of each steady row.
        var oldSteady = [Bool](repeating: false, count: old.rows.count)
        var newSteady = [Bool](repeating: false, count: new.rows.count)
        for (id, newEntry) in newRows {
            guard let oldEntry = oldRows[id] else { continue }
            let oldRow = old.rows[oldEntry]
            let newRow = new.rows[newEntry]
            // Same token, same row: its cells are not compared.
            let changes = oldRow.hasSameChangeToken(as: newRow) && oldRow.cells.count == newRow.cells.count
                ? [] : Self.changedCells(oldRow.cells, newRow.cells)
            if changes.isEmpty {
                oldSteady[oldEntry] = true
                newSteady[newEntry] = true
            } else {
                changedCells[id] = changes
            }
        }
        self.changedCells = changedCells

        guard cause == .update else {
            addedRows = []
            departedRows = []
            return
        }
        addedRows = Self.rowsInRange(
            of: new, steady: newSteady, rangeStartIsKnown: old.reachesStart,
            rangeEndIsKnown: old.reachesEnd, missingFrom: oldRows, ids: newRows)
        departedRows = Self.rowsInRange(
            of: old, steady: oldSteady, rangeStartIsKnown: new.reachesStart,
            rangeEndIsKnown: new.reachesEnd, missingFrom: newRows, ids: oldRows)
    }

    /// True when nothing changed.
    public var isEmpty: Bool {
        changedCells.isEmpty && addedRows.isEmpty && departedRows.isEmpty
    }

    /// The number of rows that changed, arrived or departed.
    ///
    /// For example:
    ///
    /// ```swift
    /// WindowDiff<Int64>(changedCells: [1: [0, 1]], addedRows: [2]).changeCount // 2
    /// ```
    public var changeCount: Int {
        changedCells.count + addedRows.count + departedRows.count
    }

    // MARK: - Private

    /// The index of each row by id; the first one wins.
    private static func rowsByID(_ window: WindowSnapshot<RowID>) -> [RowID: Int] {
        var indices = [RowID: Int](minimumCapacity: window.rows.count)
        for (index, row) in window.rows.enumerated() where indices[row.id] == nil {
            indices[row.id] = index
        }
        return indices
    }

    /// The indices of the cells that differ.
    private static func changedCells(_ old: [DatabaseValue], _ new: [DatabaseValue]) -> [Int] {
        (0..<max(old.count, new.count)).filter { index in
            guard index < old.count, index < new.count else { return true }
            return !old[index].isStoredIdentically(to: new[index])
        }
    }

    /// The rows of `window` that are missing from the other window while
    /// standing within its range: between two steady rows, or between a
    /// steady row and an end of the ordering that the other window reaches.
    ///
    /// - parameter steady: For each row of `window`, whether it is steady.
    /// - parameter rangeStartIsKnown: Whether the other window reaches the start.
    /// - parameter rangeEndIsKnown: Whether the other window reaches the end.
    /// - parameter others: The rows of the other window, by id.
    /// - parameter ids: The rows of `window`, by id (to skip duplicates).
    private static func rowsInRange(
        of window: WindowSnapshot<RowID>, steady: [Bool], rangeStartIsKnown: Bool,
        rangeEndIsKnown: Bool, missingFrom others: [RowID: Int], ids: [RowID: Int]) -> [RowID]
    {
        let firstSteady = steady.firstIndex(of: true)
        let lastSteady = steady.lastIndex(of: true)
        var result: [RowID] = []
        for (index, row) in window.rows.enumerated()
        where others[row.id] == nil && ids[row.id] == index {
            let beforeAllSteady = firstSteady.map { index < $0 } ?? true
            let afterAllSteady = lastSteady.map { index > $0 } ?? true
            if (rangeStartIsKnown || !beforeAllSteady) && (rangeEndIsKnown || !afterAllSteady) {
                result.append(row.id)
            }
        }
        return result
    }
}
