import GRDB

/// The selected row read whole for the row view (`TableState.wholeRow`),
/// where the windows read long values cut.
package struct WholeRow: Equatable, Sendable {
    /// The row's position, and its values in the window when it was asked for.
    package var position: RowPosition
    package var shown: [DatabaseValue]
    /// Its values whole; nil while read, or when they could not be.
    package var values: [DatabaseValue]?
}

extension ViewerState {
    /// The values that the row view shows: the selected row's, read whole
    /// when the window holds them cut and the read has come.
    var rowViewValues: [DatabaseValue]? {
        guard let table, let index = table.selectedIndex, let window = table.window,
              window.rows.indices.contains(index) else { return nil }
        if let whole = table.wholeRow, let values = whole.values, whole.position == window.positions[index],
           whole.shown == window.rows[index]
        {
            return values
        }
        return window.rows[index]
    }

    /// A read of the selected row whole while the row view shows it (or
    /// `o` waits for it) and the window holds its values cut: once per row
    /// and version of its shown values. The whole row is let go with the
    /// row view.
    mutating func readWholeRow() -> [ViewerEffect] {
        guard var table = self.table else { return [] }
        var isWanted = table.followedKey != nil || table.pendingCopy != nil
        if case .row = overlay { isWanted = true }
        guard isWanted, table.viewed.source.shownExpressions != nil,
              let index = table.selectedIndex, let window = table.window, window.rows.indices.contains(index)
        else {
            guard table.wholeRow != nil else { return [] }
            table.wholeRow = nil
            self.table = table
            return [.stop(.wholeRow)]
        }
        let position = window.positions[index]
        let shown = window.rows[index]
        if let whole = table.wholeRow, whole.position == position, whole.shown == shown { return [] }
        table.wholeRow = WholeRow(position: position, shown: shown, values: nil)
        self.table = table
        return [.readWholeRow(table.viewed, position)]
    }

    /// The row read whole: kept when it is still the one asked for.
    mutating func wholeRowRead(_ position: RowPosition, _ values: [DatabaseValue]?) -> [ViewerEffect] {
        guard var table = self.table, var whole = table.wholeRow, whole.position == position else { return [] }
        whole.values = values
        table.wholeRow = whole
        let followed = table.followedKey
        table.followedKey = nil
        self.table = table
        let copied = copyAfterWholeRow(values)
        // Gone meanwhile (nil): followed with the values shown.
        return copied + (followed.map { openReferencedRow($0, in: values ?? whole.shown) } ?? [])
    }
}
