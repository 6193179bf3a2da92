import Foundation

// MARK: - The source: opening, failures, counting

extension ViewerState {
    /// Takes an opened source: a sort on its way, a source opened again after a
    /// failure, or a new one (a sheet, even of the same source: `o` from a
    /// row to the row it references in its own table).
    mutating func opened(_ viewed: ViewedSource) -> [ViewerEffect] {
        guard pendingOpen == viewed.target else { return [] }
        pendingOpen = nil
        if let table = self.table, table.viewed.target == viewed.target,
            let sort = table.pendingSort, !sort.isOpened
        {
            pendingSheet = nil
            return sorted(viewed) + describeWithFigures(viewed)
        }
        if var table = self.table, table.viewed.target == viewed.target, pendingSheet == nil {
            // Opened again after a failure: keep the selection, unless the
            // key changed shape with the schema.
            if table.selected?.key.count != viewed.ordering.keyColumns.count {
                table.selected = nil
            }
            if table.reopensFile {
                table.reopensFile = false
                message = .notice("file replaced: reopened")
            }
            let filter = table.viewed.source.filter
            table.viewed = viewed
            if let filter {
                // The filter, validated again on the source as it is now,
                // before the windows are observed again (`.filtered`).
                table.pendingFilter = filter
                self.table = table
                return [.filter(viewed, filter)]
            }
            self.table = table
        } else {
            // A describe sheet's figures: its rows (`…`) stay on screen until
            // the sheet's own first window.
            var shownUntilRead: RowWindow?
            if replacesSheet {
                replacesSheet = false
                pendingMemory = self.table?.memory
                shownUntilRead = self.table?.window
            }
            pushSheet(covering: self.table)
            var table = TableState(viewed: viewed)
            table.highlighter.isEnabled = highlightsChanges
            overlay = nil
            if let notice = Self.openingNotice(viewed) {
                message = notice
            }
            table.window = shownUntilRead
            if let memory = pendingMemory ?? tableMemories[viewed.target] {
                table.restore(memory)
                if let filter = memory.filter {
                    // Validated again on the table as it is now, before its rows
                    // are observed (`.filtered`).
                    table.pendingFilter = filter
                    self.table = table
                    return [.filter(viewed, filter)]
                }
            }
            self.table = table
        }
        // A query's count runs the whole query: it waits for the first window
        // (`show`), which it would slow down.
        return observeWindow() + (viewed.source.isQuery ? [] : recount()) + describeWithFigures(viewed)
    }

    /// What the status line says once when `viewed` opens: that the
    /// order shown is not all that a query's `ORDER BY` asked for; nil
    /// otherwise (a sort asked for replaces the query's order).
    static func openingNotice(_ viewed: ViewedSource) -> ViewerStatusMessage? {
        guard viewed.ordering.sortColumn == nil, let notice = viewed.source.queryOrder?.unkeptNotice else { return nil }
        return .notice(notice)
    }

    /// Says why a source could not be opened, and recovers as the failure
    /// allows.
    mutating func openFailed(_ error: String, _ kind: ViewerFailureKind) -> [ViewerEffect] {
        guard let pendingOpenFailed = pendingOpen else { return [] }
        pendingOpen = nil
        sheetFailed(error)
        message = .error(error)
        // A sort that can not be opened (its column was dropped meanwhile):
        // the order on screen stays, observed again.
        let wasSorting = self.table?.pendingSort != nil
        self.table?.pendingSort = nil
        guard var table = self.table else {
            // Still on the picker. What was kept of the table (its sort column
            // was dropped?) is forgotten: the next Enter opens it as it is.
            tableMemories[pendingOpenFailed] = nil
            if kind == .missingSource || kind == .fileReplaced {
                // The list is stale (another file took the path?): listed again.
                return [.listTables]
            }
            // Its counts, left for the opening, go on.
            let next = picker.entries?.firstIndex { $0.isCounting }
            return next.map { countTables(from: $0) } ?? []
        }
        guard table.isRecovering else {
            return wasSorting ? observeWindow() : []
        }
        switch kind {
        case .missingSource:
            // The table is gone (dropped, renamed), or a column it is
            // sorted by: back to the picker, which lists what is there now.
            self.table = nil
            overlay = nil
            prompt = nil
            return leaveSource() + [.listTables]
        case .transient:
            // Locked, or a hot journal: the rows stay, `not live`, and the
            // window is observed again, which reads on the next commit.
            table.failure = error
            table.isRecovering = false
            table.observedRequest = nil
            self.table = table
            return observeWindow()
        case .other:
            // The rows stay, `not live`, with the error, until a key.
            table.failure = error
            self.table = table
            return []
        case .fileReplaced:
            // No file at the path for now (a remount under way): the rows
            // stay, `not live`, until one is there.
            table.failure = error
            table.reopensFile = true
            self.table = table
            return [.retryOpen(after: Self.reopenDelay)]
        }
    }

    /// How long the view waits before it looks again for a file at its
    /// path: 1 s.
    static let reopenDelay: Double = 1

    /// Opens the file now at the path again, in the same table and order.
    mutating func reopenFile() -> [ViewerEffect] {
        guard var table = self.table, pendingOpen == nil else { return [] }
        table.isLive = false
        table.isRecovering = true
        table.reopensFile = true
        table.pendingSort = nil
        return openAgain(table)
    }

    /// Looks again for a file at the path, unless the view left meanwhile.
    mutating func retryOpen() -> [ViewerEffect] {
        guard table?.isRecovering == true else { return [] }
        return reopenFile()
    }

