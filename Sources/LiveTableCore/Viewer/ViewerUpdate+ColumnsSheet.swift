import GRDB

// MARK: - The columns sheet

extension ViewerState {
    /// `C`: the columns of the table on screen, as a sheet on top, its
    /// selection on the current column. A query's columns are its header.
    mutating func openColumnsSheet() -> [ViewerEffect] {
        guard let table else { return [] }
        guard let sheet = DerivedSheet.columns(of: table.viewed) else {
            message = .notice("a query's columns are its header: C lists a table's")
            return []
        }
        let locate = table.currentColumnName.map { name in
            RowSearch.located(
                RowSearch.KeyMatch(columns: [DerivedSheet.columnNameColumn], values: [name.databaseValue]),
                in: sheet.name)
        }
        return openSheet(.sheet(sheet), locating: locate)
    }

    /// Enter on a columns or describe sheet: back to the sheet below, its
    /// column cursor on the selected column (shown if it was hidden).
    mutating func showSelectedColumn() -> [ViewerEffect] {
        guard let table, case let .sheet(sheet) = table.viewed.target,
            let value = table.selectedKeyValue(of: DerivedSheet.columnNameColumn),
            let name = String.fromDatabaseValue(value)
        else { return [] }
        if let below = coveredSheets.indices.last, coveredSheets[below].target == sheet.base,
            var memory = coveredSheets[below].memory
        {
            memory.currentColumn = name
            memory.hiddenColumns.remove(name)
            coveredSheets[below].memory = memory
        }
        return closeSheet()
    }

    /// Opens `target` on top, as it was last shown but unfiltered, and
    /// selects the row `locate` finds once it is open.
    mutating func openSheet(_ target: ViewerTarget, locating locate: RowSearch?) -> [ViewerEffect] {
        var memory = tableMemories[target] ?? TableMemory()
        memory.filter = nil
        memory.selected = nil
        return openOnTop(target, PendingSheet(locate: locate), memory: memory)
    }

    /// Once the sheet that `o` or `C` opened is on screen: the search for
    /// its row, whose match `found(_:)` selects (or says is missing).
    mutating func locateRow(_ locate: RowSearch?, in viewed: ViewedSource) -> [ViewerEffect] {
        // Pushed: `opened(_:)` took the pending sheet.
        guard let locate, pendingSheet == nil, var table, table.viewed.target == viewed.target else { return [] }
        table.pendingSearch = locate
        self.table = table
        return [.search(table.viewed, locate)]
    }
}

extension RowSearch {
    /// The row whose columns hold `key`'s values, from the start; its text
    /// says which, for the status line when it is not found.
    static func located(_ key: KeyMatch, in sheet: String) -> RowSearch {
        let values = zip(key.columns, key.values).map { "\($0) = \(CellText($1).text)" }
        var search = RowSearch(text: "\(sheet): " + values.joined(separator: ", "), column: nil, forward: true, from: nil)
        search.key = key
        return search
    }
}
