import Foundation

// MARK: - Keys

extension ViewerState {
    mutating func handle(_ key: Key) -> [ViewerEffect] {
        // The user looks at the screen: the row-count change counts from here.
        self.table?.highlighter.markAsSeen()
        let action = KeyBinding.action(for: key, in: viewerKeyBindings)
        // Ctrl-C and Ctrl-Z act everywhere, as the terminal's own keys would.
        if key == .control("c") { return [.quit] }
        if key == .control("z") { return [.suspend] }
        if let request = overwriteQuestion {
            return answerOverwrite(key, request)
        }
        if var paused = self.table?.paused, paused.isResuming, action != .pause {
            // The latest window is on its way (`.resumed`): the keys typed
            // meanwhile act on it, not on the frozen one.
            paused.deferredKeys.append(key)
            self.table?.paused = paused
            return []
        }
        if case let .mouse(event) = key {
            return handleMouse(event)
        }
        switch overlay {
        case let .help(scroll):
            overlay = scrolledHelp(action, from: scroll)
            return []
        case let .row(scroll):
            return handleRowOverlay(action, scroll: scroll)
        case nil:
            break
        }
        if prompt != nil {
            return handlePrompt(key)
        }
        let isTooSmall = ViewerLayout(width: self.width, height: self.height).isTooSmall
        guard let action else { return [] }
        // A screen too small to show anything: only quit and suspend act, so
        // that nothing changes unseen.
        if isTooSmall, action != .quit, action != .suspend {
            return []
        }
        message = nil
        if refuses(action) {
            return []
        }
        let opensSheet: Set<ViewerAction> = [.open, .query, .frequency, .describe, .columnsSheet, .followReference, .chart]
        if pendingSheet?.uncovers == true, opensSheet.contains(action) {
            // `q` is on its way to the sheet below: a sheet opened now would
            // cover the one closed.
            return []
        }
        switch action {
        case .help:
            overlay = .help(scroll: 0)
            return []
        case .suspend:
            return [.suspend]
        case .quit:
            return closeSheet()
        case .query:
            return openQueryPrompt()
        case .frequency:
            return openFrequencySheet()
        case .describe:
            return openDescribeSheet()
        case .columnsSheet:
            return openColumnsSheet()
        case .followReference:
            return followReference()
        case .alert:
            return openAlertPrompt()
        case .changesLog:
            return openChangesLog()
        case .chart:
            return openChartSheet()
        case .toggleHighlight:
            toggleHighlighting()
            return []
        case .close:
            if saving != nil { return stopSaving() }
            return close()
        case .tables:
            guard let table = self.table else { return [] }
            remember(table)
            self.table = nil
            pendingOpen = nil
            prompt = nil
            return leaveSource() + [.listTables]
        default:
            break
        }
        if self.table != nil {
            return handleTable(action)
        }
        return handlePicker(action)
    }

    /// Keys that do nothing on this sheet: those of columns on a chart,
    /// which draws bars; those that read SQL on the changes log (said).
    mutating func refuses(_ action: ViewerAction) -> Bool {
        let movesColumns: Set<ViewerAction> = [
            .columnLeft, .columnRight, .narrowColumn, .widenColumn, .hideColumn, .showAllColumns, .findColumn,
        ]
        if table?.chartBin != nil, movesColumns.contains(action) {
            return true
        }
        guard refusesOnChangesLog(action) else { return false }
        message = .notice("the changes log is in memory: it is not sorted, searched or read with SQL")
        return true
    }

    /// Esc: cancels the filter being checked, or clears the filter; on the
    /// picker, goes back to the table left. At the bottom, nothing: q quits.
    mutating func close() -> [ViewerEffect] {
        guard var table = self.table else {
            guard let target = leftTarget, pendingOpen == nil else { return [] }
            return openTarget(target)
        }
        if table.pendingFilter != nil {
            // The check is dropped (and interrupted), and the filter on
            // screen stays, counted again.
            table.pendingFilter = nil
            table.typedFilter = nil
            message = .notice("filter cancelled")
            guard table.observedRequest == nil else {
                self.table = table
                return [.stop(.filter)] + recount()
            }
            // Opened again from memory: no window was read yet; the rows,
            // unfiltered.
            table.filterScannedRows = nil
            self.table = table
            return [.stop(.filter)] + observeWindow() + recount()
        }
        if table.viewed.source.filter != nil {
            return requestFilter(nil)
        }
        return []
    }

