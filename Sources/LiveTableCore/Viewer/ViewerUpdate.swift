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
    var effects = apply(message, &state)
    switch message {
    case .resize, .opened, .window:
        // What can change the columns, their widths or the screen's (the
        // column keys keep it in view themselves): not every key, since
        // the widths are read from every cell of the window.
        keepColumnInView(&state)
    default:
        break
    }
    effects += setHighlightTimer(&state)
    return effects
}

private func apply(_ message: ViewerMessage, _ state: inout ViewerState) -> [ViewerEffect] {
    switch message {
    case let .resize(width, height):
        state.width = max(0, width)
        state.height = max(0, height)
        if !state.isStarted {
            state.isStarted = true
            guard state.table != nil else { return [.listTables] }
            return observeWindow(&state) + recount(&state)
        }
        clampPicker(&state)
        guard var table = state.table, let index = table.selectedIndex else { return [] }
        if table.isFollowing {
            // Still the last row, the list full.
            table.selectedRow = state.pageRows - 1
        }
        place(&table, at: index, page: state.pageRows)
        state.table = table
        // A paused screen keeps its window; a followed one fits the new
        // size from the end.
        guard table.paused == nil else { return [] }
        return table.isFollowing || needsWindow(table, page: state.pageRows) ? observeWindow(&state) : []

    case let .key(key):
        let effects = handle(key, &state)
        return effects + retryAfterFailure(after: effects, &state)

    case let .tablesListed(entries):
        if let failure = state.picker.failure, state.message == .error(failure) {
            state.message = nil
        }
        state.picker.failure = nil
        state.picker.entries = entries
        clampPicker(&state)
        return countTables(from: 0, &state)

    case let .tablesFailed(error):
        // Tried again in a second, or at the next key: a lock or a hot
        // journal does not last.
        state.picker.failure = error
        state.message = .error(error)
        return [.retryListing(after: 1)]

    case .retryListing:
        guard state.table == nil, state.picker.failure != nil else { return [] }
        return [.listTables]

    case let .tablesCounted(from, names, counts):
        let isListed = state.picker.entries.map { entries in
            from >= 0 && from + names.count <= entries.count
                && entries[from..<(from + names.count)].map(\.name) == names
        } ?? false
        guard isListed else { return [] }
        // In place (no other reference to the list meanwhile): it may hold
        // thousands of entries.
        for (offset, count) in counts.enumerated() where state.picker.entries?[from + offset].isCounting == true {
            state.picker.entries?[from + offset].count = count
            state.picker.entries?[from + offset].isCounting = false
        }
        return counts.count == names.count ? countTables(from: from + names.count, &state) : []

    case let .opened(viewed):
        guard state.pendingOpen == viewed.target else { return [] }
        state.pendingOpen = nil
        if let table = state.table, table.viewed.target == viewed.target,
            let sort = table.pendingSort, !sort.isOpened
        {
            return sorted(viewed, &state)
        }
        if var table = state.table, table.viewed.target == viewed.target {
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
                state.table = table
                return [.filter(viewed, filter)]
            }
            state.table = table
        } else {
            state.table = TableState(viewed: viewed)
            state.table?.highlighter.isEnabled = state.highlightsChanges
            state.overlay = nil
        }
        return observeWindow(&state) + recount(&state)

    case let .openFailed(error, kind):
        guard state.pendingOpen != nil else { return [] }
        state.pendingOpen = nil
        state.message = .error(error)
        // A sort that can not be opened (its column was dropped meanwhile):
        // the order on screen stays, observed again.
        let wasSorting = state.table?.pendingSort != nil
        state.table?.pendingSort = nil
        guard var table = state.table else {
            // Still on the picker: its counts, left for the opening, go on.
            let next = state.picker.entries?.firstIndex { $0.isCounting }
            return next.map { countTables(from: $0, &state) } ?? []
        }
        guard table.isRecovering else {
            return wasSorting ? observeWindow(&state) : []
        }
        switch kind {
        case .missingSource:
            // The table is gone (dropped, renamed), or a column it is
            // sorted by: back to the picker, which lists what is there now.
            state.table = nil
            state.overlay = nil
            state.prompt = nil
            return leaveSource() + [.listTables]
        case .transient:
            // Locked, or a hot journal: the rows stay, `not live`, and the
            // window is observed again, which reads on the next commit.
            table.failure = error
            table.isRecovering = false
            table.observedRequest = nil
            state.table = table
            return observeWindow(&state)
        case .other:
            // The rows stay, `not live`, with the error, until a key.
            table.failure = error
            state.table = table
            return []
        }

    case let .window(value, now):
        return receive(value, at: now, &state)

    case let .resumed(now):
        return resume(at: now, &state)

    case let .deletedRowsFound(source, ids):
        // A lookup for a table left since, or altered (other columns):
        // its ids mean other rows.
        guard state.table?.viewed.source == source else { return [] }
        state.table?.highlighter.noteDeletions(ids)
        return []

    case let .highlightTick(now):
        // The timer has fired: it runs no longer, and is set again below
        // if some highlight remains.
        state.highlightTimer = nil
        state.table?.highlighter.advance(to: now)
        return []

    case let .windowFailed(error, kind):
        guard var table = state.table else { return [] }
        table.isLive = false
        table.failure = error
        if kind == .transient {
            // The observation goes on: it reads again on the next commit
            // (or key), and the rows stay meanwhile.
            state.message = .error(error)
            state.table = table
            return []
        }
        table.observedRequest = nil
        // The schema is read again in the order observed: a sort on its way
        // is dropped.
        table.pendingSort = nil
        state.message = .error(error)
        if table.isRecovering {
            // It failed again before any window: stop retrying.
            state.table = table
            return []
        }
        // Read the schema again: the table may have been altered, dropped,
        // or locked for a moment.
        table.isRecovering = true
        state.table = table
        state.pendingOpen = table.viewed.target
        return [.open(table.viewed.target, sortColumn: table.viewed.ordering.sortColumn,
                      descending: table.viewed.ordering.descending)]

    case let .counted(count, isExact, seconds):
        guard var table = state.table, table.countPacer.phase == .reading else { return [] }
        if let failure = table.countFailure, state.message == .error(failure) {
            state.message = nil
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
        state.table = table
        return pause.map { [.pauseCounting(seconds: $0)] } ?? []

    case .countPauseEnded:
        guard var table = state.table else { return [] }
        let countsAgain = table.countPacer.pauseDidEnd()
        state.table = table
        return countsAgain ? [.count(table.viewed.source)] : []

    case let .searched(result):
        return found(result, &state)

    case let .searchFailed(error):
        guard state.table?.pendingSearch != nil else { return [] }
        state.table?.pendingSearch = nil
        state.table?.queuedSearchSteps = []
        state.message = .error(error)
        return []

    case let .filtered(viewed, scannedRows):
        return filtered(viewed, scannedRows: scannedRows, &state)

    case let .filterFailed(error):
        guard var table = state.table, table.pendingFilter != nil else { return [] }
        table.pendingFilter = nil
        state.message = .error(error)
        guard table.observedRequest == nil else {
            // The previous filter stays, counted again.
            state.table = table
            return recount(&state)
        }
        // Opened again after a failure, the source no longer takes its
        // filter (a column was dropped): its rows, unfiltered. The failure
        // was the filter's: its message stays once the rows show.
        table.failure = nil
        table.filterScannedRows = nil
        table.window = nil
        state.table = table
        return observeWindow(&state) + recount(&state)

    case let .commitsPolled(note, reason):
        // Each window's observation reports it: the status line says it
        // once, the title all along.
        guard state.polling != note else { return [] }
        state.polling = note
        if let reason {
            state.message = .notice("other processes' commits are polled: \(reason)")
        }
        return []

    case let .countFailed(error):
        // The title shows "?" and the status line why; counted again
        // after the next commit (a row fixed), not before: the same rows
        // would fail the same way.
        guard var table = state.table, table.countPacer.phase == .reading else { return [] }
        table.countFailure = error
        state.message = .error(error)
        let pause = table.countPacer.readDidEnd(afterReadingFor: 0, sawChange: false)
        state.table = table
        return pause.map { [.pauseCounting(seconds: $0)] } ?? []
    }
}

