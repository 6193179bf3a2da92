import Foundation

/// Draws the state into a new screen of its size: the picker or the table,
/// then the help or the whole row on top. Below 20x5 the screen only says
/// that it is too small; any size works, down to 0x0.
///
/// Changes show on the rows (a changed cell; a new row as a band across the
/// line), in the title (the row count's change since the last key, "+3")
/// and in the status line ("2 rows deleted", "3 new rows ↓").
func viewerRender(_ state: ViewerState) -> Screen {
    var screen = Screen(width: state.width, height: state.height)
    let layout = ViewerLayout(width: state.width, height: state.height)
    if layout.isTooSmall {
        screen.drawTooSmall(minimumWidth: ViewerLayout.minimumWidth, minimumHeight: ViewerLayout.minimumHeight)
    } else {
        var columnsNote = ""
        if let table = state.table {
            columnsNote = drawTable(table, state, layout, into: &screen)
        } else {
            drawPicker(state, layout, into: &screen)
        }
        drawFooter(state, layout, into: &screen)
        drawStatus(state, columnsNote: columnsNote, layout, into: &screen)
        switch state.overlay {
        case let .help(scroll):
            screen.drawHelpOverlay(viewerKeyBindings.map { ($0.keys, $0.description) }, scroll: scroll)
        case let .row(scroll):
            drawRowDetail(state, scroll: scroll, into: &screen)
        case nil:
            break
        }
    }
    if !state.useColor {
        screen.removeColors()
    }
    return screen
}

// MARK: - Styles

private enum Style {
    static let header = CellStyle(color: .header, bold: true)
    static let currentHeader = CellStyle(color: .header, bold: true, reverse: true)
    static let selection = CellStyle(color: .selection, bold: true, reverse: true)
    static let null = CellStyle(color: .null)
    static let selectedNull = CellStyle(color: .null, bold: true, reverse: true)
    /// Without colours, NULL is underlined: it must differ from the text "NULL".
    static let monochromeNull = CellStyle(underline: true)
    static let selectedMonochromeNull = CellStyle(bold: true, reverse: true, underline: true)
    static let status = CellStyle(color: .status)
    static let accent = CellStyle(color: .accent, bold: true)
    static let error = CellStyle(color: .error, bold: true)
    /// Underlined on the selection too.
    static let match = CellStyle(color: .accent, bold: true, underline: true)
    static let cursor = CellStyle(color: .status, reverse: true)
}

private let columnGap = ColumnPlan.gap

// MARK: - Picker

private func drawPicker(_ state: ViewerState, _ layout: ViewerLayout, into screen: inout Screen) {
    let entries = state.picker.entries
    let count = entries.map { "\($0.count) \($0.count == 1 ? "table" : "tables") " } ?? ""
    screen.drawTitleBar(" \(oneLine(state.databaseName)) — tables and views", trailing: [count], y: 0)
    guard let entries else {
        drawCentered("Loading…", y: layout.listY + layout.listRows / 2, into: &screen)
        return
    }
    guard !entries.isEmpty else {
        drawCentered("No tables", y: layout.listY + layout.listRows / 2, into: &screen)
        return
    }
    // The rows on screen only: a file may hold thousands of tables.
    let visible = entries.indices.clamped(to: state.picker.scrollTop..<(state.picker.scrollTop + layout.listRows))
    let counts = entries[visible].map { entry -> String in
        switch entry.count {
        case let .exact(value)?: return grouped(value)
        case let .estimated(value)?: return "~" + grouped(value)
        case let .atLeast(value)?: return grouped(value) + "+"
        case nil: return entry.isCounting ? "…" : "?"
        }
    }
    let kindWidth = max(4, entries[visible].map { TextWidth.width(of: $0.kind.word) }.max() ?? 0)
    let countWidth = max(4, counts.map { TextWidth.width(of: $0) }.max() ?? 0)
    let nameWidth = max(1, layout.width - 2 - kindWidth - countWidth - 2 * columnGap)
    let gap = String(repeating: " ", count: columnGap)
    func line(_ name: String, _ kind: String, _ count: String) -> String {
        " " + TextWidth.padded(name, toWidth: nameWidth) + gap + TextWidth.padded(kind, toWidth: kindWidth) + gap
            + String(repeating: " ", count: max(0, countWidth - TextWidth.width(of: count))) + count
    }
    screen.put(line("name", "kind", "rows"), x: 0, y: layout.headerY, style: Style.header)
    for row in 0..<layout.listRows {
        let index = state.picker.scrollTop + row
        guard index < entries.count else { break }
        let y = layout.listY + row
        let isSelected = index == state.picker.selectedIndex
        if isSelected {
            screen.fill(x: 0, y: y, width: layout.width, height: 1, style: Style.selection)
        }
        screen.put(
            line(RowDetail.name(entries[index].name), entries[index].kind.word, counts[index - visible.lowerBound]),
            x: 0, y: y, style: isSelected ? Style.selection : .plain)
    }
}