    /// Opens a table or query, as `memory` says, else as it was when left
    /// with `t` this session.
    mutating func openTarget(_ target: ViewerTarget, memory: TableMemory? = nil) -> [ViewerEffect] {
        // Any other open replaces a sheet on its way (`openSheet`).
        pendingSheet = nil
        pendingOpen = target
        pendingMemory = memory
        replacesSheet = false
        let memory = memory ?? tableMemories[target]
        // The picker's counts are left: the table's own count reads on
        // their connection.
        return [.stop(.tableCounts), .open(target, sortColumn: memory?.sortColumn, descending: memory?.descending ?? false)]
    }

    /// Keeps how `table` is shown, for when it is opened again, and puts the
    /// picker's cursor on it.
    mutating func remember(_ table: TableState) {
        let target = table.viewed.target
        tableMemories[target] = table.memory
        leftTarget = target
        if case let .table(name) = target {
            picker.pendingSelection = name
            picker.select(name)
            clampPicker()
        }
    }

    /// `H`: change highlighting off, or on again, for the tables opened next too.
    mutating func toggleHighlighting() {
        highlightsChanges.toggle()
        table?.highlighter.isEnabled = highlightsChanges
    }

    mutating func handleTable(_ action: ViewerAction) -> [ViewerEffect] {
        guard var table = self.table else { return [] }
        let readsOtherRows: Set<ViewerAction> = [.sortAscending, .sortDescending, .search, .searchNext, .searchPrevious, .filter]
        if table.paused != nil, readsOtherRows.contains(action) {
            // The frozen rows are not the table's any more: sorting, searching
            // or filtering them would show rows that are not there.
            self.message = .notice("paused: Space shows the latest rows first")
            return []
        }
        switch action {
        case .follow:
            return toggleFollowing()
        case .pause:
            return togglePause()
        case .jumpToLast where table.isFollowing:
            // Following: at the end already.
            return []
        case .jumpToLast where table.follow != nil && !table.isFollowing:
            // End resumes following, as F does.
            return toggleFollowing()
        case .jumpToFirst, .jumpToLast:
            return jump(action)
        case .columnLeft, .columnRight, .narrowColumn, .widenColumn, .hideColumn, .showAllColumns:
            table.handleColumns(action, width: self.width, message: &self.message)
            self.table = table
            keepColumnInView()
            return []
        case .sortAscending, .sortDescending:
            return sort(descending: action == .sortDescending)
        case .open:
            if case let .sheet(sheet) = table.viewed.target {
                return openSelectedRowOfSheet(sheet)
            }
            if table.viewed.target == .changesLog {
                return openSelectedChange()
            }
            if table.selectedIndex != nil {
                overlay = .row(scroll: 0)
            }
            return []
        case .search:
            return openSearchPrompt()
        case .findColumn:
            prompt = ViewerPrompt(kind: .findColumn)
            return []
        case .filter:
            prompt = ViewerPrompt(kind: .filter, text: table.viewed.source.filter ?? "")
            return []
        case .searchNext, .searchPrevious:
            guard let search = table.search else {
                self.message = .notice("no search yet: / searches the current column")
                return []
            }
            guard table.pendingSearch == nil else {
                // Kept for when the search that runs has found its match.
                self.table?.queuedSearchSteps.append(action == .searchNext)
                return []
            }
            return startSearch(search, forward: action == .searchNext)
        case .moveUp, .moveDown, .pageUp, .pageDown:
            return moveSelection(action)
        case .copyCell:
            return copy(.cell(table.currentColumn))
        case .copyRow:
            return copy(.row)
        case .save:
            return openSavePrompt()
        default:
            return []
        }
    }
}

// MARK: - Picker and row overlay

extension ViewerState {
    mutating func handlePicker(_ action: ViewerAction) -> [ViewerEffect] {
        if picker.failure != nil {
            // The list failed: a key tries again at once.
            picker.failure = nil
            return [.listTables]
        }
        guard let entries = picker.entries, !entries.isEmpty else { return [] }
        let page = max(1, pageRows)
        var index = picker.selectedIndex
        switch action {
        case .moveUp: index -= 1
        case .moveDown: index += 1
        case .pageUp: index -= page
        case .pageDown: index += page
        case .jumpToFirst: index = 0
        case .jumpToLast: index = entries.count - 1
        case .open:
            return openTarget(.table(entries[index].name))
        case .search:
            prompt = ViewerPrompt(kind: .findTable)
            return []
        default:
            return []
        }
        picker.selectedIndex = index
        clampPicker()
        return []
    }
}

/// How many entries of the picker one `countTables` effect counts.
let pickerCountBatch = 32

extension ViewerState {
    /// Counts the picker's entries from index `from`, a batch at a time.
    mutating func countTables(from: Int) -> [ViewerEffect] {
        guard let entries = picker.entries, from < entries.count else { return [] }
        let batch = entries[from..<min(entries.count, from + pickerCountBatch)]
        return [.countTables(from: from, names: batch.map(\.name), kinds: batch.map(\.kind))]
    }