// MARK: - Windows

/// The window to observe: around the selection, or at the jump's end.
private func windowRequest(_ table: TableState, page: Int) -> RowWindowRequest {
    let page = max(1, page)
    let ordering = table.viewed.ordering
    if table.isFollowing {
        // The window stays at the end as rows arrive.
        return RowWindowRequest(ordering: ordering, anchor: .last, before: 3 * page, after: 0)
    }
    switch table.pendingJump {
    case .first:
        return RowWindowRequest(ordering: ordering, anchor: .first, before: 0, after: 3 * page)
    case .last:
        return RowWindowRequest(ordering: ordering, anchor: .last, before: 3 * page, after: 0)
    case nil:
        guard let selected = table.selected else {
            return RowWindowRequest(ordering: ordering, anchor: .first, before: 0, after: 3 * page)
        }
        return RowWindowRequest(ordering: ordering, anchor: .position(selected), before: 2 * page, after: 3 * page)
    }
}

/// Observes the window that the state needs, unless it is observed already.
private func observeWindow(_ state: inout ViewerState) -> [ViewerEffect] {
    guard var table = state.table else { return [] }
    let request = windowRequest(table, page: state.pageRows)
    guard request != table.observedRequest else { return [] }
    table.observedRequest = request
    table.awaitsFirstWindow = true
    state.table = table
    return [.observe(table.viewed, request)]
}

/// True when the selection comes within a page of an edge of the window
/// that is not the edge of the table, or the window is smaller than the
/// screen needs.
private func needsWindow(_ table: TableState, page: Int) -> Bool {
    guard let window = table.window else { return false }
    let page = max(1, page)
    guard let index = table.selectedIndex else { return false }
    return (index < page && !window.reachesStart)
        || (window.rows.count - 1 - index < page && !window.reachesEnd)
}

/// Takes a window: on a paused screen, counts its changes and keeps it for
/// the resume; otherwise shows it.
private func receive(_ value: ViewerWindow, at now: ContinuousClock.Instant, _ state: inout ViewerState) -> [ViewerEffect] {
    guard var table = state.table else { return [] }
    // A window of the observation that a new filter replaced.
    guard value.viewed.source.filter == table.viewed.source.filter else { return [] }
    // A window after the first of its observation answers the same
    // request again, because the data changed: what arrives in it is news.
    // The first one of an observation answers another request (a scroll,
    // a jump, a resize): the user's own move lights nothing up.
    let isCommit = !table.awaitsFirstWindow
    table.awaitsFirstWindow = false
    guard var paused = table.paused else {
        state.table = table
        return show(value, cause: isCommit ? .update : .navigation, recounts: isCommit, at: now, &state)
    }
    // The screen stays as it is: the row count too, counted again on resume.
    paused.counter.take(value.changeSnapshot(rowCount: nil), cause: isCommit ? .update : .navigation)
    paused.latest = value
    paused.latestIsUpdate = paused.latestIsUpdate && isCommit
    table.paused = paused
    state.table = table
    return []
}

