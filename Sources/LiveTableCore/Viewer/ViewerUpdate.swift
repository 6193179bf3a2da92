import Foundation
import GRDB
import ReactiveGRDB

/// Applies a message to the viewer's state, and returns the effects to
/// perform. It is pure: the reads and the observation run as effects, and
/// their results come back as messages.
///
/// It reads no clock: a window carries the time it arrived, and the
/// highlight timer's tick the time it fired. After each message it sets
/// that one timer (`ViewerEffect.highlightTimer(at:)`) to the table's next
/// highlight deadline when it changed: none runs while nothing is
/// highlighted.
///
/// For example:
///
/// ```swift
/// var state = ViewerState.initial(fileName: "app.sqlite", opened: viewed, width: 80, height: 24)
/// viewerUpdate(&state, .resize(width: 80, height: 24)) // [.observe(viewed, …), .count(viewed.source)]
/// viewerUpdate(&state, .key(.down))                    // selects the next row
/// ```
func viewerUpdate(_ state: inout ViewerState, _ message: ViewerMessage) -> [ViewerEffect] {
    var effects = state.apply(message)
    switch message {
    case .resize, .opened, .window:
        // What can change the columns, their widths or the screen's (the
        // column keys keep it in view themselves): not every key, since
        // the widths are read from every cell of the window.
        state.keepColumnInView()
    default:
        break
    }
    effects += state.setHighlightTimer()
    return effects
}