    /// Says why the window could not be read, and reads the schema again unless
    /// it failed already.
    mutating func windowFailed(_ error: String, _ kind: ViewerFailureKind) -> [ViewerEffect] {
        guard var table = self.table else { return [] }
        table.isLive = false
        table.failure = error
        if kind == .fileReplaced {
            message = .error(error)
            self.table = table
            // Failed again before any window (the same file after all): in
            // a second, not in a loop.
            return table.isRecovering ? [.retryOpen(after: Self.reopenDelay)] : reopenFile()
        }
        if kind == .transient {
            // The observation goes on: it reads again on the next commit
            // (or key), and the rows stay meanwhile.
            message = .error(error)
            self.table = table
            return []
        }
        table.observedRequest = nil
        // The schema is read again in the order observed: a sort on its way
        // is dropped.
        table.pendingSort = nil
        message = .error(error)
        if table.isRecovering {
            // It failed again before any window: stop retrying.
            self.table = table
            return []
        }
        // Read the schema again: the table may have been altered, dropped,
        // or locked for a moment.
        table.isRecovering = true
        self.table = table
        pendingOpen = table.viewed.target
        pendingSheet = nil
        return [.open(table.viewed.target, sortColumn: table.viewed.ordering.sortColumn,
                      descending: table.viewed.ordering.descending)]
    }

    /// Takes the row count, and says when to count again.
    mutating func counted(_ count: Int, isExact: Bool, seconds: Double) -> [ViewerEffect] {
        guard var table = self.table, table.countPacer.phase == .reading else { return [] }
        if let failure = table.countFailure, message == .error(failure) {
            message = nil
        }
        table.countFailure = nil
        table.countShownAsIs = isExact && table.rowCount == nil
        table.rowCount = count
        if isExact, var counted = table.highlighter.window, let now = table.highlighter.now {
            // For the title's row-count change: the same rows again, with
            // the count, highlight nothing new.
            counted.rowCount = count
            table.highlighter.take(counted, cause: .update, at: now)
        }
        // A commit landed between the reads of the count: count again.
        let pause = table.countPacer.readDidEnd(afterReadingFor: seconds, sawChange: !isExact)
        self.table = table
        return pause.map { [.pauseCounting(seconds: $0)] } ?? []
    }

    /// Takes the database's estimate of the row count, for the title
    /// until the first count ends; a count already taken is worth more.
    mutating func countEstimated(_ estimate: Int) -> [ViewerEffect] {
        guard var table = self.table, table.countPacer.phase == .reading, table.rowCount == nil else { return [] }
        table.rowCountEstimate = estimate
        self.table = table
        return []
    }

    /// Counts again after the pause, when commits came meanwhile.
    mutating func countPauseEnded() -> [ViewerEffect] {
        guard var table = self.table else { return [] }
        let countsAgain = table.countPacer.pauseDidEnd()
        self.table = table
        return countsAgain ? [.count(table.viewed.source, estimating: table.rowCount == nil)] : []
    }

    /// Says once that other processes' commits are polled, and why.
    mutating func noteLiveness(note: String, reason: String?) -> [ViewerEffect] {
        // Each window's observation reports it: the status line says it
        // once, the title all along.
        guard liveness != note || !seesOtherMachines else { return [] }
        // A file no longer in WAL (turned back, or replaced): live again.
        seesOtherMachines = true
        liveness = note
        if let reason {
            message = .notice("other processes' commits are polled: \(reason)")
        }
        return []
    }

    /// Says that other machines' commits can not be seen: the title says
    /// `not live` from now on, and the status line why.
    mutating func commitsUnseen(note: String, reason: String) -> [ViewerEffect] {
        guard seesOtherMachines || liveness != note else { return [] }
        seesOtherMachines = false
        liveness = note
        message = .error(reason)
        return []
    }

    /// Says why the rows could not be counted, and counts again after the next
    /// commit.
    mutating func countFailed(_ error: String) -> [ViewerEffect] {
        // The title shows "?" and the status line why; counted again
        // after the next commit (a row fixed), not before: the same rows
        // would fail the same way.
        guard var table = self.table, table.countPacer.phase == .reading else { return [] }
        table.countFailure = error
        message = .error(error)
        let pause = table.countPacer.readDidEnd(afterReadingFor: 0, sawChange: false)
        self.table = table
        return pause.map { [.pauseCounting(seconds: $0)] } ?? []
    }
}

extension TableState {
    /// Shows the table as it was left (`TableMemory`): its columns, and its
    /// selection when the order is the same.
    /// How it is shown, to be shown so again.
    var memory: TableMemory {
        let names = viewed.source.columnNames
        // A filter being checked is the one asked for ("" clears it).
        let filter = pendingFilter.map { $0.isEmpty ? nil : $0 } ?? viewed.source.filter
        return TableMemory(
            sortColumn: viewed.ordering.sortColumn, descending: viewed.ordering.descending,
            filter: filter, selected: selected, selectedRow: selectedRow,
            currentColumn: names.indices.contains(currentColumn) ? names[currentColumn] : nil,
            firstColumn: names.indices.contains(firstColumn) ? names[firstColumn] : nil,
            hiddenColumns: hiddenColumns, columnWidths: columnWidths, seenWidths: seenWidths)
    }

    mutating func restore(_ memory: TableMemory) {
        let names = viewed.source.columnNames
        if let name = memory.currentColumn, let index = names.firstIndex(of: name) {
            currentColumn = index
        }
        if let name = memory.firstColumn, let index = names.firstIndex(of: name) {
            firstColumn = index
        }
        hiddenColumns = memory.hiddenColumns.intersection(names)
        columnWidths = memory.columnWidths
        seenWidths = memory.seenWidths
        if viewed.ordering.sortColumn == memory.sortColumn, viewed.ordering.descending == memory.descending,
            let selected = memory.selected, selected.key.count == viewed.ordering.keyColumns.count
        {
            self.selected = selected
            selectedRow = memory.selectedRow
        }
    }
}