/// Shows the latest window of a paused screen, compared with the window
/// shown: what changed while paused lights up from `now`.
private func resume(at now: ContinuousClock.Instant, _ state: inout ViewerState) -> [ViewerEffect] {
    guard var table = state.table, let paused = table.paused, paused.isResuming else { return [] }
    table.paused = nil
    state.table = table
    var effects: [ViewerEffect]
    if let latest = paused.latest {
        effects = show(latest, cause: paused.latestIsUpdate ? .update : .navigation, recounts: true, at: now, &state)
    } else {
        // Nothing arrived; the selection may have moved in the window.
        effects = needsWindow(table, page: state.pageRows) ? observeWindow(&state) : []
    }
    if let table = state.table, !table.isFollowing, table.observedRequest?.anchor == .last {
        // Following stopped while paused: the window follows the selection
        // from now on, not the end.
        effects += observeWindow(&state)
    }
    return effects + replayDeferredKeys(paused, &state)
}

/// Handles the keys typed while the resume was on its way.
private func replayDeferredKeys(_ paused: PauseState, _ state: inout ViewerState) -> [ViewerEffect] {
    paused.deferredKeys.flatMap { handle($0, &state) }
}

/// Shows a window: follows the selection to its row (or to the last row,
/// when following), keeps its place on the screen, looks up the rows that
/// left it for deletions, and counts the rows again after a commit.
///
/// - parameter cause: `.update` when the window answers the request of
///   the window shown, because the data changed.
/// - parameter recounts: True when the data changed since the last count.
private func show(
    _ value: ViewerWindow, cause: WindowChange, recounts: Bool, at now: ContinuousClock.Instant,
    _ state: inout ViewerState) -> [ViewerEffect]
{
    guard var table = state.table else { return [] }
    var effects: [ViewerEffect] = []
    if value.viewed.source != table.viewed.source {
        state.message = .notice("\(table.viewed.source.isQuery ? "the query's tables" : table.viewed.source.name) changed: columns read again")
        // Other columns: cells of the old window mean other values.
        table.highlighter.reset()
    }
    // The rows on screen before this window: only those, when they
    // leave, are deletions the user saw ("2 rows deleted"), not the rows
    // of the window read beyond the screen.
    let shownRows = table.highlighter.window.map { previous in
        Set(previous.rows.dropFirst(table.scrollTop).prefix(max(1, state.pageRows)).map(\.id))
    } ?? []
    table.viewed = value.viewed
    let window = value.window
    table.window = window
    table.rowsBeforeWindow = value.rowsBefore
    table.isLive = true
    table.isRecovering = false
    if let failure = table.failure {
        // Read again: the error it showed is over.
        if state.message == .error(failure) {
            state.message = nil
        }
        table.failure = nil
    }
    if table.pendingSort?.isOpened == true {
        // The observation of the sorted order replaced the previous one:
        // this is its window.
        table.pendingSort = nil
    }
    let count = table.rowCountIsApproximate ? nil : table.rowCount
    let diff = table.highlighter.take(value.changeSnapshot(rowCount: count), cause: cause, at: now)
    // Rows that left from within the window were deleted, or moved out by
    // an update: the lookup by identity tells. A row of a view or a query
    // has no identity (a changed row departs as well): not looked up.
    let departedFromScreen = diff.departedRows.filter(shownRows.contains)
    if !departedFromScreen.isEmpty, value.identifiesRows {
        effects.append(.findDeletedRows(value.viewed.source, departedFromScreen))
    }

    let page = max(1, state.pageRows)
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
        // The end of the ordering, the list full.
        if !window.rows.isEmpty {
            index = window.rows.count - 1
            table.selectedRow = page - 1
        }
    } else if table.selectedIndex == nil, let selected = table.selected {
        if table.observedRequest?.anchor == .position(selected) {
            // The window was anchored on the selection: the fetch followed
            // it by identity, or found the row that took its place.
            table.selected = value.selection
            index = table.selectedIndex ?? (window.rows.isEmpty ? nil : 0)
        } else {
            // The selected row left a window anchored elsewhere (its sort
            // value changed, or it was deleted): look for it.
            table.scrollTop = max(0, min(table.scrollTop, window.rows.count - page))
            state.table = table
            return effects + (recounts ? recount(&state) : []) + observeWindow(&state)
        }
    } else {
        index = table.selectedIndex ?? (window.rows.isEmpty ? nil : 0)
    }
    if let index {
        place(&table, at: index, page: page)
        if table.pendingMove != 0 {
            // The moves made while the window was read.
            move(&table, by: table.pendingMove, page: page)
        }
    } else {
        table.selected = nil
        table.scrollTop = 0
        table.selectedRow = 0
    }
    state.table = table
    if recounts {
        effects += recount(&state)
    }
    if reanchor || needsWindow(table, page: page) {
        effects += observeWindow(&state)
    }
    return effects
}

// MARK: - Sorting

