import Foundation
import ReactiveGRDB

// MARK: - The title's position

// "row 5,210 of 2,000,000": the rows before the window are counted by its
// fetch up to `ViewerWindow.rankLimit` (an index search of that many
// entries at most, so that a window near the start costs nothing more);
// beyond, the title shows what is known at once (the window before's count
// carried over, the row count less the rows after at the end, or the bound)
// and the rows before the selection are counted in the background, paced
// and cancelled as the row count is.

extension TableState {
    /// The number of the selected row in the ordering, from 1, and how
    /// sure it is; nil when nothing is known (no selection, or a window
    /// whose rows before are not counted, away from both ends).
    ///
    /// For example:
    ///
    /// ```swift
    /// table.selectedRowNumber // .atLeast(10_031) at once after a search, then .exact(1_204_377)
    /// ```
    public var selectedRowNumber: RowCount? {
        guard let index = selectedIndex else { return nil }
        return rowsBeforeShownWindow?.adding(index + 1)
    }

    /// The rows before the window on screen, as well as they are known:
    /// none when it reaches the start; counted (`rowsBeforeWindow`); or,
    /// when it reaches the end, the row count less its rows (exact once
    /// the row count is: following, after End). The surest of these, the
    /// count from the start on a tie.
    var rowsBeforeShownWindow: RowCount? {
        guard let window else { return nil }
        if window.reachesStart {
            return .exact(0)
        }
        var fromEnd: RowCount?
        if window.reachesEnd, let rowCount, rowCount >= window.rows.count {
            let before = rowCount - window.rows.count
            fromEnd = rowCountIsApproximate ? .estimated(before) : .exact(before)
        }
        return [rowsBeforeWindow, fromEnd].compactMap { $0 }.min { $0.certainty < $1.certainty }
    }

    /// Forgets the count of the rows before the selection that runs, if
    /// any, stopped with it (`.stop(.rowsBefore)`): no answer will end its
    /// read, so its pacer starts afresh.
    mutating func stopsRowsBeforeCount() {
        rowsBeforePacer = RefreshPacer(pacing: ViewerPacing.rowsBefore)
        rowsBeforeCountSawCommit = false
    }

    /// True when the selected row's number is not known exactly, and a
    /// count of the rows before it would tell: away from the end (where
    /// the row count tells), not paused (the screen is frozen), no sort or
    /// filter on its way (the rows are about to change), and only where an
    /// index reads those rows (`ViewedSource.countsRowsBefore`): a scan of
    /// a view, a filter, a query or an unindexed order would hold one read
    /// for its whole length, a writer of a rollback-journal file waiting.
    var needsRowsBeforeCount: Bool {
        guard paused == nil, pendingFilter == nil, pendingSort == nil,
              let window, !window.reachesEnd, selectedIndex != nil,
              viewed.countsRowsBefore
        else { return false }
        return selectedRowNumber?.isExact != true
    }

    /// The rows before the first row of `value`, a window about to be
    /// shown: counted by its fetch; or carried over from the window on
    /// screen when the two share a row (PgUp and PgDn past the window, a
    /// search's next match nearby: no count at all), an estimate after a
    /// commit (unknown where nothing counts them); or at least the fetch's
    /// bound.
    func rowsBefore(_ value: ViewerWindow, cause: WindowChange) -> RowCount? {
        if let counted = value.rowsBefore {
            return .exact(counted)
        }
        let bound: RowCount? = value.viewed.countsRowsBefore && !value.window.rows.isEmpty ? .atLeast(ViewerWindow.rankLimit) : nil
        guard let shown = window, let previous = rowsBeforeShownWindow,
            value.viewed.source == viewed.source, value.viewed.ordering == viewed.ordering,
            let shift = Self.shift(from: shown, to: value.window), previous.value + shift >= 0
        else { return bound }
        let carried = previous.adding(shift)
        switch carried {
        case .exact where cause == .update:
            // A commit may have added or removed rows before the window: an
            // estimate until the count that follows, unknown where none
            // will (an unindexed order, a view, a filter, a query).
            return value.viewed.countsRowsBefore ? .estimated(carried.value) : nil
        case .atLeast where bound != nil:
            return .atLeast(max(carried.value, ViewerWindow.rankLimit))
        default:
            return carried
        }
    }

    /// How many rows `new` starts after `old` (negative: before it), when
    /// the two windows share a row; nil when they do not.
    static func shift(from old: RowWindow, to new: RowWindow) -> Int? {
        guard let newFirst = new.positions.first, let oldFirst = old.positions.first else { return nil }
        if let index = old.positions.firstIndex(of: newFirst) {
            return index
        }
        return new.positions.firstIndex(of: oldFirst).map { -$0 }
    }
}

