import Foundation

// MARK: - Columns

extension TableState {
    /// Moves the column cursor along the columns on screen, changes the
    /// current column's width, hides it, or shows all columns again.
    mutating func handleColumns(
        _ action: ViewerAction, width: Int, message: inout ViewerStatusMessage?)
    {
        let plan = columnPlan(width: width)
        let order = plan.order
        guard let position = order.firstIndex(of: currentColumn) else { return }
        let name = viewed.source.columnNames[currentColumn]
        switch action {
        case .columnLeft:
            currentColumn = order[max(0, position - 1)]
        case .columnRight:
            currentColumn = order[min(order.count - 1, position + 1)]
        case .narrowColumn, .widenColumn:
            let width = plan.widths[currentColumn]
            // A column narrower than the minimum ("id") is left as it is.
            if action == .narrowColumn ? width <= ColumnPlan.minimumWidth : width >= plan.maximumWidth { return }
            let step = action == .narrowColumn ? -ColumnPlan.widthStep : ColumnPlan.widthStep
            columnWidths[name] = min(max(ColumnPlan.minimumWidth, width + step), plan.maximumWidth)
        case .hideColumn:
            // The next column takes the cursor, or the previous one at the
            // end. Columns share a name in a query: they hide together.
            let candidates = Array(order[(position + 1)...]) + order[..<position].reversed()
            guard let next = candidates.first(where: { viewed.source.columnNames[$0] != name }) else {
                message = .notice("the last column stays shown")
                return
            }
            hiddenColumns.insert(name)
            currentColumn = next
        case .showAllColumns:
            hiddenColumns = []
        default:
            break
        }
    }
}

extension ViewerState {
    /// Keeps the column cursor on a column shown, and scrolls sideways only as
    /// far as it needs to be whole on screen: after a column key, a resize, or a
    /// window whose values made columns wider.
    mutating func keepColumnInView() {
        guard var table = self.table else { return }
        let plan = table.columnPlan(width: self.width)
        if !plan.order.contains(table.currentColumn) {
            // Its column was dropped, or hidden by another of its name.
            table.currentColumn = plan.order.first { $0 >= table.currentColumn } ?? plan.order.last ?? 0
        }
        table.firstColumn = plan.firstColumn(showing: table.currentColumn, from: table.firstColumn)
        // Widths stay put as rows scroll: they grow for a wider value, never narrow.
        for (name, width) in zip(table.viewed.source.columnNames, plan.naturalWidths)
        where width > table.seenWidths[name] ?? 0 {
            table.seenWidths[name] = width
        }
        self.table = table
    }
}

extension ViewerState {
    /// Enter at `c`: the column cursor to the first column shown whose name
    /// holds `text` (ignoring case), from the one after it, round (as
    /// VisiData and pspg do); scrolled into view. No match leaves it.
    mutating func findColumn(_ text: String) {
        guard !text.isEmpty, var table = self.table else { return }
        let order = table.columnPlan(width: width).order
        guard !order.isEmpty else { return }
        let names = table.viewed.source.columnNames
        let wanted = text.lowercased()
        let position = order.firstIndex(of: table.currentColumn) ?? order.count - 1
        let candidates = order[(position + 1)...] + order[...position]
        guard let match = candidates.first(where: { names[$0].lowercased().contains(wanted) }) else {
            let hiddenMatch = table.hiddenColumns.contains { $0.lowercased().contains(wanted) }
            let said = RowDetail.oneLine(text)
            message = .error(hiddenMatch ? "only hidden columns match \"\(said)\": = shows all" : "no column matches \"\(said)\"")
            return
        }
        table.currentColumn = match
        self.table = table
        keepColumnInView()
    }
}
