import Foundation
import ReactiveGRDB

// MARK: - Windows

extension TableState {
    func windowRequest(page: Int) -> RowWindowRequest {
        let page = max(1, page)
        let ordering = viewed.ordering
        if isFollowing {
            return RowWindowRequest(ordering: ordering, anchor: .last, before: 3 * page, after: 0)
        }
        switch pendingJump {
        case .first:
            return RowWindowRequest(ordering: ordering, anchor: .first, before: 0, after: 3 * page)
        case .last:
            return RowWindowRequest(ordering: ordering, anchor: .last, before: 3 * page, after: 0)
        case nil:
            guard let selected = self.selected else {
                return RowWindowRequest(ordering: ordering, anchor: .first, before: 0, after: 3 * page)
            }
            // Every row on hand: one statement reads them all again.
            let holdsAll = window.map { $0.reachesStart && $0.reachesEnd && $0.request.ordering == ordering } ?? false
            return RowWindowRequest(
                ordering: ordering, anchor: .position(selected), before: 2 * page, after: 3 * page, readsWhole: holdsAll)
        }
    }
}

extension ViewerState {
    mutating func observeWindow() -> [ViewerEffect] {
        guard var table = self.table else { return [] }
        let request = table.windowRequest(page: pageRows)
        guard request != table.observedRequest else { return [] }
        table.observedRequest = request
        table.awaitsFirstWindow = true
        self.table = table
        return [.observe(table.viewed, request)]
    }
}

extension TableState {
    /// The selection came within a page of a window edge that is not the
    /// table's, or the window is smaller than the screen needs.
    func needsWindow(page: Int) -> Bool {
        guard let window = self.window else { return false }
        let page = max(1, page)
        guard let index = selectedIndex else { return false }
        return (index < page && !window.reachesStart)
            || (window.rows.count - 1 - index < page && !window.reachesEnd)
    }
}

extension ViewerState {
    /// A paused screen counts the window's changes and keeps it for the resume.
    mutating func receive(_ value: ViewerWindow, at now: ContinuousClock.Instant) -> [ViewerEffect] {
        guard var table = self.table else { return [] }
        // A window of the observation that a new filter replaced.
        guard value.viewed.source.filter == table.viewed.source.filter else { return [] }
        // A later window of an observation answers the same request because the
        // data changed: news. The first answers a scroll, jump or resize: the
        // user's own move lights nothing up.
        let isCommit = !table.awaitsFirstWindow
        table.awaitsFirstWindow = false
        guard var paused = table.paused else {
            self.table = table
            return show(value, cause: isCommit ? .update : .navigation, recounts: isCommit, at: now)
        }
        // The row count stays too, counted again on resume.
        paused.counter.take(value.changeSnapshot(rowCount: nil), cause: isCommit ? .update : .navigation)
        paused.latest = value
        paused.latestIsUpdate = paused.latestIsUpdate && isCommit
        table.paused = paused
        self.table = table
        return []
    }

    /// What changed while paused lights up from `now`.
    mutating func resume(at now: ContinuousClock.Instant) -> [ViewerEffect] {
        guard var table = self.table, let paused = table.paused, paused.isResuming else { return [] }
        table.paused = nil
        self.table = table
        var effects: [ViewerEffect]
        if let latest = paused.latest {
            effects = show(latest, cause: paused.latestIsUpdate ? .update : .navigation, recounts: true, at: now)
        } else {
            // Nothing arrived; the count of the rows before, stopped by the pause, again.
            effects = (table.needsWindow(page: pageRows) ? observeWindow() : []) + countRowsBefore()
        }
        if let table = self.table, !table.isFollowing, table.observedRequest?.anchor == .last {
            // Following stopped while paused: the window follows the selection now.
            effects += observeWindow()
        }
        return effects + replayDeferredKeys(paused)
    }

    mutating func replayDeferredKeys(_ paused: PauseState) -> [ViewerEffect] {
        paused.deferredKeys.flatMap { handle($0) }
    }

