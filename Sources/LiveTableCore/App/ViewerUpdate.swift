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
        place(&table, at: index, page: state.pageRows)
        state.table = table
        return needsWindow(table, page: state.pageRows) ? observeWindow(&state) : []

    case let .key(key):
        return handle(key, &state)

    case let .tablesListed(entries):
        state.picker.entries = entries
        clampPicker(&state)
        return []

    case let .tablesFailed(error):
        state.picker.entries = state.picker.entries ?? []
        state.message = .error(error)
        return []

    case let .opened(viewed):
        guard state.pendingOpen == viewed.target else { return [] }
        state.pendingOpen = nil
        if var table = state.table, table.viewed.target == viewed.target {
            // Opened again after a failure: keep the selection, unless the
            // key changed shape with the schema.
            if table.selected?.key.count != viewed.ordering.keyColumns.count {
                table.selected = nil
            }
            table.viewed = viewed
            state.table = table
        } else {
            state.table = TableState(viewed: viewed)
            state.table?.highlighter.isEnabled = state.highlightsChanges
            state.overlay = nil
        }
        return observeWindow(&state) + recount(&state)

    case let .openFailed(error):
        guard state.pendingOpen != nil else { return [] }
        state.pendingOpen = nil
        state.message = .error(error)
        guard let table = state.table else { return [] }
        // The table is gone (dropped, renamed), or can not be read: back to
        // the picker, which lists what is there now.
        if table.isRecovering {
            state.table = nil
            state.overlay = nil
            return [.stopObserving, .listTables]
        }
        return []

    case let .window(value, now):
        return receive(value, at: now, &state)

    case let .highlightTick(now):
        // The timer has fired: it runs no longer, and is set again below
        // if some highlight remains.
        state.highlightTimer = nil
        state.table?.highlighter.advance(to: now)
        return []

    case let .windowFailed(error):
        guard var table = state.table else { return [] }
        table.isLive = false
        table.observedRequest = nil
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

    case let .commitsPolled(reason):
        guard !state.isPolling else { return [] }
        state.isPolling = true
        state.message = .notice("other processes' commits are polled: \(reason)")
        return []

    case .countFailed:
        state.table?.countPacer = RefreshPacer(pacing: ViewerPacing.count)
        return []
    }
}

// MARK: - Windows

/// The window to observe: around the selection, or at the jump's end.
private func windowRequest(_ table: TableState, page: Int) -> RowWindowRequest {
    let page = max(1, page)
    let ordering = table.viewed.ordering
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

/// Takes a window: follows the selection to its row, keeps its place on
/// the screen, and counts the rows again after a commit.
private func receive(_ value: ViewerWindow, at now: ContinuousClock.Instant, _ state: inout ViewerState) -> [ViewerEffect] {
    guard var table = state.table else { return [] }
    var effects: [ViewerEffect] = []
    if value.viewed.source != table.viewed.source {
        state.message = .notice("\(table.viewed.source.isQuery ? "the query's tables" : table.viewed.source.name) changed: columns read again")
        // Other columns: cells of the old window mean other values.
        table.highlighter.reset()
    }
    table.viewed = value.viewed
    let window = value.window
    table.window = window
    table.isLive = true
    table.isRecovering = false
    let isCommit = !table.awaitsFirstWindow
    table.awaitsFirstWindow = false
    // A window after the first of its observation answers the same
    // request again, because the data changed: what arrives in it is news.
    // The first one of an observation answers another request (a scroll,
    // a jump, a resize): the user's own move lights nothing up. Departed
    // rows are not looked up: without identity (views, queries) a changed
    // row departs as well, and deletions would be miscounted.
    let count = table.rowCountIsApproximate ? nil : table.rowCount
    table.highlighter.take(value.changeSnapshot(rowCount: count), cause: isCommit ? .update : .navigation, at: now)

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
            return (isCommit ? recount(&state) : []) + observeWindow(&state)
        }
    } else {
        index = table.selectedIndex ?? (window.rows.isEmpty ? nil : 0)
    }
    if let index {
        place(&table, at: index, page: page)
    } else {
        table.selected = nil
        table.scrollTop = 0
        table.selectedRow = 0
    }
    state.table = table
    if isCommit {
        effects += recount(&state)
    }
    if reanchor || needsWindow(table, page: page) {
        effects += observeWindow(&state)
    }
    return effects
}

