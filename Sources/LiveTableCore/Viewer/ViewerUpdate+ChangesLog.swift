import Foundation
import GRDB

// MARK: - The changes log

extension ViewerState {
    /// `L`: the changes seen while open, as a sheet on top, newest first.
    /// The sheet under it is still observed: its changes join the log.
    mutating func openChangesLog() -> [ViewerEffect] {
        guard table?.viewed.target != .changesLog else { return [] }
        // Kept from the windows' times, not on each: a commit that changes
        // nothing on screen leaves the state equal, and draws nothing.
        changesLog.now = [changesLog.now, table?.highlighter.now].compactMap { $0 }.max()
        guard changesLog.now != nil else {
            message = .notice("no rows read yet: the changes log starts with the first")
            return []
        }
        return openOnTop(.changesLog, PendingSheet(), memory: TableMemory())
    }

    /// Enter on the log: the row of the selected change, in its sheet as
    /// it was shown then, on top.
    mutating func openSelectedChange() -> [ViewerEffect] {
        guard let selected = table?.selected, let entry = changesLog.entry(at: selected) else { return [] }
        guard let target = entry.target, let memory = entry.memory else {
            message = .notice("the row was deleted: there is nothing to go to")
            return []
        }
        return openOnTop(target, PendingSheet(), memory: memory)
    }

    /// The keys that would read the log's rows with SQL.
    func refusesOnChangesLog(_ action: ViewerAction) -> Bool {
        let readsSQL: Set<ViewerAction> = [
            .sortAscending, .sortDescending, .search, .searchNext, .searchPrevious, .filter, .query, .frequency,
            .describe, .columnsSheet, .followReference, .alert, .chart,
        ]
        return table?.viewed.target == .changesLog && readsSQL.contains(action)
    }

    /// The log's reads, answered from memory: each effect that would read
    /// the log becomes the message its read would send, handled at once.
    mutating func answerChangesLogReads(_ effects: [ViewerEffect]) -> [ViewerEffect] {
        var pending = effects
        var result: [ViewerEffect] = []
        // Each answer is a window or a count: a few rounds settle the screen.
        var rounds = 0
        while !pending.isEmpty {
            let effect = pending.removeFirst()
            guard rounds < 32, let answer = changesLogAnswer(to: effect) else {
                result.append(effect)
                continue
            }
            rounds += 1
            if case .open = effect {
                // The sheet it covers (or the one `q` closes) is still observed.
                changesLog.covered = table.map { table in
                    ChangesLog.CoveredWindow(target: table.viewed.target, snapshot: table.highlighter.window, memory: table.memory)
                }
            }
            if let answer {
                pending += viewerUpdate(&self, answer)
            }
        }
        return result
    }

    /// Nil: not a read of the log; `.some(nil)`: a read the log has no use for.
    private func changesLogAnswer(to effect: ViewerEffect) -> ViewerMessage?? {
        switch effect {
        case .open(.changesLog, _, _):
            return .some(.opened(ChangesLog.viewed))
        case let .observe(viewed, request) where viewed.target == .changesLog:
            return .some(changesLog.now.map { .window(changesLog.window(request), now: $0) })
        case let .count(source, _) where source == ChangesLog.viewed.source:
            return .some(.counted(changesLog.entries.count))
        case let .filter(viewed, _) where viewed.target == .changesLog,
             let .search(viewed, _) where viewed.target == .changesLog,
             let .readWholeRow(viewed, _) where viewed.target == .changesLog:
            return .some(nil)
        default:
            return nil
        }
    }

    // MARK: - Recording

    /// A commit's changes to the sheet on screen, from the diff that
    /// highlights them (made here when highlighting is off).
    mutating func recordChanges(
        _ diff: WindowDiff<StoredKey>, previous: WindowSnapshot<StoredKey>?, _ snapshot: WindowSnapshot<StoredKey>,
        of value: ViewerWindow, shown table: TableState, cause: WindowChange, at now: ContinuousClock.Instant)
    {
        guard cause == .update, let previous, value.viewed.target != .changesLog else { return }
        let diff = table.highlighter.isEnabled ? diff : WindowDiff(from: previous, to: snapshot, cause: cause)
        changesLog.record(diff, from: previous, to: snapshot, of: value, memory: table.memory, at: now)
    }

    /// A window of the sheet under the log, whose observation goes on: its
    /// changes are recorded, and the log on screen shows them. Nil when
    /// the log is not on screen.
    mutating func receiveBehindChangesLog(_ value: ViewerWindow, at now: ContinuousClock.Instant) -> [ViewerEffect]? {
        guard var table, table.viewed.target == .changesLog, value.viewed.target != .changesLog else { return nil }
        changesLog.now = max(changesLog.now ?? now, now)
        guard var covered = changesLog.covered, covered.target == value.viewed.target else { return [] }
        let snapshot = value.changeSnapshot(rowCount: nil)
        var effects: [ViewerEffect] = []
        if let previous = covered.snapshot {
            let diff = WindowDiff(from: previous, to: snapshot, cause: .update)
            changesLog.record(diff, from: previous, to: snapshot, of: value, memory: covered.memory, at: now)
            if !diff.departedRows.isEmpty, value.identifiesRows {
                effects.append(.findDeletedRows(value.viewed.source, diff.departedRows))
            }
        }
        covered.snapshot = snapshot
        changesLog.covered = covered
        guard let request = table.observedRequest, table.paused == nil else { return effects }
        // A commit for the log's own screen: its new rows light up.
        table.awaitsFirstWindow = false
        self.table = table
        return effects + receive(changesLog.window(request), at: now)
    }

    /// Rows that the lookup confirmed gone, in any sheet.
    mutating func recordDeletions(_ ids: [StoredKey], of source: RowSource) {
        guard let now = changesLog.now, !ids.isEmpty else { return }
        changesLog.recordDeletions(ids, of: source, at: now)
    }

    // MARK: - The row view

    /// Where a field of the selected row changed while open: its value
    /// before, and how long ago.
    func rowViewPreviousValues(_ table: TableState) -> [String?] {
        guard let index = table.selectedIndex, let rows = table.highlighter.window?.rows, rows.indices.contains(index),
            let now = [changesLog.now, table.highlighter.now].compactMap({ $0 }).max()
        else { return [] }
        let previous = changesLog.previousValues(of: rows[index].id, in: table.viewed.target)
        guard !previous.isEmpty else { return [] }
        return table.viewed.source.columnNames.map { name in
            previous[name].map { change in "was \(CellText(change.old).text), \(agoText(now - change.at))" }
        }
    }
}

/// "3 s ago", "5 min ago", "2 h ago".
func agoText(_ duration: Duration) -> String {
    let seconds = max(0, Int(duration.timeInterval.rounded(.down)))
    if seconds < 60 { return "\(seconds) s ago" }
    if seconds < 3_600 { return "\(seconds / 60) min ago" }
    return "\(seconds / 3_600) h ago"
}
