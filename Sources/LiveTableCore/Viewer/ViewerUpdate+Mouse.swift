import Foundation

// MARK: - The mouse

/// How many rows a notch of the wheel moves.
let wheelRows = 3

extension ViewerState {
    /// The wheel moves the selection as ↑ ↓ would, three rows a notch; a
    /// click selects the row and the column under it (a column on the
    /// header); the second press of a double click does what Enter does.
    /// Prompts take no mouse event: their line is typed.
    mutating func handleMouse(_ event: MouseEvent) -> [ViewerEffect] {
        guard prompt == nil else { return [] }
        switch event.action {
        case .wheelUp, .wheelDown:
            // On the help, as on the rows: ↑ ↓ scroll it.
            var effects: [ViewerEffect] = []
            for _ in 0..<wheelRows {
                effects += handle(event.action == .wheelUp ? .up : .down)
            }
            return effects
        case .press where event.button == 0:
            return click(event)
        default:
            return []
        }
    }

    private mutating func click(_ event: MouseEvent) -> [ViewerEffect] {
        if case .help = overlay {
            overlay = nil
            return []
        }
        let layout = ViewerLayout(width: width, height: height)
        guard overlay == nil, !layout.isTooSmall else { return [] }
        let listRow = event.y - layout.listY
        guard let table else {
            guard (0..<layout.listRows).contains(listRow), let entries = picker.entries else { return [] }
            let index = picker.scrollTop + listRow
            guard entries.indices.contains(index) else { return [] }
            picker.selectedIndex = index
            clampPicker()
            return event.clickCount == 2 ? handle(.enter) : []
        }
        if event.y == layout.headerY {
            selectColumn(at: event.x)
            return []
        }
        guard (0..<layout.listRows).contains(listRow), let window = table.window,
              let selectedIndex = table.selectedIndex else { return [] }
        let index = table.scrollTop + listRow
        guard window.rows.indices.contains(index) else { return [] }
        message = nil
        selectColumn(at: event.x)
        let effects = moveSelection(by: index - selectedIndex)
        guard event.clickCount == 2, self.table?.selectedIndex == index else { return effects }
        return effects + handle(.enter)
    }

    /// Makes the column drawn at `x` the current one, whole on screen.
    private mutating func selectColumn(at x: Int) {
        guard var table else { return }
        let shown = table.columnPlan(width: width).layout(firstColumn: table.firstColumn).shown
        // The gap after a column is its own.
        guard let column = shown.first(where: { (x >= $0.x) && x < $0.x + $0.width + ColumnPlan.gap }) else { return }
        table.currentColumn = column.index
        self.table = table
        keepColumnInView()
    }
}
