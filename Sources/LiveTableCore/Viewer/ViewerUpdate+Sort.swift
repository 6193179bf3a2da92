import Foundation
import GRDB

// MARK: - Sorting

extension ViewerState {
    /// Sorts by the current column (`[`, `]`), or goes back to the natural
    /// order when the column is sorted that way already: the source is opened
    /// again in the new order, off the main thread, and the status line says
    /// "sorting by …" until its first window arrives.
    mutating func sort(descending: Bool) -> [ViewerEffect] {
        guard var table = self.table, !table.isRecovering else { return [] }
        let columns = table.viewed.source.columns
        guard columns.indices.contains(table.currentColumn) else { return [] }
        let column = columns[table.currentColumn].name
        let shown = table.viewed.ordering
        // The order the keys act on: the one asked for, if it has not come yet.
        let current = table.pendingSort ?? PendingSort(column: shown.sortColumn, descending: shown.descending)
        let wanted = current.column == column && current.descending == descending
            ? PendingSort(column: nil, descending: false)
            : PendingSort(column: column, descending: descending)
        if wanted.column == shown.sortColumn && wanted.descending == shown.descending {
            // Back to the order on screen before the sort that is on its way:
            // that sort's opening is left, and the order on screen observed
            // again.
            table.pendingSort = nil
            pendingOpen = nil
            self.table = table
            return [.stop(.open)] + observeWindow()
        }
        table.pendingSort = wanted
        // The window of the order on screen is left: its read (a scan, for an
        // order without index) would hold the connection that opens the new
        // order. It is observed again if the new order can not be opened.
        table.observedRequest = nil
        // The count of the rows before the selection too: it counts in the
        // order on screen, and would hold the connection as long.
        table.stopsRowsBeforeCount()
        self.table = table
        pendingOpen = table.viewed.target
        // A sheet on its way is left for it.
        pendingSheet = nil
        return [.stop(.window), .stop(.rowsBefore),
                .open(table.viewed.target, sortColumn: wanted.column, descending: wanted.descending)]
    }

    /// Shows the source in the order it was just opened in, for the pending
    /// sort: the selected row stays selected, by its identity (rowid or
    /// primary key), at its screen row; a row without identity (a view, a
    /// query) can not be found in the new order, and the first row is
    /// selected. Its window is observed; the rows on screen stay until it
    /// comes.
    mutating func sorted(_ viewed: ViewedSource) -> [ViewerEffect] {
        guard var table = self.table else { return [] }
        var viewed = viewed
        let filter = table.viewed.source.filter
        let keepsFilter = filter != nil && viewed.schemaVersion == table.viewed.schemaVersion
        if keepsFilter {
            // The same schema: the filtered source, in the new order.
            viewed.source = table.viewed.source
        }
        // The selection stays on its row, unless Home or End came after the
        // key: the window then opens at that end of the new order. On the
        // first row, it goes to the new first row: the user sorted to see it.
        let isOnFirstRow = table.selectedIndex == 0 && table.window?.reachesStart == true
        table.selected = table.pendingJump != nil || isOnFirstRow
            ? nil : table.selectedIndex.flatMap { table.position(ofRow: $0, in: viewed) }
        table.pendingSort?.keepsRow = table.selected != nil
        if table.selected == nil {
            table.selectedRow = 0
            table.scrollTop = 0
        }
        table.viewed = viewed
        table.pendingSort?.isOpened = true
        table.startsOtherRows()
        if let filter, !keepsFilter {
            // The schema changed meanwhile: the filter is validated again on
            // it, before the sorted rows are observed (`.filtered`).
            table.pendingFilter = filter
            table.observedRequest = nil
            self.table = table
            return [.filter(viewed, filter)]
        }
        self.table = table
        return observeWindow()
    }
}

extension TableState {
    /// What no longer holds once the rows are read in another order or
    /// through another filter: a search under way (its match is a position
    /// of the old rows), the mark of following stopped (its last row and
    /// count are of the old rows), the rows counted before the window (a
    /// count that runs is of the old rows: its result is dropped), and a
    /// pause (the user asked for the new rows: they show).
    mutating func startsOtherRows() {
        rowsBeforeWindow = nil
        pendingSearch = nil
        pendingMove = 0
        queuedSearchSteps = []
        if case .stopped? = follow {
            follow = nil
        }
        paused = nil
    }

    /// The position, in the ordering of `viewed`, of row `index` of the
    /// table's window: its identity from its position in the previous
    /// ordering, its sort value from its values (the window's fetch finds the
    /// row by identity anyway, should the value have changed). Nil without
    /// identity.
    func position(ofRow index: Int, in viewed: ViewedSource) -> RowPosition? {
        guard viewed.source.identity != .none, let window = self.window,
            window.positions.indices.contains(index), window.rows.indices.contains(index) else { return nil }
        let previous = self.viewed.ordering.keyColumns.map(\.expression)
        let previousKey = window.positions[index].key
        let row = window.rows[index]
        var key: [DatabaseValue] = []
        for column in viewed.ordering.keyColumns {
            if let at = previous.firstIndex(of: column.expression), previousKey.indices.contains(at) {
                key.append(previousKey[at])
            } else if let at = viewed.source.columnExpressions.firstIndex(of: column.expression), row.indices.contains(at) {
                key.append(row[at])
            } else {
                return nil
            }
        }
        return RowPosition(key: key)
    }
}