/// Sets the highlight timer to the next time a highlight fades, when that
/// time changed: one timer at most, and none while nothing is highlighted.
private func setHighlightTimer(_ state: inout ViewerState) -> [ViewerEffect] {
    let deadline = state.table?.highlighter.nextDeadline
    guard deadline != state.highlightTimer else { return [] }
    state.highlightTimer = deadline
    return [.highlightTimer(at: deadline)]
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

// MARK: - Keys

private func handle(_ key: Key, _ state: inout ViewerState) -> [ViewerEffect] {
    // The user looks at the screen: the row-count change counts from here.
    state.table?.highlighter.markAsSeen()
    let action = KeyBinding.action(for: key, in: viewerKeyBindings)
    // Ctrl-C and Ctrl-Z act everywhere, as the terminal's own keys would.
    if key == .control("c") { return [.quit] }
    if key == .control("z") { return [.suspend] }
    switch state.overlay {
    case .help:
        state.overlay = nil
        return []
    case let .row(scroll):
        return handleRowOverlay(action, scroll: scroll, &state)
    case nil:
        break
    }
    guard let action else { return [] }
    // A screen too small to show anything: only quit and suspend act, so
    // that nothing changes unseen.
    if ViewerLayout(width: state.width, height: state.height).isTooSmall, action != .quit, action != .suspend {
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
        state.highlightsChanges.toggle()
        state.table?.highlighter.isEnabled = state.highlightsChanges
        return []
    case .tables:
        guard state.table != nil else { return [] }
        state.table = nil
        state.pendingOpen = nil
        return [.stopObserving, .listTables]
    default:
        break
    }
    if state.table != nil {
        return handleTable(action, &state)
    }
    return handlePicker(action, &state)
}

private func handleTable(_ action: ViewerAction, _ state: inout ViewerState) -> [ViewerEffect] {
    guard var table = state.table else { return [] }
    let page = max(1, state.pageRows)
    switch action {
    case .jumpToFirst, .jumpToLast:
        table.pendingJump = action == .jumpToFirst ? .first : .last
        state.table = table
        return observeWindow(&state)
    case .columnLeft, .columnRight:
        let count = table.viewed.source.columns.count
        table.currentColumn = min(max(0, table.currentColumn + (action == .columnLeft ? -1 : 1)), max(0, count - 1))
        // Scrolled into view on the left here; on the right by the
        // renderer, which knows the widths.
        table.firstColumn = min(table.firstColumn, table.currentColumn)
        state.table = table
        return []
    case .open:
        if table.selectedIndex != nil {
            state.overlay = .row(scroll: 0)
        }
        return []
    case .moveUp, .moveDown, .pageUp, .pageDown:
        guard let window = table.window, let index = table.selectedIndex else { return [] }
        let delta = [ViewerAction.moveUp: -1, .moveDown: 1, .pageUp: -page, .pageDown: page][action] ?? 0
        let target = min(max(0, index + delta), window.rows.count - 1)
        if abs(delta) == 1 {
            table.selectedRow += target - index
        }
        place(&table, at: target, page: page)
        state.table = table
        return needsWindow(table, page: page) ? observeWindow(&state) : []
    default:
        return []
    }
}

private func handlePicker(_ action: ViewerAction, _ state: inout ViewerState) -> [ViewerEffect] {
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
        return [.open(.table(entries[index].name), sortColumn: nil, descending: false)]
    default:
        return []
    }
    state.picker.selectedIndex = index
    clampPicker(&state)
    return []
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
        state.highlightsChanges.toggle()
        state.table?.highlighter.isEnabled = state.highlightsChanges
        return []
    case .columnLeft, .columnRight:
        return []
    }
    state.overlay = .row(scroll: min(max(0, scroll), lastScroll))
    return []
}
