import Foundation
import GRDB
import ReactiveGRDB

// MARK: - Keys

func handle(_ key: Key, _ state: inout ViewerState) -> [ViewerEffect] {
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
func toggleHighlighting(_ state: inout ViewerState) {
    state.highlightsChanges.toggle()
    state.table?.highlighter.isEnabled = state.highlightsChanges
}

func handleTable(_ action: ViewerAction, _ state: inout ViewerState) -> [ViewerEffect] {
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

// MARK: - Picker and row overlay

func handlePicker(_ action: ViewerAction, _ state: inout ViewerState) -> [ViewerEffect] {
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
func countTables(from: Int, _ state: inout ViewerState) -> [ViewerEffect] {
    guard let entries = state.picker.entries, from < entries.count else { return [] }
    let batch = entries[from..<min(entries.count, from + pickerCountBatch)]
    return [.countTables(from: from, names: batch.map(\.name), kinds: batch.map(\.kind))]
}

/// Keeps the picker's selection on an entry, and on the screen.
func clampPicker(_ state: inout ViewerState) {
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

func handleRowOverlay(_ action: ViewerAction?, scroll: Int, _ state: inout ViewerState) -> [ViewerEffect] {
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
