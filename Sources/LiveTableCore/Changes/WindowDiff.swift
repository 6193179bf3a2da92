import GRDB

/// The differences between two windows of rows, by row identity, not by
/// position: a row that moved is not changed; a row whose sort value
/// changed (and moved) is changed in that cell only.
package struct WindowDiff<RowID: Hashable & Sendable>: Equatable, Sendable {
    /// For each row of both windows whose cells changed, the indices of
    /// the changed cells, in increasing order. A cell that one of the
    /// windows lacks (the columns changed) is changed.
    package var changedCells: [RowID: [Int]]
    /// The rows of the new window that are new in its range (inserted,
    /// or moved there by an update), in window order. Always empty for a
    /// `.navigation`.
    package var addedRows: [RowID]
    /// The rows of the old window that left the range of the new one
    /// (deleted, or moved out by an update), in old window order. Always
    /// empty for a `.navigation`.
    package var departedRows: [RowID]

    package init(changedCells: [RowID: [Int]] = [:], addedRows: [RowID] = [], departedRows: [RowID] = []) {
        self.changedCells = changedCells
        self.addedRows = addedRows
        self.departedRows = departedRows
    }

    package init(from old: WindowSnapshot<RowID>, to new: WindowSnapshot<RowID>, cause: WindowChange) {
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

    package var isEmpty: Bool {
        changedCells.isEmpty && addedRows.isEmpty && departedRows.isEmpty
    }

    package var changeCount: Int {
        changedCells.count + addedRows.count + departedRows.count
    }

    // MARK: - Private

    private static func rowsByID(_ window: WindowSnapshot<RowID>) -> [RowID: Int] {
        var indices = [RowID: Int](minimumCapacity: window.rows.count)
        for (index, row) in window.rows.enumerated() where indices[row.id] == nil {
            indices[row.id] = index
        }
        return indices
    }

    private static func changedCells(_ old: [DatabaseValue], _ new: [DatabaseValue]) -> [Int] {
        (0..<max(old.count, new.count)).filter { index in
            guard index < old.count, index < new.count else { return true }
            return !old[index].isStoredIdentically(to: new[index])
        }
    }

    /// The rows of `window` that are missing from the other window while
    /// standing within its range: between two steady rows, or between a
    /// steady row and an end of the ordering that the other window reaches.
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