// MARK: - Table

/// What shows where the rows will be: being read, or not read at all when
/// the read failed again after the schema was read again (a view slower
/// than the timeout): no read runs until a key, and the status line says why.
private func noWindowText(_ table: TableState, _ state: ViewerState) -> String {
    guard table.isRecovering else { return "Loading…" }
    let isReading = state.pendingOpen != nil || table.observedRequest != nil
    return table.failure != nil && !isReading ? "Not read: a key tries again" : "Reading the schema again…"
}

/// Returns what the status line says of the columns that do not fit.
private func drawTable(_ table: TableState, _ state: ViewerState, _ layout: ViewerLayout, into screen: inout Screen) -> String {
    drawTableTitle(table, state, into: &screen)
    let source = table.viewed.source
    guard let window = table.window else {
        drawCentered(noWindowText(table, state), y: layout.listY + layout.listRows / 2, into: &screen)
        return ""
    }
    if let chart = table.chartBin {
        let drawing = ChartDrawing(table: table, bins: chart.bins, selected: chart.selected, layout: layout)
        if chart.bins.isEmpty {
            drawCentered(drawing.emptyText, y: layout.listY + layout.listRows / 2, into: &screen)
        }
        drawing.draw(into: &screen)
        return ""
    }
    let texts = window.rows.map { $0.map(CellText.init) }
    let plan = table.columnPlan(texts: texts, width: layout.width)
    let columns = plan.layout(firstColumn: table.firstColumn)
    for column in columns.shown {
        let name = RowDetail.name(source.columns[column.index].heading ?? source.columnNames[column.index])
        let alignRight = texts.contains { $0.indices.contains(column.index) && $0[column.index].alignment == .trailing }
        let cut = TextWidth.truncated(name, toWidth: column.width)
        let pad = String(repeating: " ", count: max(0, column.width - TextWidth.width(of: cut)))
        screen.put(alignRight ? pad + cut : cut + pad, x: column.x, y: layout.headerY,
                   style: column.index == table.currentColumn ? Style.currentHeader : Style.header)
    }
    if window.rows.isEmpty {
        drawCentered("No rows", y: layout.listY + layout.listRows / 2, into: &screen)
    }
    let selectedIndex = table.selectedIndex
    // The row ids of change highlighting, when it has something to show.
    let rowIDs = table.highlighter.isHighlighting ? table.highlighter.window?.rows.map(\.id) : nil
    // The rows that match the alert: a `!` in the margin.
    let alertMarks = state.alert.flatMap { $0.viewed?.target == table.viewed.target ? $0.matching : nil }
        .flatMap { matching in table.highlighter.window?.rows.map { matching.contains($0.id) } }
    for row in 0..<layout.listRows {
        let index = table.scrollTop + row
        guard index < window.rows.count else { break }
        let y = layout.listY + row
        let isSelected = index == selectedIndex
        // A row new in the window is a band across the whole line, the
        // gaps between its columns included.
        let band = rowIDs.flatMap { ids in
            ids.indices.contains(index) ? table.highlighter.rowHighlight(row: ids[index]) : nil
        }
        if isSelected || band != nil {
            screen.fill(x: 0, y: y, width: layout.width, height: 1,
                        style: (isSelected ? Style.selection : .plain).highlighted(band))
        }
        for column in columns.shown where texts[index].indices.contains(column.index) {
            let cell = texts[index][column.index]
            let style: CellStyle
            switch (cell.kind, isSelected) {
            case (.null, false): style = state.useColor ? Style.null : Style.monochromeNull
            case (.null, true): style = state.useColor ? Style.selectedNull : Style.selectedMonochromeNull
            case (_, true): style = Style.selection
            case (_, false): style = .plain
            }
            let highlight = rowIDs.flatMap { ids in
                ids.indices.contains(index) ? table.highlighter.highlight(row: ids[index], cell: column.index) : nil
            }
            let fitted = cell.fitted(toWidth: column.width)
            if cell.kind == .null {
                // The NULL style on the text only: an underline under the
                // blanks would look like a longer value.
                let blanks = isSelected ? Style.selection : CellStyle.plain
                screen.put(fitted, x: column.x, y: y, style: blanks.highlighted(highlight), maxWidth: column.width)
                let lead = fitted.prefix { $0 == " " }.count
                let text = fitted.dropFirst(lead).trimmingCharacters(in: .whitespaces)
                screen.put(text, x: column.x + lead, y: y, style: style.highlighted(highlight), maxWidth: column.width - lead)
            } else {
                screen.put(fitted, x: column.x, y: y, style: highlightedCell(style, highlight, fitted), maxWidth: column.width)
            }
            if let search = table.search, search.column ?? column.index == column.index, cell.kind == .text || cell.kind == .number {
                var match = isSelected ? Style.selection : Style.match
                match.underline = true
                drawMatches(of: search.text, in: fitted, x: column.x, y: y, width: column.width, style: match,
                            into: &screen)
            }
        }
        if let alertMarks, alertMarks.indices.contains(index), alertMarks[index] {
            screen.put("!", x: 0, y: y, style: isSelected ? Style.selection : Style.error)
        }
    }
    return columnsNote(columns, hiddenCount: source.columns.count - plan.order.count)
}

