import GRDB

// MARK: - Following a foreign key

extension ViewerState {
    /// `o`: the row that the current cell's foreign key points to, as the
    /// referenced table on top, that row selected; `q` comes back. Its
    /// values are read whole first where the window may hold them cut.
    mutating func followReference() -> [ViewerEffect] {
        guard var table, let column = table.currentColumnName else { return [] }
        let shownName = RowDetail.oneLine(column)
        guard case .table = table.viewed.target, let key = table.viewed.source.foreignKey(of: column) else {
            message = .notice("\(shownName) references no table")
            return []
        }
        guard let index = table.selectedIndex, let window = table.window, window.rows.indices.contains(index) else {
            return []
        }
        let names = table.viewed.source.columnNames
        let columns = key.columns.compactMap { names.firstIndex(of: $0) }
        guard columns.count == key.columns.count else {
            message = .notice("\(shownName) references \(RowDetail.oneLine(key.table)), whose key columns can not all be read")
            return []
        }
        let values = columns.map { window.rows[index][$0] }
        if let null = zip(key.columns, values).first(where: { $0.1.isNull })?.0 {
            message = .notice("\(RowDetail.oneLine(null)) is NULL: it points to no row of \(RowDetail.oneLine(key.table))")
            return []
        }
        guard zip(columns, values).contains(where: { table.mayHoldCut($0.1, column: $0.0) }) else {
            return openReferenced(key, values: values)
        }
        table.followedKey = key
        table.wholeRow = WholeRow(position: window.positions[index], shown: window.rows[index], values: nil)
        self.table = table
        return [.readWholeRow(table.viewed, window.positions[index])]
    }

    /// The referenced table on top, and the row of `key` whose values the
    /// referencing row holds (`row`: its values in the source's columns).
    mutating func openReferencedRow(_ key: ForeignKey, in row: [DatabaseValue]) -> [ViewerEffect] {
        guard let names = table?.viewed.source.columnNames else { return [] }
        let columns = key.columns.compactMap { names.firstIndex(of: $0) }
        guard columns.count == key.columns.count, columns.allSatisfy(row.indices.contains) else { return [] }
        return openReferenced(key, values: columns.map { row[$0] })
    }

    private mutating func openReferenced(_ key: ForeignKey, values: [DatabaseValue]) -> [ViewerEffect] {
        let match = RowSearch.KeyMatch(columns: key.referencedColumns, values: values)
        return openSheet(.table(key.table), locating: RowSearch.located(match, in: RowDetail.oneLine(key.table)))
    }
}

extension TableState {
    /// The window may hold `value` of the column at `column` cut: PostgreSQL's
    /// windows cut long values after `RowDetail.maximumBytes` characters.
    func mayHoldCut(_ value: DatabaseValue, column: Int) -> Bool {
        let source = viewed.source
        guard let shown = source.shownExpressions, shown.indices.contains(column),
            shown[column] != source.columnExpressions[column]
        else { return false }
        switch value.storage {
        case let .string(text): return text.unicodeScalars.count > RowDetail.maximumBytes
        case let .blob(data): return data.count > RowDetail.maximumBytes
        default: return false
        }
    }
}
