import Foundation
import GRDB

// MARK: - Sheets

/// Every view is a sheet: a new one opens on top of the one it came from,
/// and `q` goes back to it, as it was (`coveredSheets`), read afresh.
extension ViewerState {
    /// The sheets under the one on screen, bottom first; nil stands for the
    /// table picker.
    package var sheets: [ViewerTarget?] { coveredSheets.map(\.target) }

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
        return [.recordQuery(sql)] + openOnTop(.query(sql), PendingSheet(prompt: sql))
    }

    /// `#`: the frequency table of the current column, on top; on a
    /// describe sheet, of the selected row's column.
    mutating func openFrequencySheet() -> [ViewerEffect] {
        guard let table else { return [] }
        var frequency: DerivedSheet?
        if case let .sheet(sheet) = table.viewed.target, case .describe = sheet.kind {
            let column = table.selectedKeyValue(of: DerivedSheet.columnNameColumn).flatMap(String.fromDatabaseValue)
            frequency = sheet.frequencies.first { $0.key == [column] }
        } else if let column = table.currentColumnName {
            frequency = DerivedSheet.frequency(of: column, in: table.viewed)
        }
        guard let frequency else { return [] }
        // From its first group, even when opened before, as a chart: a
        // window around a remembered group runs the grouping three times.
        return openOnTop(.sheet(frequency), PendingSheet(), memory: TableMemory())
    }

    /// `I`: a row per column of the sheet, its figures coming once computed.
    mutating func openDescribeSheet() -> [ViewerEffect] {
        guard let table else { return [] }
        return openOnTop(.sheet(.describe(of: table.viewed)), PendingSheet())
    }

    /// A describe sheet without figures has opened: the one with them is
    /// read, to take its place (`replacesSheet`) as it is then shown.
    mutating func describeWithFigures(_ viewed: ViewedSource) -> [ViewerEffect] {
        guard case let .sheet(sheet) = viewed.target, case .describe(figures: false) = sheet.kind,
            let figuresSQL = sheet.figuresSQL, table?.viewed.target == viewed.target
        else { return [] }
        var full = sheet
        full.kind = .describe(figures: true)
        full.sql = figuresSQL
        full.figuresSQL = nil
        pendingOpen = .sheet(full)
        replacesSheet = true
        return [.open(.sheet(full), sortColumn: viewed.ordering.sortColumn, descending: viewed.ordering.descending)]
    }

    /// Enter on a sheet the viewer wrote: a frequency group's rows; on a
    /// describe or columns sheet, the sheet below with that column selected.
    mutating func openSelectedRowOfSheet(_ sheet: DerivedSheet) -> [ViewerEffect] {
        switch sheet.kind {
        case .frequency: return openSelectedGroup()
        case .chart: return openSelectedBin()
        case .describe, .columns: return showSelectedColumn()
        }
    }

    /// Enter on a frequency sheet: the rows of the selected group, as the
    /// sheet it counts filtered to that value, on top.
    mutating func openSelectedGroup() -> [ViewerEffect] {
        guard let table, case let .sheet(sheet) = table.viewed.target,
            let value = table.selectedKeyValue(of: sheet.key.first),
            let filter = sheet.groupFilter(value, dialect: table.viewed.source.dialect)
        else { return [] }
        return openBase(of: sheet, filteredBy: filter)
    }

    /// The sheet `sheet` was opened over, on top, filtered by `filter`
    /// (after its own), as it was left otherwise.
    mutating func openBase(of sheet: DerivedSheet, filteredBy filter: String) -> [ViewerEffect] {
        var memory = coveredSheets.last { $0.target == sheet.base }?.memory ?? tableMemories[sheet.base] ?? TableMemory()
        memory.filter = filter
        memory.selected = nil
        return openOnTop(sheet.base, PendingSheet(), memory: memory)
    }

    /// Opens `target` as `pending` says, to be pushed over the sheet on
    /// screen once it opens (`pushSheet`).
    mutating func openOnTop(_ target: ViewerTarget, _ pending: PendingSheet, memory: TableMemory? = nil) -> [ViewerEffect] {
        let effects = openTarget(target, memory: memory)
        pendingSheet = pending
        return effects
    }

    /// The sheet that opened is pushed over the one on screen.
    mutating func pushSheet(covering table: TableState?) {
        guard let pending = pendingSheet else { return }
        pendingSheet = nil
        guard !pending.uncovers else { return }
        if let table {
            remember(table)
        }
        coveredSheets.append(CoveredSheet(target: table?.viewed.target, memory: table.map(\.memory)))
    }

    /// A query that could not be opened: its prompt again, with the error.
    mutating func sheetFailed(_ error: String) {
        guard let pending = pendingSheet else { return }
        pendingSheet = nil
        if let uncovered = pending.uncovered {
            // Under the sheet still on screen again, for the next `q`.
            coveredSheets.append(uncovered)
        }
        if let sql = pending.prompt {
            prompt = ViewerPrompt(kind: .query, text: sql)
        }
        message = .error(error)
    }

    /// `q`: back to the sheet below, as it was; from the last one, quit.
    mutating func closeSheet() -> [ViewerEffect] {
        guard let below = coveredSheets.popLast() else { return [.quit] }
        prompt = nil
        overlay = nil
        if let table {
            remember(table)
        }
        guard let target = below.target else {
            self.table = nil
            pendingOpen = nil
            pendingSheet = nil
            return leaveSource() + [.listTables]
        }
        return openOnTop(target, PendingSheet(uncovered: below), memory: below.memory)
    }

    /// Where the sheet on screen stands: the sheets under it, by name.
    var sheetTrail: [String] {
        sheets.map { target in
            switch target {
            case nil: "tables"
            case let target?: ChangesLog.sheetName(of: target)
            }
        }
    }
}

extension TableState {
    var currentColumnName: String? {
        let names = viewed.source.columnNames
        return names.indices.contains(currentColumn) ? names[currentColumn] : nil
    }

    /// The selected row's value of the key column `name`, as stored.
    func selectedKeyValue(of name: String?) -> DatabaseValue? {
        guard let name, let selected, let expression = viewed.source.orderExpression(ofColumn: name),
            let index = viewed.ordering.keyColumns.firstIndex(where: { $0.expression == expression }),
            selected.key.indices.contains(index)
        else { return nil }
        return selected.key[index]
    }
}