/// Scrolled off to the left ("← 2") or the right ("3 more columns →"), and
/// hidden with `-` ("1 hidden · = shows all").
private func columnsNote(_ columns: ColumnLayout, hiddenCount: Int) -> String {
    var parts: [String] = []
    if columns.hiddenLeft > 0 {
        parts.append("← \(columns.hiddenLeft)")
    }
    if columns.hiddenRight > 0 {
        parts.append("\(columns.hiddenRight) more \(columns.hiddenRight == 1 ? "column" : "columns") →")
    } else if columns.isLastCut {
        parts.append("last column cut →")
    }
    if hiddenCount > 0 {
        parts.append("\(hiddenCount) hidden · = shows all")
    }
    return parts.joined(separator: " · ")
}

/// ASCII letters in any case, as the search compares them.
private func drawMatches(
    of needle: String, in text: String, x: Int, y: Int, width: Int, style: CellStyle, into screen: inout Screen)
{
    let needle = Array(needle.lowercasedASCII)
    guard !needle.isEmpty else { return }
    let characters = Array(text.lowercasedASCII)
    var start = 0
    while start + needle.count <= characters.count {
        guard Array(characters[start..<(start + needle.count)]) == needle else {
            start += 1
            continue
        }
        let offset = TextWidth.width(of: String(Array(text)[..<start]))
        let match = String(Array(text)[start..<(start + needle.count)])
        screen.put(match, x: x + offset, y: y, style: style, maxWidth: max(0, width - offset))
        start += needle.count
    }
}

