import Foundation

// MARK: - Follow and pause

extension ViewerState {
    /// `F`: follows the end of the ordering (and shows the latest, when
    /// paused), or, when following, stops.
    mutating func toggleFollowing() -> [ViewerEffect] {
        guard var table = self.table else { return [] }
        var effects: [ViewerEffect] = []
        if table.isFollowing {
            // Stopped by the user: no "new rows" to count.
            table.follow = nil
        } else {
            table.follow = .on
            table.pendingJump = nil
            table.pendingMove = 0
            if var paused = table.paused, !paused.isResuming {
                paused.isResuming = true
                table.paused = paused
                effects.append(.resume)
            }
        }
        self.table = table
        // The window at the end, or around the selection again.
        return effects + observeWindow()
    }
}

extension TableState {
    /// Stops following because the user moved away from the end: the rows
    /// that arrive after the last one are counted from here.
    mutating func stopFollowing() {
        guard isFollowing else { return }
        let lastRow = window.flatMap { $0.reachesEnd ? $0.positions.last : nil }
        follow = .stopped(FollowMark(
            lastRow: lastRow, rowCount: rowCountIsApproximate ? nil : self.rowCount))
    }
}

extension ViewerState {
    /// Space: freezes the screen, or asks to show the latest again (a second
    /// Space before it shows keeps the screen paused).
    mutating func togglePause() -> [ViewerEffect] {
        guard var table = self.table, table.window != nil else { return [] }
        guard var paused = table.paused else {
            table.paused = PauseState(showing: table.highlighter.window)
            self.table = table
            // The count of the rows before the selection stops: its answer
            // would not show, and commits while paused would go unnoticed
            // by it (their windows wait in `latest`). Resuming counts again.
            return countRowsBefore()
        }
        paused.isResuming.toggle()
        if !paused.isResuming {
            // Paused again before the latest showed: the keys typed meanwhile
            // act on the frozen window.
            let deferred = paused
            paused.deferredKeys = []
            table.paused = paused
            self.table = table
            return replayDeferredKeys(deferred)
        }
        table.paused = paused
        self.table = table
        return [.resume]
    }
}
