import Foundation
import GRDB
import ReactiveGRDB

// MARK: - Search and filter

/// A key in the prompt: Enter runs it, Esc closes it, the others edit it.
func handlePrompt(_ key: Key, _ state: inout ViewerState) -> [ViewerEffect] {
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
func startSearch(_ search: TableSearch, forward: Bool, _ state: inout ViewerState) -> [ViewerEffect] {
    guard var table = state.table else { return [] }
    let request = RowSearch(text: search.text, column: search.column, forward: forward, from: table.selected)
    table.search = search
    table.pendingSearch = request
    state.table = table
    return [.search(table.viewed, request)]
}

/// Selects the match, then runs the next search that `n` or `N` asked
/// for meanwhile, from it.
func found(_ result: RowSearchResult, _ state: inout ViewerState) -> [ViewerEffect] {
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
func select(_ result: RowSearchResult, _ state: inout ViewerState) -> [ViewerEffect] {
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
func requestFilter(_ expression: String?, _ state: inout ViewerState) -> [ViewerEffect] {
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
func filtered(_ viewed: ViewedSource, scannedRows: RowCount?, _ state: inout ViewerState) -> [ViewerEffect] {
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