private func drawTableTitle(_ table: TableState, _ state: ViewerState, into screen: inout Screen) {
    let source = table.viewed.source
    var name = source.isQuery ? oneLine(source.name) : RowDetail.name(source.name)
    if let unit = table.chartBin?.bins.first?.unit, unit != "number", name.hasSuffix(" per time") {
        // A time chart's unit follows its span: "rows per day".
        name = String(name.dropLast("time".count)) + unit
    }
    var title = " \(oneLine(state.databaseName)) — " + (state.sheetTrail.map(oneLine) + [name]).joined(separator: " › ")
    if let column = table.viewed.ordering.sortColumn {
        title += " · by \(RowDetail.name(column)) \(table.viewed.ordering.descending ? "↓" : "↑")"
    } else if let terms = source.queryOrder?.terms, !terms.isEmpty {
        // The query's own ORDER BY, kept: said as a sort is.
        let names = terms.compactMap { term in
            source.columns.indices.contains(term.column)
                ? "\(RowDetail.name(source.columns[term.column].name)) \(term.descending ? "↓" : "↑")" : nil
        }
        title += " · by " + names.joined(separator: ", ")
    }
    // Not live after a failure; before the first window, loading. Live,
    // the screen may be paused, or follow the end.
    let live: String
    if !table.isLive {
        // A describe sheet's figures are read under the `…` rows they replace.
        let isReadingFigures: Bool
        if case let .sheet(sheet) = table.viewed.target, sheet.kind == .describe(figures: true) {
            isReadingFigures = table.failure == nil && !table.isRecovering
        } else {
            isReadingFigures = false
        }
        let isStopped = table.window != nil || table.isRecovering || table.failure != nil
        live = isStopped && !isReadingFigures ? "not live" : "loading"
    } else if let paused = table.paused {
        live = paused.counter.text
    } else {
        live = !state.seesOtherMachines ? "not live" : table.isFollowing ? "following" : "live"
    }
    let count: String
    // Before the first count, the database's estimate if it gives one.
    let shownCount = table.rowCount ?? table.rowCountEstimate
    let isApproximate = table.rowCount == nil || table.rowCountIsApproximate
    if let rowCount = shownCount, isApproximate, let known = knownRowCount(table), known > rowCount {
        // An estimate below the rows on screen ("row 57 of ~54"): what is
        // known for sure is said instead.
        count = grouped(known) + (table.window?.reachesEnd == true ? "" : "+")
    } else if let rowCount = shownCount {
        count = (isApproximate ? "~" : "") + grouped(rowCount)
    } else {
        // A count that failed says so in the status line.
        count = table.countFailure == nil ? "…" : "?"
    }
    // The row-count change since the last key, as the Hall of Fame shows it.
    if let change = table.highlighter.rowCountChangeText {
        title += " \(change)"
    }
    if let alert = state.alert, alert.matching != nil {
        title += " · ! \(alert.countText) matching"
    }
    var trailing: [String] = []
    // Polled, and why, when it fits: it tells how soon another machine's
    // commits show.
    if let liveness = state.liveness {
        if let row = selectedRowText(table) {
            trailing.append("row \(row) of \(count) · \(live) · \(oneLine(liveness)) ")
        }
        trailing += ["\(count) rows · \(live) · \(oneLine(liveness)) ", "\(count) · \(live) · \(oneLine(liveness)) "]
    }
    if let row = selectedRowText(table) {
        trailing.append("row \(row) of \(count) · \(live) ")
    }
    trailing += ["\(rowsText(count)) · \(live) ", "\(count) · \(live) "]
    if table.paused != nil {
        // Narrow: that the screen is paused matters more than the count.
        trailing.append("paused ")
    }
    trailing.append("\(count) ")
    if let filter = table.viewed.source.filter {
        // The filter is cut before the count and "live" are.
        let room = screen.width - TextWidth.width(of: title) - TextWidth.width(of: " · where ")
            - TextWidth.width(of: "\(count) · \(live) ") - 1
        title += " · where " + TextWidth.truncated(oneLine(filter), toWidth: max(3, room))
    }
    screen.drawTitleBar(title, trailing: trailing, y: 0)
}

// MARK: - Footer and status