    /// Shows a window: follows the selection to its row (or the last row, when
    /// following), keeps its place on the screen, looks up the rows that left
    /// it for deletions, and counts again after a commit.
    mutating func show(
        _ value: ViewerWindow, cause: WindowChange, recounts: Bool, at now: ContinuousClock.Instant) -> [ViewerEffect]
    {
        guard var table = self.table else { return [] }
        var recounts = recounts
        var effects: [ViewerEffect] = []
        if value.viewed.source != table.viewed.source {
            message = .notice("\(table.viewed.source.isQuery ? "the query's tables" : table.viewed.source.name) changed: columns read again")
            table.highlighter.reset()
        }
        // Only the rows on screen, when they leave, are deletions the user saw
        // ("2 rows deleted"), not those read beyond the screen.
        let shownRows = table.highlighter.window.map { previous in
            Set(previous.rows.dropFirst(table.scrollTop).prefix(max(1, pageRows)).map(\.id))
        } ?? []
        table.rowsBeforeWindow = table.rowsBefore(value, cause: cause)
        if cause == .update, table.rowsBeforePacer.phase == .reading {
            table.rowsBeforeCountSawCommit = true
        }
        table.viewed = value.viewed
        let window = value.window
        table.window = window
        table.isLive = true
        table.isRecovering = false
        recounts = endFailure(of: &table) || recounts
        endPendingSort(of: &table)
        // Every row is in the window: so is the exact count, where a count
        // would run a query's whole aggregate again. One that runs goes on.
        let holdsAll = window.reachesStart && window.reachesEnd && table.countPacer.phase != .reading
        if holdsAll {
            table.rowCount = window.rows.count
            table.countFailure = nil
        } else if table.viewed.source.isQuery, table.rowCount == nil, table.countFailure == nil,
            table.countPacer.phase == .idle
        {
            // A query's first count waits for its first window (`opened`).
            recounts = true
        }
        let count = table.rowCountIsApproximate ? nil : table.rowCount
        let snapshot = value.changeSnapshot(rowCount: count)
        // A commit to another table or outside the window: the state stays equal,
        // so that nothing is drawn.
        let isUnchanged = cause == .update && table.highlighter.window == snapshot
        let previousSnapshot = table.highlighter.window
        let diff = isUnchanged ? WindowDiff() : table.highlighter.take(snapshot, cause: cause, at: now)
        if !isUnchanged {
            recordChanges(diff, previous: previousSnapshot, snapshot, of: value, shown: table, cause: cause, at: now)
        }
        recounts = recounts && !holdsAll
        // Rows that left from within the window were deleted or moved out: the
        // lookup by identity tells. A view's or a query's rows have no identity.
        let departedFromScreen = diff.departedRows.filter(shownRows.contains)
        if !departedFromScreen.isEmpty, value.identifiesRows {
            effects.append(.findDeletedRows(value.viewed.source, departedFromScreen))
        }

        let page = max(1, pageRows)
        guard let placement = Self.placeSelection(of: &table, in: window, selection: value.selection, page: page) else {
            self.table = table
            return effects + (recounts ? recount() : []) + observeWindow()
        }
        let (index, reanchor) = placement
        if let index {
            table.place(at: index, page: page)
            if table.pendingMove != 0 {
                // The moves made while the window was read.
                table.move(by: table.pendingMove, page: page)
            }
        } else {
            table.selected = nil
            table.scrollTop = 0
            table.selectedRow = 0
        }
        self.table = table
        if recounts {
            effects += recount()
        }
        if reanchor || table.needsWindow(page: page) {
            effects += observeWindow()
        }
        return effects + countRowsBefore()
    }

    /// Where the selection goes in a new window: the row of a pending jump,
    /// the last row when following, the selected row where the window holds
    /// it. Returns nil when the selected row left a window anchored elsewhere:
    /// the window is then observed again around it.
    private static func placeSelection(
        of table: inout TableState, in window: RowWindow, selection: RowPosition?, page: Int) -> (index: Int?, reanchor: Bool)?
    {
        var index: Int?
        var reanchor = false
        if let jump = table.pendingJump {
            table.pendingJump = nil
            reanchor = true
            if !window.rows.isEmpty {
                index = jump == .first ? 0 : window.rows.count - 1
                table.selectedRow = jump == .first ? 0 : page - 1
            }
        } else if table.isFollowing {
            if !window.rows.isEmpty {
                index = window.rows.count - 1
                table.selectedRow = page - 1
            }
        } else if table.selectedIndex == nil, let selected = table.selected {
            if table.observedRequest?.anchor == .position(selected) {
                // Anchored on the selection: the fetch followed it by identity, or found
                // the row that took its place.
                table.selected = selection
                index = table.selectedIndex ?? (window.rows.isEmpty ? nil : 0)
            } else {
                // The selected row left a window anchored elsewhere (its sort value
                // changed, or it was deleted): look for it.
                table.scrollTop = max(0, min(table.scrollTop, window.rows.count - page))
                return nil
            }
        } else {
            index = table.selectedIndex ?? (window.rows.isEmpty ? nil : 0)
        }
        return (index, reanchor)
    }

    private mutating func endPendingSort(of table: inout TableState) {
        guard let sort = table.pendingSort, sort.isOpened else { return }
        table.pendingSort = nil
        if sort.keepsRow, message == nil {
            message = .notice("sorted: the selected row stays selected · g goes to the top")
        }
    }

    /// The error is over, and so is a count's that failed meanwhile (the same
    /// fault): true when that count must run again.
    private mutating func endFailure(of table: inout TableState) -> Bool {
        guard let failure = table.failure else { return false }
        if message == .error(failure) || table.countFailure.map({ message == .error($0) }) == true {
            message = nil
        }
        table.failure = nil
        return table.countFailure != nil
    }

    /// One timer at most, and none while nothing is highlighted.
    mutating func setHighlightTimer() -> [ViewerEffect] {
        let deadline = table?.highlighter.nextDeadline
        guard deadline != highlightTimer else { return [] }
        highlightTimer = deadline
        return [.highlightTimer(at: deadline)]
    }
}

extension TableState {
    /// A page move keeps the selection's screen row, a shorter one moves on the
    /// screen. What goes past a window edge that is not the table's waits in
    /// `pendingMove` for the next window (a paused screen gets none).
    mutating func move(by delta: Int, page: Int) {
        guard let window = self.window, let index = selectedIndex, !window.rows.isEmpty else { return }
        let wanted = index + delta
        let target = min(max(0, wanted), window.rows.count - 1)
        if abs(delta) < max(1, page) {
            selectedRow += target - index
        }
        let screenRow = selectedRow
        place(at: target, page: page)
        let rest = wanted - target
        let isTableEdge = rest > 0 ? window.reachesEnd : window.reachesStart
        pendingMove = rest == 0 || isTableEdge || paused != nil ? 0 : rest
        if pendingMove != 0 {
            selectedRow = screenRow
        }
    }