/// Sorts by the current column (`[`, `]`), or goes back to the natural
/// order when the column is sorted that way already: the source is opened
/// again in the new order, off the main thread, and the status line says
/// "sorting by …" until its first window arrives.
private func sort(descending: Bool, _ state: inout ViewerState) -> [ViewerEffect] {
    guard var table = state.table, !table.isRecovering else { return [] }
    let columns = table.viewed.source.columns
    guard columns.indices.contains(table.currentColumn) else { return [] }
    let column = columns[table.currentColumn].name
    let shown = table.viewed.ordering
    // The order the keys act on: the one asked for, if it has not come yet.
    let current = table.pendingSort ?? PendingSort(column: shown.sortColumn, descending: shown.descending)
    let wanted = current.column == column && current.descending == descending
        ? PendingSort(column: nil, descending: false)
        : PendingSort(column: column, descending: descending)
    if wanted.column == shown.sortColumn && wanted.descending == shown.descending {
        // Back to the order on screen before the sort that is on its way:
        // that sort's opening is left, and the order on screen observed
        // again.
        table.pendingSort = nil
        state.pendingOpen = nil
        state.table = table
        return [.stop(.open)] + observeWindow(&state)
    }
    table.pendingSort = wanted
    // The window of the order on screen is left: its read (a scan, for an
    // order without index) would hold the connection that opens the new
    // order. It is observed again if the new order can not be opened.
    table.observedRequest = nil
    state.table = table
    state.pendingOpen = table.viewed.target
    return [.stop(.window), .open(table.viewed.target, sortColumn: wanted.column, descending: wanted.descending)]
}

/// Shows the source in the order it was just opened in, for the pending
/// sort: the selected row stays selected, by its identity (rowid or
/// primary key), at its screen row; a row without identity (a view, a
/// query) can not be found in the new order, and the first row is
/// selected. Its window is observed; the rows on screen stay until it
/// comes.
private func sorted(_ viewed: ViewedSource, _ state: inout ViewerState) -> [ViewerEffect] {
    guard var table = state.table else { return [] }
    var viewed = viewed
    let filter = table.viewed.source.filter
    let keepsFilter = filter != nil && viewed.schemaVersion == table.viewed.schemaVersion
    if keepsFilter {
        // The same schema: the filtered source, in the new order.
        viewed.source = table.viewed.source
    }
    table.selected = table.selectedIndex.flatMap { position(ofRow: $0, of: table, in: viewed) }
    if table.selected == nil {
        table.selectedRow = 0
        table.scrollTop = 0
    }
    table.viewed = viewed
    table.pendingSort?.isOpened = true
    startsOtherRows(&table)
    if let filter, !keepsFilter {
        // The schema changed meanwhile: the filter is validated again on
        // it, before the sorted rows are observed (`.filtered`).
        table.pendingFilter = filter
        table.observedRequest = nil
        state.table = table
        return [.filter(viewed, filter)]
    }
    state.table = table
    return observeWindow(&state)
}

/// What no longer holds once the rows are read in another order or
/// through another filter: a search under way (its match is a position
/// of the old rows), the mark of following stopped (its last row and
/// count are of the old rows), and a pause (the user asked for the new
/// rows: they show).
private func startsOtherRows(_ table: inout TableState) {
    table.pendingSearch = nil
    table.pendingMove = 0
    table.queuedSearchSteps = []
    if case .stopped? = table.follow {
        table.follow = nil
    }
    table.paused = nil
}

/// The position, in the ordering of `viewed`, of row `index` of the
/// table's window: its identity from its position in the previous
/// ordering, its sort value from its values (the window's fetch finds the
/// row by identity anyway, should the value have changed). Nil without
/// identity.
private func position(ofRow index: Int, of table: TableState, in viewed: ViewedSource) -> RowPosition? {
    guard viewed.source.identity != .none, let window = table.window,
        window.positions.indices.contains(index), window.rows.indices.contains(index) else { return nil }
    let previous = table.viewed.ordering.keyColumns.map(\.expression)
    let previousKey = window.positions[index].key
    let row = window.rows[index]
    var key: [DatabaseValue] = []
    for column in viewed.ordering.keyColumns {
        if let at = previous.firstIndex(of: column.expression), previousKey.indices.contains(at) {
            key.append(previousKey[at])
        } else if let at = viewed.source.columnExpressions.firstIndex(of: column.expression), row.indices.contains(at) {
            key.append(row[at])
        } else {
            return nil
        }
    }
    return RowPosition(key: key)
}

/// Sets the highlight timer to the next time a highlight fades, when that
/// time changed: one timer at most, and none while nothing is highlighted.
private func setHighlightTimer(_ state: inout ViewerState) -> [ViewerEffect] {
    let deadline = state.table?.highlighter.nextDeadline
    guard deadline != state.highlightTimer else { return [] }
    state.highlightTimer = deadline
    return [.highlightTimer(at: deadline)]
}

/// Moves the selection `delta` rows in the window: a page move keeps its
/// screen row, a shorter one moves on the screen. What goes past an edge
/// of the window that is not the edge of the table waits in
/// `pendingMove` for the next window (a paused screen's frozen window has
/// no next one).
private func move(_ table: inout TableState, by delta: Int, page: Int) {
    guard let window = table.window, let index = table.selectedIndex, !window.rows.isEmpty else { return }
    let wanted = index + delta
    let target = min(max(0, wanted), window.rows.count - 1)
    if abs(delta) < max(1, page) {
        table.selectedRow += target - index
    }
    let screenRow = table.selectedRow
    place(&table, at: target, page: page)
    let rest = wanted - target
    let isTableEdge = rest > 0 ? window.reachesEnd : window.reachesStart
    table.pendingMove = rest == 0 || isTableEdge || table.paused != nil ? 0 : rest
    if table.pendingMove != 0 {
        // Cut at the window's edge for now: the selection takes its screen
        // row back when the rest of the move is applied.
        table.selectedRow = screenRow
    }
}

