import Foundation

// MARK: - Selection and windowing

extension HallOfFameState {
    /// Windows hold this many pages before and after the selected player:
    /// enough to page twice before the next window arrives.
    static let windowPages = 3
    /// The least number of rows before and after the selected player, so
    /// that a tiny terminal still scrolls smoothly.
    static let minimumWindowMargin = 24

    var windowMargin: Int {
        max(HallOfFameState.windowPages * pageRows, HallOfFameState.minimumWindowMargin)
    }

    func windowRequest(anchor: WindowAnchor) -> WindowRequest {
        let margin = windowMargin
        switch anchor {
        case .first:
            return WindowRequest(ordering: ordering, anchor: .first, before: 0, after: 2 * margin)
        case .last:
            return WindowRequest(ordering: ordering, anchor: .last, before: 2 * margin, after: 0)
        case .player:
            return WindowRequest(ordering: ordering, anchor: anchor, before: margin, after: margin)
        }
    }

    var currentAnchor: WindowAnchor {
        switch pendingJump {
        case .first: return .first
        case .last: return .last
        case nil: break
        }
        if let selectedPlayer {
            return .player(selectedPlayer)
        }
        if let anchor = observedRequest?.anchor {
            return anchor
        }
        return .first
    }

    /// Returns `.observe(request)`, unless that request is already observed.
    mutating func observe(_ request: WindowRequest) -> [HallOfFameEffect] {
        guard request != observedRequest else { return [] }
        observedRequest = request
        return [.observe(request)]
    }

    mutating func resize(width: Int, height: Int) -> [HallOfFameEffect] {
        self.width = max(0, width)
        self.height = max(0, height)
        clampScroll()
        guard let observedRequest else {
            return observe(windowRequest(anchor: currentAnchor))
        }
        // A taller terminal needs a larger window; a smaller one can keep
        // its window, so that resizing does not restart the observation at
        // each step.
        if observedRequest.before + observedRequest.after < 4 * pageRows {
            return observe(windowRequest(anchor: currentAnchor))
        }
        return []
    }

    mutating func move(by offset: Int, isPage: Bool = false) -> [HallOfFameEffect] {
        pendingJump = nil
        guard let hallOfFame, let index = selectedIndex else { return [] }
        let count = hallOfFame.players.count
        let target = min(max(0, index + offset), count - 1)
        selectedPlayer = hallOfFame.players[target]
        if isPage {
            // The selection keeps its screen row, as the page turns under it.
            scrollTop += target - index
        }
        clampScroll()

        let wholeTable = hallOfFame.reachesStart && hallOfFame.reachesEnd
        let nearStart = target < pageRows && !hallOfFame.reachesStart
        let nearEnd = target >= count - pageRows && !hallOfFame.reachesEnd
        if (isPage && !wholeTable) || nearStart || nearEnd {
            return observe(windowRequest(anchor: .player(hallOfFame.players[target])))
        }
        return []
    }

    mutating func jump(to target: JumpTarget) -> [HallOfFameEffect] {
        pendingJump = nil
        let players = hallOfFame?.players ?? []
        switch target {
        case .first:
            if let hallOfFame, hallOfFame.reachesStart, let first = players.first {
                selectedPlayer = first
                scrollTop = 0
            } else {
                pendingJump = .first
            }
            return observe(windowRequest(anchor: .first))
        case .last:
            if let hallOfFame, hallOfFame.reachesEnd, let last = players.last {
                selectedPlayer = last
                scrollTop = players.count - max(1, pageRows)
                clampScroll()
            } else {
                pendingJump = .last
            }
            return observe(windowRequest(anchor: .last))
        }
    }

    /// Takes a new value of the observation (see `place(_:)`), and
    /// highlights what changed since the previous one.
    mutating func receive(_ newValue: HallOfFame, at now: ContinuousClock.Instant) -> [HallOfFameEffect] {
        // A value of a replaced observation (another window, another
        // ordering): the value of the observed window is on its way.
        guard newValue.request == observedRequest else { return [] }
        let previous = hallOfFame
        var effects = place(newValue)
        let departedRows: [Int64]
        if hallOfFame == newValue {
            let cause: WindowChange = newValue.request == previous?.request ? .update : .navigation
            departedRows = highlighter.take(newValue.changeSnapshot, cause: cause, at: now).departedRows
        } else if highlighter.isEnabled, let window = highlighter.window {
            departedRows = WindowDiff(from: window, to: newValue.changeSnapshot, cause: .update).departedRows
        } else {
            departedRows = []
        }
        if !departedRows.isEmpty {
            effects.append(.findDeletedPlayers(departedRows))
        }
        return effects
    }

    /// Sets the highlight timer to the next time a highlight fades, when
    /// that time changed: one timer at most, and none while nothing is
    /// highlighted.
    mutating func setHighlightTimer() -> [HallOfFameEffect] {
        let deadline = highlighter.nextDeadline
        guard deadline != highlightTimer else { return [] }
        highlightTimer = deadline
        return [.highlightTimer(at: deadline)]
    }

    /// Takes a new value of the observation, keeping the selection on its
    /// player and the selected row on its screen row.
    private mutating func place(_ newValue: HallOfFame) -> [HallOfFameEffect] {
        let oldIndex = selectedIndex
        var screenRow = oldIndex.map { $0 - scrollTop } ?? 0

        let players = newValue.players
        guard !players.isEmpty else {
            hallOfFame = newValue
            selectedPlayer = nil
            scrollTop = 0
            pendingJump = nil
            return []
        }

        let newIndex: Int
        if pendingJump == .first, newValue.request.anchor == .first {
            newIndex = 0
            screenRow = 0
            pendingJump = nil
        } else if pendingJump == .last, newValue.request.anchor == .last {
            newIndex = players.count - 1
            screenRow = pageRows - 1
            pendingJump = nil
        } else if let selected = selectedPlayer {
            if let index = players.firstIndex(where: { $0.id == selected.id }) {
                newIndex = index
            } else if newValue.request.anchor == .player(selected) {
                // The window follows the selected player by id, from its
                // last known key: the player was deleted. Select the player
                // that now sorts at its place.
                newIndex = players.firstIndex { !ordering.sortsBefore($0, selected) } ?? players.count - 1
            } else {
                // Moved away or deleted: the window anchored on the player
                // tells which, and keeps the screen as it is until then.
                return observe(windowRequest(anchor: .player(selected)))
            }
        } else {
            newIndex = 0
            screenRow = 0
        }
        hallOfFame = newValue
        selectedPlayer = players[newIndex]
        scrollTop = newIndex - screenRow
        clampScroll()
        return []
    }

    /// Keeps the scroll position within the window, with the players pane
    /// full when the window allows it, and the selection visible.
    mutating func clampScroll() {
        let count = hallOfFame?.players.count ?? 0
        let page = max(1, pageRows)
        scrollTop = max(0, min(scrollTop, count - page))
        if let index = selectedIndex {
            if index < scrollTop {
                scrollTop = index
            } else if index >= scrollTop + page {
                scrollTop = index - page + 1
            }
        }
    }
}