    /// Keeps the selection's screen row where it can, the list full at the end.
    mutating func place(at index: Int, page: Int) {
        guard let window = self.window, window.positions.indices.contains(index) else { return }
        let page = max(1, page)
        selected = window.positions[index]
        let row = min(max(0, selectedRow), page - 1, index)
        var top = index - row
        top = max(0, min(top, window.rows.count - page))
        scrollTop = top
        selectedRow = index - top
    }
}

extension ViewerState {
    /// One count at a time, and one more after it when commits came meanwhile.
    mutating func recount() -> [ViewerEffect] {
        guard var table = self.table else { return [] }
        // A commit after the launch's count: that count is stale now.
        table.countShownAsIs = false
        let counts = table.countPacer.change()
        self.table = table
        return counts ? [.count(table.viewed.source, estimating: table.rowCount == nil)] : []
    }

    /// After a key, reads again a source whose rows could not be read, unless
    /// the key's own effects read it already.
    mutating func retryAfterFailure(after effects: [ViewerEffect]) -> [ViewerEffect] {
        guard var table = self.table, table.failure != nil, pendingOpen == nil else { return [] }
        let reads = effects.contains { effect in
            switch effect {
            case .observe, .open, .filter, .quit, .suspend: return true
            default: return false
            }
        }
        guard !reads else { return [] }
        table.isRecovering = true
        return openAgain(table)
    }

    mutating func openAgain(_ table: TableState) -> [ViewerEffect] {
        var table = table
        table.observedRequest = nil
        table.stopsRowsBeforeCount()
        self.table = table
        pendingOpen = table.viewed.target
        pendingSheet = nil
        let ordering = table.viewed.ordering
        return [.stop(.window), .stop(.rowsBefore),
                .open(table.viewed.target, sortColumn: ordering.sortColumn, descending: ordering.descending)]
    }

    /// A read left running (a slow view's window or count) would hold its
    /// connection, and the picker's reads and the next source would wait.
    func leaveSource() -> [ViewerEffect] {
        ViewerRead.allCases.map(ViewerEffect.stop)
    }
}