/// Selects row `index` of the window, keeping the selection's screen row
/// where it can, and the list full when the window ends.
private func place(_ table: inout TableState, at index: Int, page: Int) {
    guard let window = table.window, window.positions.indices.contains(index) else { return }
    let page = max(1, page)
    table.selected = window.positions[index]
    let row = min(max(0, table.selectedRow), page - 1, index)
    var top = index - row
    top = max(0, min(top, window.rows.count - page))
    table.scrollTop = top
    table.selectedRow = index - top
}

/// How often the viewer reads while another process commits: the row
/// count and the window of rows, each with its `RefreshPacer`.
///
/// Every read holds SQLite's shared lock for a moment, and a
/// rollback-journal writer that finds it held backs off (the `sqlite3`
/// command sleeps 1 ms, then longer), so reading after every commit of a
/// writer that commits without pause would slow it down by half or more.
/// After each read, the next one waits, so that reading takes at most a
/// share of the time (the duty cycle), and at least a minimum pause. The
/// first commit after a quiet spell is read at once, and the last one of a
/// burst after one pause: the title shows `~` while the count is out of
/// date, and the window is never left stale.
enum ViewerPacing {
    /// The count: a tenth of the time, and 50 ms at least between two
    /// counts, so that a cheap count does not run after every commit;
    /// during a burst, the pause doubles up to 1 s, since each of the
    /// count's short reads is one more that a writer may run into.
    static let count = RefreshPacing.dutyCycle(0.1, minimumPause: 0.05, burstPause: 1)
    /// The window: a tenth of the time too, and 2 ms at least between two
    /// fetches, so that a window read from the cache in microseconds does
    /// not run after every commit, while the lone commits of a script that
    /// writes every few milliseconds are still shown at once. During a
    /// burst, the pause doubles up to 50 ms: each fetch, however short,
    /// costs a writer that runs into it a sleep of 1 ms or more, so a long
    /// burst is shown 20 times a second.
    static let window = RefreshPacing.dutyCycle(0.1, minimumPause: 0.002, burstPause: 0.05)
}

/// Counts the rows, or notes that the count running is stale: one count
/// at a time (with its pause, `ViewerPacing.count`), and one more after it
/// when commits came meanwhile.
private func recount(_ state: inout ViewerState) -> [ViewerEffect] {
    guard var table = state.table else { return [] }
    let counts = table.countPacer.change()
    state.table = table
    return counts ? [.count(table.viewed.source)] : []
}

/// After a key, reads the source again if its rows could not be read
/// (`TableState.failure`), unless the key's own effects read it already:
/// its schema, then its window.
private func retryAfterFailure(after effects: [ViewerEffect], _ state: inout ViewerState) -> [ViewerEffect] {
    guard var table = state.table, table.failure != nil, state.pendingOpen == nil else { return [] }
    let reads = effects.contains { effect in
        switch effect {
        case .observe, .open, .filter, .quit, .suspend: return true
        default: return false
        }
    }
    guard !reads else { return [] }
    table.isRecovering = true
    table.observedRequest = nil
    state.table = table
    state.pendingOpen = table.viewed.target
    return [.stop(.window), .open(table.viewed.target, sortColumn: table.viewed.ordering.sortColumn,
                                  descending: table.viewed.ordering.descending)]
}

/// Stops every read of the source on screen, going back to the picker:
/// a read left running (a slow view's window or count) would hold its
/// connection, and the picker's reads and the next source would wait.
private func leaveSource() -> [ViewerEffect] {
    ViewerRead.allCases.map(ViewerEffect.stop)
}

// MARK: - Keys

private func handle(_ key: Key, _ state: inout ViewerState) -> [ViewerEffect] {
    // The user looks at the screen: the row-count change counts from here.
    state.table?.highlighter.markAsSeen()
    let action = KeyBinding.action(for: key, in: viewerKeyBindings)
    // Ctrl-C and Ctrl-Z act everywhere, as the terminal's own keys would.
    if key == .control("c") { return [.quit] }
    if key == .control("z") { return [.suspend] }
    if var paused = state.table?.paused, paused.isResuming, action != .pause {
        // The latest window is on its way (`.resumed`): the keys typed
        // meanwhile act on it, not on the frozen one.
        paused.deferredKeys.append(key)
        state.table?.paused = paused
        return []
    }
    switch state.overlay {
    case .help:
        state.overlay = nil
        return []
    case let .row(scroll):
        return handleRowOverlay(action, scroll: scroll, &state)
    case nil:
        break
    }
    if state.prompt != nil {
        return handlePrompt(key, &state)
    }
    let isTooSmall = ViewerLayout(width: state.width, height: state.height).isTooSmall
    if key == .escape, !isTooSmall, var table = state.table {
        if table.pendingFilter != nil {
            // Esc while a filter is checked: the check is dropped (and
            // interrupted), and the filter on screen stays, counted again.
            table.pendingFilter = nil
            state.table = table
            state.message = .notice("filter cancelled")
            return [.stop(.filter)] + recount(&state)
        }
        if table.viewed.source.filter != nil {
            // Esc clears the filter before it quits.
            state.message = nil
            return requestFilter(nil, &state)
        }
    }
    guard let action else { return [] }
    // A screen too small to show anything: only quit and suspend act, so
    // that nothing changes unseen.
    if isTooSmall, action != .quit, action != .suspend {
        return []
    }
    state.message = nil
    switch action {
    case .help:
        state.overlay = .help
        return []
    case .suspend:
        return [.suspend]
    case .quit:
        return [.quit]
    case .toggleHighlight:
        toggleHighlighting(&state)
        return []
    case .tables:
        guard state.table != nil else { return [] }
        state.table = nil
        state.pendingOpen = nil
        state.prompt = nil
        return leaveSource() + [.listTables]
    default:
        break
    }
    if state.table != nil {
        return handleTable(action, &state)
    }
    return handlePicker(action, &state)
}