private func drawFooter(_ state: ViewerState, _ layout: ViewerLayout, into screen: inout Screen) {
    let hints: [(key: String, text: String)]
    switch state.overlay {
    case .help:
        hints = HelpPage.footerHints(rows: viewerKeyBindings.count, screenHeight: state.height)
    case .row:
        hints = [("↑↓", "scroll"), ("Enter", "close"), ("Esc", "close"), ("t", "tables")]
    case nil where state.prompt != nil:
        if case let .error(text)? = state.message {
            // The status line holds the prompt: why it was rejected shows here.
            screen.put(TextWidth.truncated(text, toWidth: layout.width - 2), x: 1, y: layout.footerY, style: Style.error)
            return
        }
        switch state.prompt?.kind {
        case .search?:
            let other = state.prompt?.searchesAllColumns == true ? "this column" : "all columns"
            hints = [("Enter", "search"), ("Tab", other), ("Esc", "cancel")]
        case .findColumn?: hints = [("Enter", "go to column"), ("Esc", "cancel")]
        case .save?: hints = [("Enter", "save"), ("Esc", "cancel")]
        case .filter?: hints = [("Enter", "filter"), ("↑↓", "earlier filters"), ("Esc", "cancel")]
        case .alert?: hints = [("Enter", "alert (empty: off)"), ("Esc", "cancel")]
        default: hints = [("Enter", "open"), ("Esc", "cancel")]
        }
    case nil:
        if state.table == nil {
            hints = [("↑↓", "move"), ("Enter", "open"), ("?", "help"), ("q", "quit"), ("/", "find")]
                + (state.leftTarget != nil ? [("Esc", "back")] : [])
        } else if state.table?.viewed.target == .changesLog {
            // The log is in memory: no key that reads SQL.
            hints = [("↑↓", "move"), ("Enter", "go to the row"), ("s", "save"), ("y", "copy"), ("?", "help"), ("q", "back")]
        } else {
            // `:`, `s` and `y` come last, where the screen has room: ? and q
            // matter more.
            hints = [("↑↓", "move")] + viewerKeyBindings.compactMap(\.hint).map { hint in
                let parts = hint.split(separator: " ", maxSplits: 1).map(String.init)
                return (parts[0], parts.count > 1 ? parts[1] : "")
            } + [(":", "SQL"), ("s", "save"), ("y", "copy")]
        }
    }
    screen.drawKeyHints(hints, y: layout.footerY)
}

private func drawStatus(_ state: ViewerState, columnsNote: String, _ layout: ViewerLayout, into screen: inout Screen) {
    let y = layout.statusY
    if let prompt = state.prompt {
        drawPrompt(prompt, label: promptLabel(prompt, state.table), width: layout.width, y: y, into: &screen)
        return
    }
    var left: (text: String, style: CellStyle)?
    switch state.message {
    case let .error(text)?: left = (text, Style.error)
    case let .notice(text)?: left = (text, Style.status)
    case nil:
        if let saving = state.saving {
            left = (saving.statusText, Style.status)
        } else if let sort = state.table?.pendingSort {
            let natural = state.table?.viewed.source.queryOrder?.terms.isEmpty == false ? "the query's order" : "the natural order"
            left = (sort.column.map { "sorting by \(oneLine($0))…" } ?? "back to \(natural)…", Style.status)
        } else if let table = state.table, table.pendingFilter != nil {
            left = ("checking the filter…", Style.status)
        } else if let table = state.table, table.pendingSearch != nil {
            left = ("searching…", Style.status)
        } else if let table = state.table, table.isReadingWindow,
            table.viewed.cost == .scan || table.filterScannedRows != nil
        {
            // A window that scans: seconds on millions of rows. The keys
            // pressed meanwhile are applied when it arrives.
            left = ("reading…", Style.status)
        } else if let table = state.table, let notes = tableNotes(table) {
            left = (notes, Style.status)
        } else if let table = state.table, let whole = wholeRunText(table.viewed.source),
            table.filterScannedRows != nil || table.viewed.cost == .scan
        {
            // A view's or a query's rows are not what it reads: its cost is
            // not known, and no count of its rows stands for it.
            // No index would spare it: the reason of a table's scan is not said.
            left = (table.filterScannedRows != nil ? "filtered: \(whole)" : whole, Style.status)
        } else if let table = state.table, let scanned = table.filterScannedRows {
            let rows = scanned.isExact ? grouped(scanned.value) : "~" + grouped(scanned.value)
            left = ("filtered: each update scans \(rowsText(rows))", Style.status)
        } else if let table = state.table, table.viewed.cost == .scan {
            let rows = table.rowCount.map { rowsText(grouped($0)) } ?? "the whole table"
            left = ("\(scanReason(table)): each update scans \(rows)", Style.status)
        }
    }
    let right = TextWidth.truncated(columnsNote, toWidth: left == nil ? layout.width - 2 : (layout.width - 3) / 2)
    let rightWidth = TextWidth.width(of: right)
    screen.put(right, x: layout.width - 1 - rightWidth, y: y, style: Style.accent)
    if let left {
        let leftWidth = layout.width - 2 - rightWidth - (rightWidth > 0 ? 1 : 0)
        screen.put(TextWidth.truncated(left.text, toWidth: leftWidth), x: 1, y: y, style: left.style)
    }
}

