import Foundation
import GRDB
import ReactiveGRDB

// MARK: - Columns

/// Moves the column cursor along the columns on screen, changes the
/// current column's width, hides it, or shows all columns again.
func handleColumns(
    _ action: ViewerAction, _ table: inout TableState, width: Int, message: inout ViewerStatusMessage?)
{
    let plan = table.columnPlan(width: width)
    let order = plan.order
    guard let position = order.firstIndex(of: table.currentColumn) else { return }
    let name = table.viewed.source.columnNames[table.currentColumn]
    switch action {
    case .columnLeft:
        table.currentColumn = order[max(0, position - 1)]
    case .columnRight:
        table.currentColumn = order[min(order.count - 1, position + 1)]
    case .narrowColumn, .widenColumn:
        let width = plan.widths[table.currentColumn]
        // A column narrower than the minimum ("id") is left as it is.
        if action == .narrowColumn ? width <= ColumnPlan.minimumWidth : width >= plan.maximumWidth { return }
        let step = action == .narrowColumn ? -ColumnPlan.widthStep : ColumnPlan.widthStep
        table.columnWidths[name] = min(max(ColumnPlan.minimumWidth, width + step), plan.maximumWidth)
    case .hideColumn:
        // The next column takes the cursor, or the previous one at the
        // end. Columns share a name in a query: they hide together.
        let candidates = Array(order[(position + 1)...]) + order[..<position].reversed()
        guard let next = candidates.first(where: { table.viewed.source.columnNames[$0] != name }) else {
            message = .notice("the last column stays shown")
            return
        }
        table.hiddenColumns.insert(name)
        table.currentColumn = next
    case .showAllColumns:
        table.hiddenColumns = []
    default:
        break
    }
}

/// Keeps the column cursor on a column shown, and scrolls sideways only as
/// far as it needs to be whole on screen: after a column key, a resize, or a
/// window whose values made columns wider.
func keepColumnInView(_ state: inout ViewerState) {
    guard var table = state.table else { return }
    let plan = table.columnPlan(width: state.width)
    if !plan.order.contains(table.currentColumn) {
        // Its column was dropped, or hidden by another of its name.
        table.currentColumn = plan.order.first { $0 >= table.currentColumn } ?? plan.order.last ?? 0
    }
    table.firstColumn = plan.firstColumn(showing: table.currentColumn, from: table.firstColumn)
    state.table = table
}