/// `H`: change highlighting off, or on again, for the tables opened next too.
private func toggleHighlighting(_ state: inout ViewerState) {
    state.highlightsChanges.toggle()
    state.table?.highlighter.isEnabled = state.highlightsChanges
}

private func handleTable(_ action: ViewerAction, _ state: inout ViewerState) -> [ViewerEffect] {
    guard var table = state.table else { return [] }
    let page = max(1, state.pageRows)
    let readsOtherRows: Set<ViewerAction> = [.sortAscending, .sortDescending, .search, .searchNext, .searchPrevious, .filter]
    if table.paused != nil, readsOtherRows.contains(action) {
        // The frozen rows are not the table's any more: sorting, searching
        // or filtering them would show rows that are not there.
        state.message = .notice("paused: Space shows the latest rows first")
        return []
    }
    switch action {
    case .follow:
        return toggleFollowing(&state)
    case .pause:
        return togglePause(&state)
    case .jumpToLast where table.isFollowing:
        // Following: at the end already.
        return []
    case .jumpToLast where table.follow != nil && !table.isFollowing:
        // End resumes following, as F does.
        return toggleFollowing(&state)
    case .jumpToFirst, .jumpToLast:
        if action == .jumpToFirst {
            stopFollowing(&table)
        }
        if table.paused != nil {
            // Paused: to the first or last row of the frozen window.
            guard let window = table.window, !window.rows.isEmpty else { return [] }
            table.selectedRow = action == .jumpToFirst ? 0 : page - 1
            place(&table, at: action == .jumpToFirst ? 0 : window.rows.count - 1, page: page)
            state.table = table
            return []
        }
        table.pendingJump = action == .jumpToFirst ? .first : .last
        // The moves before the jump are left behind.
        table.pendingMove = 0
        state.table = table
        return observeWindow(&state)
    case .columnLeft, .columnRight, .narrowColumn, .widenColumn, .hideColumn, .showAllColumns:
        handleColumns(action, &table, width: state.width, message: &state.message)
        state.table = table
        keepColumnInView(&state)
        return []
    case .sortAscending, .sortDescending:
        return sort(descending: action == .sortDescending, &state)
    case .open:
        if table.selectedIndex != nil {
            state.overlay = .row(scroll: 0)
        }
        return []
    case .search:
        state.prompt = ViewerPrompt(kind: .search)
        return []
    case .filter:
        state.prompt = ViewerPrompt(kind: .filter, text: table.viewed.source.filter ?? "")
        return []
    case .searchNext, .searchPrevious:
        guard let search = table.search else {
            state.message = .notice("no search yet: / searches the current column")
            return []
        }
        guard table.pendingSearch == nil else {
            // Kept for when the search that runs has found its match.
            state.table?.queuedSearchSteps.append(action == .searchNext)
            return []
        }
        return startSearch(search, forward: action == .searchNext, &state)
    case .moveUp, .moveDown, .pageUp, .pageDown:
        let delta = [ViewerAction.moveUp: -1, .moveDown: 1, .pageUp: -page, .pageDown: page][action] ?? 0
        if table.pendingJump != nil, table.paused == nil {
            // Home or End waits for its window: the move starts from there.
            table.pendingMove += delta
            state.table = table
            return []
        }
        guard table.selectedIndex != nil else {
            if table.selected != nil, table.awaitsFirstWindow, table.observedRequest != nil, table.paused == nil {
                // The selection is in the window being read (the one on
                // screen is anchored elsewhere): the move applies there.
                table.pendingMove += delta
                state.table = table
            }
            return []
        }
        let stopsFollowing = table.isFollowing && delta < 0
        if stopsFollowing {
            stopFollowing(&table)
        }
        move(&table, by: table.pendingMove + delta, page: page)
        state.table = table
        // Paused, the selection moves in the frozen window. Following
        // stopped: the window now follows the selection.
        guard table.paused == nil else { return [] }
        if table.isReadingWindow, !stopsFollowing {
            // One read at a time: the moves made meanwhile are applied when
            // it ends, and the window they need is asked for then.
            return []
        }
        return stopsFollowing || needsWindow(table, page: page) ? observeWindow(&state) : []
    default:
        return []
    }
}

// MARK: - Columns