extension RowCount {
    /// The same kind of count, `rows` more.
    fileprivate func adding(_ rows: Int) -> RowCount {
        switch self {
        case let .exact(count): return .exact(count + rows)
        case let .estimated(count): return .estimated(count + rows)
        case let .atLeast(count): return .atLeast(count + rows)
        }
    }

    /// 0 for an exact count, more the less it says.
    fileprivate var certainty: Int {
        switch self {
        case .exact: return 0
        case .estimated: return 1
        case .atLeast: return 2
        }
    }
}

extension ViewerState {
    /// Counts the rows before the selection when the title's position is
    /// not known exactly, or notes that the count running is out of date:
    /// one count at a time, each followed by its pause
    /// (`ViewerPacing.rowsBefore`), and one more after it when windows came
    /// meanwhile. A count that runs when the position no longer needs one
    /// (an end reached, the screen paused, a sort or a filter pending)
    /// stops: it would hold the connection of the other counts for nothing.
    /// One whose row left the window (a search, a jump far off) is
    /// replaced at once by a count of the selection: its answer would be
    /// thrown away (`rowsBeforeCounted`), after holding the connection to
    /// its end and delaying the new count by its pause.
    mutating func countRowsBefore() -> [ViewerEffect] {
        guard var table = self.table else { return [] }
        guard table.needsRowsBeforeCount, let selected = table.selected else {
            guard table.rowsBeforePacer.phase == .reading else { return [] }
            table.stopsRowsBeforeCount()
            self.table = table
            return [.stop(.rowsBefore)]
        }
        if table.rowsBeforePacer.phase == .reading,
            table.window?.positions.contains(where: { $0 == table.rowsBeforeCountPosition }) != true
        {
            // The new count takes the read slot, which cancels the old one
            // (its ticket abandoned): no answer, and so no pause, for it.
            table.stopsRowsBeforeCount()
        }
        let counts = table.rowsBeforePacer.change()
        if counts {
            table.rowsBeforeCountSawCommit = false
            table.rowsBeforeCountPosition = selected
        }
        self.table = table
        return counts ? [.countRowsBefore(table.viewed, selected)] : []
    }

    /// Takes the number of rows before `position`: the rows before the
    /// window, while the window holds that row and is of the same rows
    /// (not sorted or filtered since); an estimate, counted again after
    /// the pause, when a commit came while counting (a window of it came,
    /// or the count says so: not `isExact`).
    mutating func rowsBeforeCounted(
        _ viewed: ViewedSource, _ position: RowPosition, _ count: Int, isExact: Bool = true, seconds: Double
    ) -> [ViewerEffect]
    {
        guard var table = self.table, table.rowsBeforePacer.phase == .reading else { return [] }
        let sawCommit = table.rowsBeforeCountSawCommit || !isExact
        if viewed.source == table.viewed.source, viewed.ordering == table.viewed.ordering,
            let index = table.window?.positions.firstIndex(of: position), count >= index,
            table.rowsBeforeWindow?.isExact != true
        {
            table.rowsBeforeWindow = sawCommit ? .estimated(count - index) : .exact(count - index)
        }
        let pause = table.rowsBeforePacer.readDidEnd(afterReadingFor: seconds, sawChange: sawCommit)
        self.table = table
        return pause.map { [.pauseCountingRowsBefore(seconds: $0)] } ?? []
    }

    /// A count of the rows before the selection that failed (a statement
    /// timeout, a lock): the title keeps its estimate, and the next window
    /// that needs one counts again, after a pause as long as the failure
    /// took nine times.
    mutating func rowsBeforeCountFailed(seconds: Double) -> [ViewerEffect] {
        guard var table = self.table, table.rowsBeforePacer.phase == .reading else { return [] }
        let pause = table.rowsBeforePacer.readDidEnd(afterReadingFor: seconds)
        self.table = table
        return pause.map { [.pauseCountingRowsBefore(seconds: $0)] } ?? []
    }

    /// Counts again after the pause, when windows came meanwhile and the
    /// position is still not known exactly.
    mutating func rowsBeforePauseEnded() -> [ViewerEffect] {
        guard var table = self.table else { return [] }
        let countsAgain = table.rowsBeforePacer.pauseDidEnd()
        guard countsAgain, table.needsRowsBeforeCount, let selected = table.selected else {
            if countsAgain {
                // Known meanwhile (carried over, the end reached): no count.
                table.rowsBeforePacer = RefreshPacer(pacing: ViewerPacing.rowsBefore)
            }
            self.table = table
            return []
        }
        table.rowsBeforeCountSawCommit = false
        table.rowsBeforeCountPosition = selected
        self.table = table
        return [.countRowsBefore(table.viewed, selected)]
    }
}