extension ViewerState {
    fileprivate mutating func apply(_ message: ViewerMessage) -> [ViewerEffect] {
        switch message {
        case let .resize(width, height):
            self.width = max(0, width)
            self.height = max(0, height)
            if !self.isStarted {
                self.isStarted = true
                guard self.table != nil else { return [.listTables] }
                return observeWindow() + recount()
            }
            clampPicker()
            guard var table = self.table, let index = table.selectedIndex else { return [] }
            if table.isFollowing {
                // Still the last row, the list full.
                table.selectedRow = self.pageRows - 1
            }
            table.place(at: index, page: self.pageRows)
            self.table = table
            // A paused screen keeps its window; a followed one fits the new
            // size from the end.
            guard table.paused == nil else { return [] }
            return table.isFollowing || table.needsWindow(page: self.pageRows) ? observeWindow() : []

        case let .key(key):
            let effects = handle(key)
            return effects + retryAfterFailure(after: effects)

        case let .tablesListed(entries):
            if let failure = self.picker.failure, self.message == .error(failure) {
                self.message = nil
            }
            self.picker.failure = nil
            self.picker.entries = entries
            clampPicker()
            return countTables(from: 0)

        case let .tablesFailed(error):
            // Tried again in a second, or at the next key: a lock or a hot
            // journal does not last.
            self.picker.failure = error
            self.message = .error(error)
            return [.retryListing(after: 1)]

        case .retryListing:
            guard self.table == nil, self.picker.failure != nil else { return [] }
            return [.listTables]

        case let .tablesCounted(from, names, counts):
            let isListed = self.picker.entries.map { entries in
                from >= 0 && from + names.count <= entries.count
                    && entries[from..<(from + names.count)].map(\.name) == names
            } ?? false
            guard isListed else { return [] }
            // In place (no other reference to the list meanwhile): it may hold
            // thousands of entries.
            for (offset, count) in counts.enumerated() where self.picker.entries?[from + offset].isCounting == true {
                self.picker.entries?[from + offset].count = count
                self.picker.entries?[from + offset].isCounting = false
            }
            return counts.count == names.count ? countTables(from: from + names.count) : []

        case let .opened(viewed):
            guard self.pendingOpen == viewed.target else { return [] }
            self.pendingOpen = nil
            if let table = self.table, table.viewed.target == viewed.target,
                let sort = table.pendingSort, !sort.isOpened
            {
                return sorted(viewed)
            }
            if var table = self.table, table.viewed.target == viewed.target {
                // Opened again after a failure: keep the selection, unless the
                // key changed shape with the schema.
                if table.selected?.key.count != viewed.ordering.keyColumns.count {
                    table.selected = nil
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
                self.table = TableState(viewed: viewed)
                self.table?.highlighter.isEnabled = self.highlightsChanges
                self.overlay = nil
            }
            return observeWindow() + recount()

        case let .openFailed(error, kind):
            guard self.pendingOpen != nil else { return [] }
            self.pendingOpen = nil
            self.message = .error(error)
            // A sort that can not be opened (its column was dropped meanwhile):
            // the order on screen stays, observed again.
            let wasSorting = self.table?.pendingSort != nil
            self.table?.pendingSort = nil
            guard var table = self.table else {
                // Still on the picker: its counts, left for the opening, go on.
                let next = self.picker.entries?.firstIndex { $0.isCounting }
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
                self.overlay = nil
                self.prompt = nil
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
            }

        case let .window(value, now):
            return receive(value, at: now)

        case let .resumed(now):
            return resume(at: now)

        case let .deletedRowsFound(source, ids):
            // A lookup for a table left since, or altered (other columns):
            // its ids mean other rows.
            guard self.table?.viewed.source == source else { return [] }
            self.table?.highlighter.noteDeletions(ids)
            return []

        case let .highlightTick(now):
            // The timer has fired: it runs no longer, and is set again below
            // if some highlight remains.
            self.highlightTimer = nil
            self.table?.highlighter.advance(to: now)
            return []

        case let .windowFailed(error, kind):
            guard var table = self.table else { return [] }
            table.isLive = false
            table.failure = error
            if kind == .transient {
                // The observation goes on: it reads again on the next commit
                // (or key), and the rows stay meanwhile.
                self.message = .error(error)
                self.table = table
                return []
            }
            table.observedRequest = nil
            // The schema is read again in the order observed: a sort on its way
            // is dropped.
            table.pendingSort = nil
            self.message = .error(error)
            if table.isRecovering {
                // It failed again before any window: stop retrying.
                self.table = table
                return []
            }
            // Read the schema again: the table may have been altered, dropped,
            // or locked for a moment.
            table.isRecovering = true
            self.table = table
            self.pendingOpen = table.viewed.target
            return [.open(table.viewed.target, sortColumn: table.viewed.ordering.sortColumn,
                          descending: table.viewed.ordering.descending)]

        case let .counted(count, isExact, seconds):
            guard var table = self.table, table.countPacer.phase == .reading else { return [] }
            if let failure = table.countFailure, self.message == .error(failure) {
                self.message = nil
            }
            table.countFailure = nil
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

        case .countPauseEnded:
            guard var table = self.table else { return [] }
            let countsAgain = table.countPacer.pauseDidEnd()
            self.table = table
            return countsAgain ? [.count(table.viewed.source)] : []

        case let .searched(result):
            return found(result)

        case let .searchFailed(error):
            guard self.table?.pendingSearch != nil else { return [] }
            self.table?.pendingSearch = nil
            self.table?.queuedSearchSteps = []
            self.message = .error(error)
            return []

        case let .filtered(viewed, scannedRows):
            return filtered(viewed, scannedRows: scannedRows)

        case let .filterFailed(error):
            guard var table = self.table, table.pendingFilter != nil else { return [] }
            table.pendingFilter = nil
            self.message = .error(error)
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

        case let .commitsPolled(note, reason):
            // Each window's observation reports it: the status line says it
            // once, the title all along.
            guard self.polling != note else { return [] }
            self.polling = note
            if let reason {
                self.message = .notice("other processes' commits are polled: \(reason)")
            }
            return []

        case let .countFailed(error):
            // The title shows "?" and the status line why; counted again
            // after the next commit (a row fixed), not before: the same rows
            // would fail the same way.
            guard var table = self.table, table.countPacer.phase == .reading else { return [] }
            table.countFailure = error
            self.message = .error(error)
            let pause = table.countPacer.readDidEnd(afterReadingFor: 0, sawChange: false)
            self.table = table
            return pause.map { [.pauseCounting(seconds: $0)] } ?? []
        }
    }
}