/// Moves the column cursor along the columns on screen, changes the
/// current column's width, hides it, or shows all columns again.
private func handleColumns(
    _ action: ViewerAction, _ table: inout TableState, width: Int, message: inout ViewerStatusMessage?)
{
    let plan = table.columnPlan(width: width)
    let order = plan.order
    guard let position = order.firstIndex(of: table.currentColumn) else { return }
    let name = table.viewed.source.columnNames[table.currentColumn]
    switch action {
    case .columnLeft:
        table.currentColumn = order[max(0, position - 1)]
    case .columnRight:
        table.currentColumn = order[min(order.count - 1, position + 1)]
    case .narrowColumn, .widenColumn:
        let width = plan.widths[table.currentColumn]
        // A column narrower than the minimum ("id") is left as it is.
        if action == .narrowColumn ? width <= ColumnPlan.minimumWidth : width >= plan.maximumWidth { return }
        let step = action == .narrowColumn ? -ColumnPlan.widthStep : ColumnPlan.widthStep
        table.columnWidths[name] = min(max(ColumnPlan.minimumWidth, width + step), plan.maximumWidth)
    case .hideColumn:
        // The next column takes the cursor, or the previous one at the
        // end. Columns share a name in a query: they hide together.
        let candidates = Array(order[(position + 1)...]) + order[..<position].reversed()
        guard let next = candidates.first(where: { table.viewed.source.columnNames[$0] != name }) else {
            message = .notice("the last column stays shown")
            return
        }
        table.hiddenColumns.insert(name)
        table.currentColumn = next
    case .showAllColumns:
        table.hiddenColumns = []
    default:
        break
    }
}

/// Keeps the column cursor on a column shown, and scrolls sideways only as
/// far as it needs to be whole on screen: after a column key, a resize, or a
/// window whose values made columns wider.
private func keepColumnInView(_ state: inout ViewerState) {
    guard var table = state.table else { return }
    let plan = table.columnPlan(width: state.width)
    if !plan.order.contains(table.currentColumn) {
        // Its column was dropped, or hidden by another of its name.
        table.currentColumn = plan.order.first { $0 >= table.currentColumn } ?? plan.order.last ?? 0
    }
    table.firstColumn = plan.firstColumn(showing: table.currentColumn, from: table.firstColumn)
    state.table = table
}

// MARK: - Follow and pause

