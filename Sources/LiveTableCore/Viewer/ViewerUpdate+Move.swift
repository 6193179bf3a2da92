import Foundation

// MARK: - Moves

extension ViewerState {
    /// Takes the terminal's new size: the selection keeps its screen row where
    /// it can, and the window is observed again when the screen needs more
    /// rows.
    mutating func resize(width: Int, height: Int) -> [ViewerEffect] {
        self.width = max(0, width)
        self.height = max(0, height)
        if !isStarted {
            isStarted = true
            guard self.table != nil else { return [.listTables] }
            return observeWindow() + recount()
        }
        clampPicker()
        guard var table = self.table, let index = table.selectedIndex else { return [] }
        if table.isFollowing {
            // Still the last row, the list full.
            table.selectedRow = pageRows - 1
        }
        table.place(at: index, page: pageRows)
        self.table = table
        // A paused screen keeps its window; a followed one fits the new
        // size from the end.
        guard table.paused == nil else { return [] }
        return table.isFollowing || table.needsWindow(page: pageRows) ? observeWindow() : []
    }

    /// Notes the rows that another process deleted, for their highlight.
    mutating func deletedRowsFound(_ source: RowSource, _ ids: [StoredKey]) -> [ViewerEffect] {
        recordDeletions(ids, of: source)
        // A lookup for a table left since, or altered (other columns):
        // its ids mean other rows.
        guard table?.viewed.source == source else { return [] }
        table?.highlighter.noteDeletions(ids)
        return []
    }

    /// Fades the highlights whose time has come.
    mutating func highlightTick(at now: ContinuousClock.Instant) -> [ViewerEffect] {
        // The timer has fired: it runs no longer, and is set again below
        // if some highlight remains.
        highlightTimer = nil
        table?.highlighter.advance(to: now)
        return []
    }
}

extension ViewerState {
    /// Home and End: to the first or last row, of the table, or of the
    /// frozen window of a paused screen.
    mutating func jump(_ action: ViewerAction) -> [ViewerEffect] {
        guard var table = self.table else { return [] }
        let page = max(1, pageRows)
        if action == .jumpToFirst {
            table.stopFollowing()
        }
        if table.paused != nil {
            // Paused: to the first or last row of the frozen window.
            guard let window = table.window, !window.rows.isEmpty else { return [] }
            table.selectedRow = action == .jumpToFirst ? 0 : page - 1
            table.place(at: action == .jumpToFirst ? 0 : window.rows.count - 1, page: page)
            self.table = table
            return []
        }
        table.pendingJump = action == .jumpToFirst ? .first : .last
        // The moves before the jump are left behind.
        table.pendingMove = 0
        self.table = table
        if let sort = table.pendingSort, !sort.isOpened {
            // Home or End typed after `[` or `]` goes to the first or last
            // row of the new order: the jump waits for it (`sorted(_:)`),
            // rather than read the order on screen, which the sort left.
            return []
        }
        let effects = observeWindow()
        if effects.isEmpty, !table.awaitsFirstWindow, let window = table.window, !window.rows.isEmpty {
            // The window of that end is the one on screen already (a sort from
            // the first row opened there): no other comes, the jump lands now.
            table.pendingJump = nil
            table.selectedRow = action == .jumpToFirst ? 0 : page - 1
            table.place(at: action == .jumpToFirst ? 0 : window.rows.count - 1, page: page)
            self.table = table
        }
        return effects
    }

    /// Up, down, a page up or down: moves the selection in the window, or
    /// keeps the move for the window being read.
    mutating func moveSelection(_ action: ViewerAction) -> [ViewerEffect] {
        let page = max(1, pageRows)
        return moveSelection(by: [ViewerAction.moveUp: -1, .moveDown: 1, .pageUp: -page, .pageDown: page][action] ?? 0)
    }

    /// Moves the selection `delta` rows down (up when negative): a key's
    /// move, or a click's on a row on screen.
    mutating func moveSelection(by delta: Int) -> [ViewerEffect] {
        guard var table = self.table else { return [] }
        let page = max(1, pageRows)
        if table.pendingJump != nil, table.paused == nil {
            // Home or End waits for its window: the move starts from there.
            table.pendingMove += delta
            self.table = table
            return []
        }
        guard table.selectedIndex != nil else {
            if table.selected != nil, table.awaitsFirstWindow, table.observedRequest != nil, table.paused == nil {
                // The selection is in the window being read (the one on
                // screen is anchored elsewhere): the move applies there.
                table.pendingMove += delta
                self.table = table
            }
            return []
        }
        let stopsFollowing = table.isFollowing && delta < 0
        if stopsFollowing {
            table.stopFollowing()
        }
        table.move(by: table.pendingMove + delta, page: page)
        self.table = table
        // Paused, the selection moves in the frozen window. Following
        // stopped: the window now follows the selection.
        guard table.paused == nil else { return [] }
        if table.isReadingWindow, !stopsFollowing {
            // One read at a time: the moves made meanwhile are applied when
            // it ends, and the window they need is asked for then.
            return []
        }
        return stopsFollowing || table.needsWindow(page: page) ? observeWindow() : []
    }
}
