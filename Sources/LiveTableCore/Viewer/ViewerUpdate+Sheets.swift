import Foundation

// MARK: - Sheets

/// Every view is a sheet: a new one opens on top of the one it came from,
/// and `q` goes back to it, as it was (`tableMemories`), read afresh.
extension ViewerState {
    /// `:`: the prompt holds what the sheet on screen runs, ready to edit.
    mutating func openQueryPrompt() -> [ViewerEffect] {
        var text = ""
        if let table {
            let source = table.viewed.source
            let ordering = table.viewed.ordering
            text = source.selectSQL(where: nil, orderBy: ordering.orderBy(forward: true), limit: false)
        }
        prompt = ViewerPrompt(kind: .query, text: text)
        return []
    }

    /// Enter on `:`: the query opens as a sheet on top, once it is known to
    /// open (a refused query goes back to its prompt); it is kept in the
    /// history.
    mutating func openSheet(_ sql: String) -> [ViewerEffect] {
        guard !sql.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return [] }
        queryHistory.add(sql)
        let effects = openTarget(.query(sql))
        pendingSheet = sql
        return [.recordQuery(sql)] + effects
    }

    /// The sheet that opened is pushed over the one on screen.
    mutating func pushSheet(covering table: TableState?) {
        guard pendingSheet != nil else { return }
        pendingSheet = nil
        if let table {
            remember(table)
        }
        sheets.append(table?.viewed.target)
    }

    /// A query that could not be opened: its prompt again, with the error.
    mutating func sheetFailed(_ error: String) {
        guard let sql = pendingSheet else { return }
        pendingSheet = nil
        prompt = ViewerPrompt(kind: .query, text: sql)
        message = .error(error)
    }

    /// `q`: back to the sheet below, as it was; from the last one, quit.
    mutating func closeSheet() -> [ViewerEffect] {
        guard let below = sheets.popLast() else { return [.quit] }
        prompt = nil
        overlay = nil
        if let table {
            remember(table)
        }
        guard let target = below else {
            self.table = nil
            pendingOpen = nil
            pendingSheet = nil
            return leaveSource() + [.listTables]
        }
        return openTarget(target)
    }

    /// Where the sheet on screen stands: the sheets under it, by name.
    var sheetTrail: [String] {
        sheets.map { target in
            switch target {
            case nil: "tables"
            case let .table(name)?: RowDetail.name(name)
            case .query?: "query"
            }
        }
    }
}