/// `F`: follows the end of the ordering (and shows the latest, when
/// paused), or, when following, stops.
private func toggleFollowing(_ state: inout ViewerState) -> [ViewerEffect] {
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
private func stopFollowing(_ table: inout TableState) {
    guard table.isFollowing else { return }
    let lastRow = table.window.flatMap { $0.reachesEnd ? $0.positions.last : nil }
    table.follow = .stopped(FollowMark(
        lastRow: lastRow, rowCount: table.rowCountIsApproximate ? nil : table.rowCount))
}

/// Space: freezes the screen, or asks to show the latest again (a second
/// Space before it shows keeps the screen paused).
private func togglePause(_ state: inout ViewerState) -> [ViewerEffect] {
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

// MARK: - Search and filter

/// A key in the prompt: Enter runs it, Esc closes it, the others edit it.
private func handlePrompt(_ key: Key, _ state: inout ViewerState) -> [ViewerEffect] {
    guard var prompt = state.prompt else { return [] }
    switch key {
    case .escape:
        state.prompt = nil
        return []
    case .enter:
        state.prompt = nil
        state.message = nil
        switch prompt.kind {
        case .search:
            guard !prompt.text.isEmpty, let table = state.table else { return [] }
            // A new search: the `n` typed for the previous one are dropped.
            state.table?.queuedSearchSteps = []
            return startSearch(TableSearch(text: prompt.text, column: table.currentColumn), forward: true, &state)
        case .filter:
            return requestFilter(prompt.text, &state)
        }
    default:
        if prompt.field.edit(key) == .full {
            state.message = .error("a prompt takes at most \(grouped(ViewerPrompt.maximumLength)) characters")
        }
        state.prompt = prompt
        return []
    }
}

/// Searches from the selection, off the main thread; the result comes
/// back as `.searched`.
private func startSearch(_ search: TableSearch, forward: Bool, _ state: inout ViewerState) -> [ViewerEffect] {
    guard var table = state.table else { return [] }
    let request = RowSearch(text: search.text, column: search.column, forward: forward, from: table.selected)
    table.search = search
    table.pendingSearch = request
    state.table = table
    return [.search(table.viewed, request)]
}

/// Selects the match, then runs the next search that `n` or `N` asked
/// for meanwhile, from it.
private func found(_ result: RowSearchResult, _ state: inout ViewerState) -> [ViewerEffect] {
    guard let request = state.table?.pendingSearch, result.search == request else { return [] }
    var effects = select(result, &state)
    if result.match != nil, var table = state.table, let search = table.search, !table.queuedSearchSteps.isEmpty {
        let forward = table.queuedSearchSteps.removeFirst()
        state.table = table
        effects += startSearch(search, forward: forward, &state)
    }
    return effects
}

/// Selects the match: at once when the window holds it, or in a window
/// anchored on it.
private func select(_ result: RowSearchResult, _ state: inout ViewerState) -> [ViewerEffect] {
    guard var table = state.table, let request = table.pendingSearch else { return [] }
    table.pendingSearch = nil
    guard let match = result.match else {
        table.queuedSearchSteps = []
        state.table = table
        state.message = .notice("not found: \(RowDetail.oneLine(request.text))")
        return []
    }
    state.message = result.wrapped ? .notice("search wrapped") : nil
    let page = max(1, state.pageRows)
    table.pendingJump = nil
    table.pendingMove = 0
    // The match shows, even when paused since the search began.
    table.paused = nil
    // A match away from the end: following stops, as with any move away.
    let stopsFollowing = table.isFollowing
    if stopsFollowing {
        stopFollowing(&table)
    }
    if let index = table.window?.positions.firstIndex(of: match) {
        place(&table, at: index, page: page)
        state.table = table
        return stopsFollowing || needsWindow(table, page: page) ? observeWindow(&state) : []
    }
    table.selected = match
    state.table = table
    return observeWindow(&state)
}

/// Validates a filter (nil or empty: clears it), off the main thread; the
/// result comes back as `.filtered` or `.filterFailed`.
private func requestFilter(_ expression: String?, _ state: inout ViewerState) -> [ViewerEffect] {
    guard var table = state.table else { return [] }
    let text = expression?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    table.pendingFilter = text
    // The count of the rows on screen is left: the filter's check reads on
    // its connection, and the rows to count will be the filter's (counted
    // again when the check ends).
    table.countPacer = RefreshPacer(pacing: ViewerPacing.count)
    state.table = table
    return [.stop(.count), .filter(table.viewed, text.isEmpty ? nil : text)]
}

/// Takes a validated filter: the windows, the count and the position
/// read the filtered source from now on.
private func filtered(_ viewed: ViewedSource, scannedRows: RowCount?, _ state: inout ViewerState) -> [ViewerEffect] {
    guard var table = state.table, table.pendingFilter != nil, viewed.target == table.viewed.target else { return [] }
    if viewed.ordering != table.viewed.ordering {
        // Sorted while the filter was checked: checked again, in the order
        // on screen.
        return [.filter(table.viewed, viewed.source.filter)]
    }
    table.pendingFilter = nil
    startsOtherRows(&table)
    table.viewed = viewed
    table.filterScannedRows = scannedRows
    // Other rows: the old window's are not shown under the new filter
    // (the selection waits for the new window, anchored on it), nothing
    // of them is a change, and the count starts again.
    table.window = nil
    table.highlighter.reset()
    table.rowCount = nil
    // The count that runs is replaced (one count slot): counted afresh.
    table.countPacer = RefreshPacer(pacing: ViewerPacing.count)
    table.observedRequest = nil
    state.table = table
    if viewed.source.filter == nil {
        state.message = .notice("filter cleared")
    }
    return observeWindow(&state) + recount(&state)
}

private func handlePicker(_ action: ViewerAction, _ state: inout ViewerState) -> [ViewerEffect] {
    if state.picker.failure != nil {
        // The list failed: a key tries again at once.
        state.picker.failure = nil
        return [.listTables]
    }
    guard let entries = state.picker.entries, !entries.isEmpty else { return [] }
    let page = max(1, state.pageRows)
    var index = state.picker.selectedIndex
    switch action {
    case .moveUp: index -= 1
    case .moveDown: index += 1
    case .pageUp: index -= page
    case .pageDown: index += page
    case .jumpToFirst: index = 0
    case .jumpToLast: index = entries.count - 1
    case .open:
        state.pendingOpen = .table(entries[index].name)
        // The picker's counts are left: the table's own count reads on
        // their connection.
        return [.stop(.tableCounts), .open(.table(entries[index].name), sortColumn: nil, descending: false)]
    default:
        return []
    }
    state.picker.selectedIndex = index
    clampPicker(&state)
    return []
}

/// How many entries of the picker one `countTables` effect counts.
let pickerCountBatch = 32

/// Counts the picker's entries from index `from`, a batch at a time.
private func countTables(from: Int, _ state: inout ViewerState) -> [ViewerEffect] {
    guard let entries = state.picker.entries, from < entries.count else { return [] }
    let batch = entries[from..<min(entries.count, from + pickerCountBatch)]
    return [.countTables(from: from, names: batch.map(\.name), kinds: batch.map(\.kind))]
}

/// Keeps the picker's selection on an entry, and on the screen.
private func clampPicker(_ state: inout ViewerState) {
    let count = state.picker.entries?.count ?? 0
    let page = max(1, state.pageRows)
    var picker = state.picker
    picker.selectedIndex = min(max(0, picker.selectedIndex), max(0, count - 1))
    if picker.selectedIndex < picker.scrollTop {
        picker.scrollTop = picker.selectedIndex
    } else if picker.selectedIndex >= picker.scrollTop + page {
        picker.scrollTop = picker.selectedIndex - page + 1
    }
    picker.scrollTop = max(0, min(picker.scrollTop, count - page))
    state.picker = picker
}

private func handleRowOverlay(_ action: ViewerAction?, scroll: Int, _ state: inout ViewerState) -> [ViewerEffect] {
    guard let action else { return [] }
    let page = RowDetail.page(height: state.height)
    var lineCount = 0
    if let table = state.table, let index = table.selectedIndex, let window = table.window {
        lineCount = RowDetail.lines(
            names: table.viewed.source.columnNames, values: window.rows[index], width: state.width).count
    }
    let lastScroll = max(0, lineCount - page)
    var scroll = scroll
    switch action {
    case .moveUp: scroll -= 1
    case .moveDown: scroll += 1
    case .pageUp: scroll -= page
    case .pageDown: scroll += page
    case .jumpToFirst: scroll = 0
    case .jumpToLast: scroll = lastScroll
    case .open, .quit:
        state.overlay = nil
        return []
    case .help:
        state.overlay = .help
        return []
    case .tables:
        state.overlay = nil
        return handle(.character("t"), &state)
    case .suspend:
        return [.suspend]
    case .toggleHighlight:
        toggleHighlighting(&state)
        return []
    case .pause:
        // The row stays as it is while read.
        return togglePause(&state)
    case .columnLeft, .columnRight, .narrowColumn, .widenColumn, .hideColumn, .showAllColumns, .follow,
         .sortAscending, .sortDescending, .search, .searchNext, .searchPrevious, .filter:
        return []
    }
    state.overlay = .row(scroll: min(max(0, scroll), lastScroll))
    return []
}
