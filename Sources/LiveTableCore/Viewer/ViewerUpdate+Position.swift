import Foundation
import ReactiveGRDB

// MARK: - The title's position

// "row 5,210 of 2,000,000": a window's fetch counts the rows before it up
// to `ViewerWindow.rankLimit`, so that a window near the start costs nothing
// more. Beyond, the title shows what is known at once (carried over from
// the window before, the row count less the rows after, or the bound) while
// the rows before the selection are counted in the background, paced and
// cancelled as the row count is.

extension TableState {
    /// From 1; nil when nothing is known (no selection, or a window away from
    /// both ends whose rows before are not counted).
    package var selectedRowNumber: RowCount? {
        guard let index = selectedIndex else { return nil }
        return rowsBeforeShownWindow?.adding(index + 1)
    }

    /// None at the start; counted; or, at the end, the row count less its rows.
    /// The surest of these, the count from the start on a tie.
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

    /// Stopped with `.stop(.rowsBefore)`, the count gets no answer to end its
    /// read: its pacer starts afresh.
    mutating func stopsRowsBeforeCount() {
        rowsBeforePacer = RefreshPacer(pacing: ViewerPacing.rowsBefore)
        rowsBeforeCountSawCommit = false
    }

    /// Only away from the end (where the row count tells), not paused, with no
    /// sort or filter on its way, and where an index reads those rows: a scan
    /// would hold one read for its whole length, a rollback-journal writer
    /// waiting.
    var needsRowsBeforeCount: Bool {
        guard paused == nil, pendingFilter == nil, pendingSort == nil,
              let window, !window.reachesEnd, selectedIndex != nil,
              viewed.countsRowsBefore
        else { return false }
        return selectedRowNumber?.isExact != true
    }

    /// Counted by the fetch; or carried over from the window on screen when the
    /// two share a row (PgUp, PgDn, a nearby match: no count at all), an
    /// estimate after a commit; or at least the fetch's bound.
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
            // A commit may have added or removed rows before the window: an estimate
            // until the next count, unknown where none will run.
            return value.viewed.countsRowsBefore ? .estimated(carried.value) : nil
        case .atLeast where bound != nil:
            return .atLeast(max(carried.value, ViewerWindow.rankLimit))
        default:
            return carried
        }
    }

    /// Negative: `new` starts before `old`; nil when they share no row.
    static func shift(from old: RowWindow, to new: RowWindow) -> Int? {
        guard let newFirst = new.positions.first, let oldFirst = old.positions.first else { return nil }
        if let index = old.positions.firstIndex(of: newFirst) {
            return index
        }
        return new.positions.firstIndex(of: oldFirst).map { -$0 }
    }
}

extension RowCount {
    fileprivate func adding(_ rows: Int) -> RowCount {
        switch self {
        case let .exact(count): return .exact(count + rows)
        case let .estimated(count): return .estimated(count + rows)
        case let .atLeast(count): return .atLeast(count + rows)
        }
    }

    fileprivate var certainty: Int {
        switch self {
        case .exact: return 0
        case .estimated: return 1
        case .atLeast: return 2
        }
    }
}

extension ViewerState {
    /// One count at a time, each followed by its pause, one more after it when
    /// windows came meanwhile. A count no longer needed (an end reached, a
    /// pause, a sort or filter pending) stops: it would hold the other counts'
    /// connection for nothing. One whose row left the window (a search, a far
    /// jump) is replaced at once: its answer would be thrown away.
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
            // The new count takes the slot, which cancels the old one: no answer, no pause.
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

    /// Kept while the window holds that row and is of the same rows; an
    /// estimate, counted again after the pause, when a commit came meanwhile.
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

    /// A timeout or a lock: the title keeps its estimate; the next count waits
    /// nine times as long as the failure took.
    mutating func rowsBeforeCountFailed(seconds: Double) -> [ViewerEffect] {
        guard var table = self.table, table.rowsBeforePacer.phase == .reading else { return [] }
        let pause = table.rowsBeforePacer.readDidEnd(afterReadingFor: seconds)
        self.table = table
        return pause.map { [.pauseCountingRowsBefore(seconds: $0)] } ?? []
    }

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