/// What happened out of sight since the last look ("3 new rows ↓", "~40
/// new rows ↓" when estimated, "2 rows deleted").
private func tableNotes(_ table: TableState) -> String? {
    var notes: [String] = []
    if let (count, isExact) = table.newRowsBelow {
        notes.append((isExact ? "" : "~") + grouped(count) + (count == 1 ? " new row ↓" : " new rows ↓"))
    }
    if let deletions = table.highlighter.deletionsText {
        notes.append(deletions)
    }
    return notes.isEmpty ? nil : notes.joined(separator: " · ")
}

/// The search's label says where it looks: "/ (name) ", "/ (all columns) ".
private func promptLabel(_ prompt: ViewerPrompt, _ table: TableState?) -> String {
    switch prompt.kind {
    case .search:
        guard !prompt.searchesAllColumns else { return "/ (all columns) " }
        let names = table?.viewed.source.columnNames ?? []
        guard let column = table?.currentColumn, names.indices.contains(column) else { return "/" }
        return "/ (\(TextWidth.truncated(RowDetail.name(names[column]), toWidth: 20))) "
    case .filter: return "filter: "
    case .findTable: return "table: "
    case .query: return "SQL: "
    case .findColumn: return "column: "
    case .save: return "save to: "
    case .alert: return "alert when: "
    }
}

/// Scrolled so that the cursor shows, the cursor a reversed cell; a line
/// end shows as `⏎` (a pasted query keeps its lines).
private func drawPrompt(_ prompt: ViewerPrompt, label: String, width: Int, y: Int, into screen: inout Screen) {
    let labelWidth = TextWidth.width(of: label)
    let room = max(1, width - 2 - labelWidth)
    let characters = Array(prompt.text).map { $0 == "\n" ? "⏎" : $0 }
    let cursor = prompt.field.clampedCursor
    // The characters before the cursor that fit, leaving a cell for it.
    var first = cursor
    var used = 1
    while first > 0 {
        let next = TextWidth.width(of: String(characters[first - 1]))
        guard used + next <= room else { break }
        used += next
        first -= 1
    }
    let shown = TextWidth.truncated(String(characters[first...]), toWidth: room)
    screen.put(label, x: 1, y: y, style: Style.accent)
    screen.put(shown, x: 1 + labelWidth, y: y, style: .plain, maxWidth: room)
    let cursorX = 1 + labelWidth + TextWidth.width(of: String(characters[first..<cursor]))
    let under = cursor < characters.count ? String(characters[cursor]) : " "
    screen.put(under, x: cursorX, y: y, style: Style.cursor, maxWidth: max(0, width - 1 - cursorX))
    if cursorX < width {
        screen.cursor = (cursorX, y)
    }
}

// MARK: - The whole row

