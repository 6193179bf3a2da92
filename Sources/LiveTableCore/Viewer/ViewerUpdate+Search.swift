import Foundation
import ReactiveGRDB

// MARK: - Search and filter

extension ViewerState {
    /// A key in the prompt: Enter runs it, Esc closes it, the others edit it.
    mutating func handlePrompt(_ key: Key) -> [ViewerEffect] {
        guard var prompt = self.prompt else { return [] }
        switch key {
        case .escape:
            self.prompt = nil
            return []
        case .enter:
            self.prompt = nil
            message = nil
            switch prompt.kind {
            case .search:
                guard !prompt.text.isEmpty, let table = self.table else { return [] }
                // A new search: the `n` typed for the previous one are dropped.
                self.table?.queuedSearchSteps = []
                let column = prompt.searchesAllColumns ? nil : table.currentColumn
                return startSearch(TableSearch(text: prompt.text, column: column), forward: true)
            case .findColumn:
                findColumn(prompt.text)
                return []
            case .filter:
                filterHistory.add(prompt.text)
                let effects = requestFilter(prompt.text)
                self.table?.typedFilter = prompt.text
                return effects
            case .findTable:
                guard !prompt.text.isEmpty, let entries = picker.entries, entries.indices.contains(picker.selectedIndex)
                else { return [] }
                guard !tableMatches(prompt.text).isEmpty else {
                    // Enter would open the table the cursor happens to be on.
                    self.prompt = prompt
                    message = .error("no table matches \"\(prompt.text)\"")
                    return []
                }
                return openTarget(.table(entries[picker.selectedIndex].name))
            case .query:
                return openSheet(prompt.text)
            case .save:
                return startSave(prompt.text, prompt: prompt)
            case .alert:
                return requestAlert(prompt.text)
            }
        case .tab where prompt.kind == .search:
            prompt.searchesAllColumns.toggle()
            self.prompt = prompt
            return []
        case .up where prompt.kind == .filter, .down where prompt.kind == .filter:
            filterHistory.step(back: key == .up, walk: &prompt.walk, field: &prompt.field)
            self.prompt = prompt
            return []
        case .up where prompt.kind == .query, .down where prompt.kind == .query:
            queryHistory.step(back: key == .up, walk: &prompt.walk, field: &prompt.field)
            self.prompt = prompt
            return []
        case .up where prompt.kind == .findTable, .down where prompt.kind == .findTable:
            stepTableMatch(prompt.text, forward: key == .down)
            return []
        default:
            if prompt.field.edit(key) == .full {
                message = .error("a prompt takes at most \(grouped(prompt.field.maximumLength)) characters")
            }
            self.prompt = prompt
            if prompt.kind == .findTable {
                findTable(prompt.text)
            }
            return []
        }
    }

    /// `/`: in the mode of the table's last search, the current column or
    /// every column.
    mutating func openSearchPrompt() -> [ViewerEffect] {
        var prompt = ViewerPrompt(kind: .search)
        prompt.searchesAllColumns = table?.search.map { $0.column == nil } ?? false
        self.prompt = prompt
        return []
    }

    /// Puts the picker's cursor on the first table whose name starts with
    /// `text`, else on the first that holds it (ignoring case).
    mutating func findTable(_ text: String) {
        guard !text.isEmpty, let entries = picker.entries else { return }
        let names = entries.map { $0.name.lowercased() }
        let wanted = text.lowercased()
        guard let index = names.firstIndex(where: { $0.hasPrefix(wanted) }) ?? names.firstIndex(where: { $0.contains(wanted) })
        else {
            message = .error("no table matches \"\(text)\"")
            return
        }
        if case let .error(said)? = message, said.hasPrefix("no table matches") { message = nil }
        picker.selectedIndex = index
        clampPicker()
    }

    /// The picker's rows whose name holds `text` (ignoring case).
    func tableMatches(_ text: String) -> [Int] {
        let wanted = text.lowercased()
        guard let entries = picker.entries else { return [] }
        return entries.indices.filter { entries[$0].name.lowercased().contains(wanted) }
    }

    /// ↓ and ↑ in the find prompt: the cursor to the next or previous table
    /// whose name holds `text`, round.
    mutating func stepTableMatch(_ text: String, forward: Bool) {
        let matches = tableMatches(text)
        guard !text.isEmpty, !matches.isEmpty else { return }
        let current = picker.selectedIndex
        let next = forward
            ? matches.first { $0 > current } ?? matches[0]
            : matches.last { $0 < current } ?? matches[matches.count - 1]
        picker.selectedIndex = next
        clampPicker()
    }

    /// Searches from the selection, off the main thread; the result comes
    /// back as `.searched`.
    mutating func startSearch(_ search: TableSearch, forward: Bool) -> [ViewerEffect] {
        guard var table = self.table else { return [] }
        let request = RowSearch(text: search.text, column: search.column, forward: forward, from: table.selected)
        table.search = search
        table.pendingSearch = request
        self.table = table
        return [.search(table.viewed, request)]
    }