    /// Keeps the picker's selection on an entry, and on the screen.
    mutating func clampPicker() {
        let count = self.picker.entries?.count ?? 0
        let page = max(1, pageRows)
        var picker = self.picker
        picker.selectedIndex = min(max(0, picker.selectedIndex), max(0, count - 1))
        if picker.selectedIndex < picker.scrollTop {
            picker.scrollTop = picker.selectedIndex
        } else if picker.selectedIndex >= picker.scrollTop + page {
            picker.scrollTop = picker.selectedIndex - page + 1
        }
        picker.scrollTop = max(0, min(picker.scrollTop, count - page))
        self.picker = picker
    }

    /// The help overlay after a key: the moving keys scroll it, any other
    /// key closes it.
    func scrolledHelp(_ action: ViewerAction?, from scroll: Int) -> ViewerOverlay? {
        HelpPage.scroll(scroll, after: action, rows: viewerKeyBindings.count, screenHeight: height)
            .map { .help(scroll: $0) }
    }

    mutating func handleRowOverlay(_ action: ViewerAction?, scroll: Int) -> [ViewerEffect] {
        guard let action else { return [] }
        let page = RowDetail.page(height: self.height)
        let lineCount = rowDetailLines(self).count
        let lastScroll = max(0, lineCount - page)
        var scroll = scroll
        switch action {
        case .moveUp: scroll -= 1
        case .moveDown: scroll += 1
        case .pageUp: scroll -= page
        case .pageDown: scroll += page
        case .jumpToFirst: scroll = 0
        case .jumpToLast: scroll = lastScroll
        case .open, .quit, .close:
            overlay = nil
            return []
        case .help:
            overlay = .help(scroll: 0)
            return []
        case .tables:
            overlay = nil
            return handle(.character("t"))
        case .suspend:
            return [.suspend]
        case .findColumn, .save:
            return []
        case .copyCell:
            return copy(.cell(self.table?.currentColumn ?? 0))
        case .copyRow:
            return copy(.row)
        case .toggleHighlight:
            toggleHighlighting()
            return []
        case .pause:
            // The row stays as it is while read.
            return togglePause()
        case .columnLeft, .columnRight:
            return moveRowViewField(by: action == .columnLeft ? -1 : 1, scroll: scroll)
        case .narrowColumn, .widenColumn, .hideColumn, .showAllColumns, .follow,
             .sortAscending, .sortDescending, .search, .searchNext, .searchPrevious, .filter, .query, .frequency,
             .describe, .columnsSheet, .followReference, .alert, .changesLog, .chart:
            return []
        }
        overlay = .row(scroll: min(max(0, scroll), lastScroll))
        return []
    }
}

// MARK: - Messages

extension ViewerState {
    /// Shows the tables and views of the file, then counts their rows.
    mutating func tablesListed(_ entries: [PickerEntry]) -> [ViewerEffect] {
        if let failure = picker.failure, message == .error(failure) {
            message = nil
        }
        picker.failure = nil
        picker.entries = entries
        if let name = picker.pendingSelection {
            picker.pendingSelection = nil
            picker.select(name)
        }
        clampPicker()
        return countTables(from: 0)
    }

    /// Says why the tables could not be listed, and lists them again in a
    /// second.
    mutating func tablesFailed(_ error: String) -> [ViewerEffect] {
        // Tried again in a second, or at the next key: a lock or a hot
        // journal does not last.
        picker.failure = error
        message = .error(error)
        return [.retryListing(after: 1)]
    }

    /// Lists the tables again, unless a table is open or the listing works
    /// again.
    mutating func retryListing() -> [ViewerEffect] {
        guard table == nil, picker.failure != nil else { return [] }
        return [.listTables]
    }

    /// Takes the row counts of a batch of the picker's entries, and counts the
    /// next batch.
    mutating func tablesCounted(from: Int, names: [String], counts: [RowCount?]) -> [ViewerEffect] {
        let isListed = picker.entries.map { entries in
            from >= 0 && from + names.count <= entries.count
                && entries[from..<(from + names.count)].map(\.name) == names
        } ?? false
        guard isListed else { return [] }
        // In place (no other reference to the list meanwhile): it may hold
        // thousands of entries.
        for (offset, count) in counts.enumerated() where picker.entries?[from + offset].isCounting == true {
            picker.entries?[from + offset].count = count
            picker.entries?[from + offset].isCounting = false
        }
        return counts.count == names.count ? countTables(from: from + names.count) : []
    }
}