private func drawRowDetail(_ state: ViewerState, scroll: Int, into screen: inout Screen) {
    let box = Rect(x: 0, y: 1, width: screen.width, height: max(0, screen.height - 2))
    var title = "Row"
    if let table = state.table, let row = selectedRowText(table) {
        title += " \(row)"
    }
    screen.drawBox(x: box.x, y: box.y, width: box.width, height: box.height,
                   style: ChromeStyle.border, title: title, titleStyle: ChromeStyle.boxTitle)
    let lines = rowDetailLines(state)
    let page = RowDetail.page(height: state.height)
    let first = min(max(0, scroll), max(0, lines.count - page))
    let nameWidth = lines.map { TextWidth.width(of: $0.name) }.max() ?? 0
    for (offset, line) in lines.dropFirst(first).prefix(page).enumerated() {
        let y = box.y + 1 + offset
        // The field under the column cursor: what `y` copies.
        let isCurrent = !line.name.isEmpty && line.column == state.table?.currentColumn
        screen.put(line.name, x: box.x + 2, y: y, style: isCurrent ? Style.currentHeader : Style.header, maxWidth: box.width - 4)
        screen.put(line.value, x: box.x + 2 + nameWidth + 2, y: y, style: line.isNull ? (state.useColor ? Style.null : Style.monochromeNull) : .plain,
                   maxWidth: max(0, box.width - 4 - nameWidth - 2))
    }
    if lines.count > page {
        let more = " \(first + 1)–\(min(lines.count, first + page)) of \(lines.count) "
        let width = TextWidth.width(of: more)
        if width + 4 <= box.width {
            screen.put(more, x: box.x + box.width - 2 - width, y: box.y + box.height - 1, style: ChromeStyle.border)
        }
    }
}

// MARK: - Helpers

/// A bar's blocks (a frequency sheet's) take the background's color when
/// reversed: a changed bar is drawn in the change's color instead, not blank.
private func highlightedCell(_ style: CellStyle, _ highlight: CellHighlight?, _ text: String) -> CellStyle {
    var highlighted = style.highlighted(highlight)
    if highlight != nil, text.contains("█"), text.allSatisfy({ $0 == "█" || $0 == " " }) {
        highlighted.reverse = false
    }
    return highlighted
}

private func oneLine(_ text: String) -> String {
    RowDetail.oneLine(text)
}

private func scanReason(_ table: TableState) -> String {
    table.viewed.ordering.sortColumn == nil ? "no index for this order" : "sorted by an unindexed column"
}

/// A view's or a query's row count is not what it reads.
private func wholeRunText(_ source: RowSource) -> String? {
    guard source.identity == .none || source.isQuery else { return nil }
    return "each update runs the whole \(source.isQuery ? "query" : "view")"
}

private func rowsText(_ count: String) -> String {
    count == "1" ? "1 row" : "\(count) rows"
}

/// "~5,210" while counted again after a commit, "10,031+" while counted
/// beyond `ViewerWindow.rankLimit`.
private func selectedRowText(_ table: TableState) -> String? {
    switch table.selectedRowNumber {
    case let .exact(row)?: return grouped(row)
    case let .estimated(row)?: return "~" + grouped(row)
    case let .atLeast(row)?: return grouped(row) + "+"
    case nil: return nil
    }
}

/// The fewest rows there are: the window's and those counted before it.
private func knownRowCount(_ table: TableState) -> Int? {
    guard let window = table.window else { return nil }
    if window.reachesStart { return window.rows.count }
    switch table.rowsBeforeWindow {
    case let .exact(before)?, let .atLeast(before)?: return before + window.rows.count
    case .estimated?, nil: return nil
    }
}

func rowDetailLines(_ state: ViewerState) -> [RowDetail.Line] {
    guard let table = state.table, let values = state.rowViewValues else { return [] }
    return RowDetail.lines(
        names: table.viewed.source.columnNames, values: values, notes: table.viewed.source.referenceNotes,
        previous: state.rowViewPreviousValues(table),
        width: state.width)
}

private func drawCentered(_ text: String, y: Int, into screen: inout Screen) {
    let text = TextWidth.truncated(text, toWidth: screen.width - 2)
    screen.put(text, x: (screen.width - TextWidth.width(of: text)) / 2, y: y, style: Style.status)
}