    /// Selects the match, then runs the next search that `n` or `N` asked
    /// for meanwhile, from it.
    mutating func found(_ result: RowSearchResult) -> [ViewerEffect] {
        guard let request = self.table?.pendingSearch, result.search == request else { return [] }
        var effects = select(result)
        if result.match != nil, var table = self.table, let search = table.search, !table.queuedSearchSteps.isEmpty {
            let forward = table.queuedSearchSteps.removeFirst()
            self.table = table
            effects += startSearch(search, forward: forward)
        }
        return effects
    }

    /// Selects the match: at once when the window holds it, or in a window
    /// anchored on it.
    mutating func select(_ result: RowSearchResult) -> [ViewerEffect] {
        guard var table = self.table, let request = table.pendingSearch else { return [] }
        table.pendingSearch = nil
        guard let match = result.match else {
            table.queuedSearchSteps = []
            self.table = table
            message = .notice("not found: \(RowDetail.oneLine(request.text))")
            return []
        }
        message = result.wrapped ? .notice("search wrapped") : nil
        let page = max(1, pageRows)
        table.pendingJump = nil
        table.pendingMove = 0
        // The match shows, even when paused since the search began.
        table.paused = nil
        // A match away from the end: following stops, as with any move away.
        let stopsFollowing = table.isFollowing
        if stopsFollowing {
            table.stopFollowing()
        }
        if let index = table.window?.positions.firstIndex(of: match) {
            table.place(at: index, page: page)
            self.table = table
            return stopsFollowing || table.needsWindow(page: page) ? observeWindow() : []
        }
        table.selected = match
        self.table = table
        return observeWindow()
    }

    /// Validates a filter (nil or empty: clears it), off the main thread; the
    /// result comes back as `.filtered` or `.filterFailed`.
    mutating func requestFilter(_ expression: String?) -> [ViewerEffect] {
        guard var table = self.table else { return [] }
        let text = expression?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        table.pendingFilter = text
        // The count of the rows on screen is left: the filter's check reads on
        // its connection, and the rows to count will be the filter's (counted
        // again when the check ends).
        table.countPacer = RefreshPacer(pacing: ViewerPacing.count)
        // So is the count of the rows before the selection, whose answer
        // would be for other rows, and which holds the same connection.
        table.stopsRowsBeforeCount()
        self.table = table
        return [.stop(.count), .stop(.rowsBefore), .filter(table.viewed, text.isEmpty ? nil : text)]
    }

    /// Takes a validated filter: the windows, the count and the position
    /// read the filtered source from now on.
    mutating func filtered(_ viewed: ViewedSource, scannedRows: RowCount?) -> [ViewerEffect] {
        guard var table = self.table, table.pendingFilter != nil, viewed.target == table.viewed.target else { return [] }
        if viewed.ordering != table.viewed.ordering {
            // Sorted while the filter was checked: checked again, in the order
            // on screen.
            return [.filter(table.viewed, viewed.source.filter)]
        }
        table.pendingFilter = nil
        table.typedFilter = nil
        table.startsOtherRows()
        table.viewed = viewed
        table.filterScannedRows = scannedRows
        // Other rows: the old window's are not shown under the new filter
        // (the selection waits for the new window, anchored on it), nothing
        // of them is a change, and the count starts again.
        table.window = nil
        table.highlighter.reset()
        table.rowCount = nil
        table.rowCountEstimate = nil
        // The count that runs is replaced (one count slot): counted afresh.
        table.countPacer = RefreshPacer(pacing: ViewerPacing.count)
        table.observedRequest = nil
        self.table = table
        if viewed.source.filter == nil {
            message = .notice("filter cleared")
        }
        return observeWindow() + recount()
    }
}

// MARK: - Messages

extension ViewerState {
    /// Says why the search failed, and drops the steps queued after it.
    mutating func searchFailed(_ error: String) -> [ViewerEffect] {
        guard table?.pendingSearch != nil else { return [] }
        table?.pendingSearch = nil
        table?.queuedSearchSteps = []
        message = .error(error)
        return []
    }

    /// Says why the filter failed: the previous one stays, or the rows show
    /// unfiltered.
    mutating func filterFailed(_ error: String) -> [ViewerEffect] {
        guard var table = self.table, table.pendingFilter != nil else { return [] }
        table.pendingFilter = nil
        message = .error(error)
        if let typed = table.typedFilter, overlay == nil, prompt == nil {
            // The rejected text comes back on the prompt, to be corrected.
            prompt = ViewerPrompt(kind: .filter, text: typed)
        }
        table.typedFilter = nil
        guard table.observedRequest == nil else {
            // The previous filter stays, counted again.
            self.table = table
            return recount()
        }
        // Opened again after a failure, the source no longer takes its
        // filter (a column was dropped): its rows, unfiltered. The failure
        // was the filter's: its message stays once the rows show.
        table.failure = nil
        table.filterScannedRows = nil
        table.window = nil
        self.table = table
        return observeWindow() + recount()
    }
}
