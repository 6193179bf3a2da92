import Foundation
import GRDB
import ReactiveGRDB

// MARK: - Follow and pause

/// `F`: follows the end of the ordering (and shows the latest, when
/// paused), or, when following, stops.
func toggleFollowing(_ state: inout ViewerState) -> [ViewerEffect] {
    guard var table = state.table else { return [] }
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
    state.table = table
    // The window at the end, or around the selection again.
    return effects + observeWindow(&state)
}

/// Stops following because the user moved away from the end: the rows
/// that arrive after the last one are counted from here.
func stopFollowing(_ table: inout TableState) {
    guard table.isFollowing else { return }
    let lastRow = table.window.flatMap { $0.reachesEnd ? $0.positions.last : nil }
    table.follow = .stopped(FollowMark(
        lastRow: lastRow, rowCount: table.rowCountIsApproximate ? nil : table.rowCount))
}

/// Space: freezes the screen, or asks to show the latest again (a second
/// Space before it shows keeps the screen paused).
func togglePause(_ state: inout ViewerState) -> [ViewerEffect] {
    guard var table = state.table, table.window != nil else { return [] }
    guard var paused = table.paused else {
        table.paused = PauseState(showing: table.highlighter.window)
        state.table = table
        return []
    }
    paused.isResuming.toggle()
    if !paused.isResuming {
        // Paused again before the latest showed: the keys typed meanwhile
        // act on the frozen window.
        let deferred = paused
        paused.deferredKeys = []
        table.paused = paused
        state.table = table
        return replayDeferredKeys(deferred, &state)
    }
    table.paused = paused
    state.table = table
    return [.resume]
}
