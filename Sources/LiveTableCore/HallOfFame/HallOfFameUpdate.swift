/// Applies a message to the state, and returns the work the app loop must do.
func hallOfFameUpdate(_ state: inout HallOfFameState, _ message: HallOfFameMessage) -> [HallOfFameEffect] {
    var effects = state.apply(message)
    effects += state.setHighlightTimer()
    return effects
}

extension HallOfFameState {
    fileprivate mutating func apply(_ message: HallOfFameMessage) -> [HallOfFameEffect] {
        switch message {
        case let .key(key):
            return press(key)
        case let .resize(width, height):
            return resize(width: width, height: height)
        case let .hallOfFame(hallOfFame, now):
            return receive(hallOfFame, at: now)
        case let .highlightTick(now):
            return highlightTick(at: now)
        case let .deletedPlayersFound(ids, error):
            return deletedPlayersFound(ids, error: error)
        case let .observationFailed(error):
            return observationFailed(error)
        case let .writeFinished(effect, error):
            return writeFinished(effect, error: error)
        case let .externalChangesPolled(note, reason):
            return externalChangesPolled(note: note, reason: reason)
        case let .playersDeleted(count):
            playersDeleted += count
            return []
        case let .stressProgress(completed, total):
            return stressProgress(completed: completed, total: total)
        case let .stressFinished(total, failed, seconds, firstError):
            return stressFinished(total: total, failed: failed, seconds: seconds, firstError: firstError)
        }
    }

    /// Takes a key: what it does, and the writes it starts, counted until they
    /// finish.
    private mutating func press(_ key: Key) -> [HallOfFameEffect] {
        // The user looks at the screen: the row-count change and the
        // deletions count start again from here.
        highlighter.markAsSeen()
        playersDeleted = 0
        let effects = handle(key)
        status.pendingWrites += effects.filter(\.isWrite).count
        return effects
    }

    private mutating func highlightTick(at now: ContinuousClock.Instant) -> [HallOfFameEffect] {
        // The timer has fired: it runs no longer, and is set again
        // below if some highlight remains (also when it fired a little
        // early, before the deadline it was set for).
        highlightTimer = nil
        highlighter.advance(to: now)
        return []
    }

    /// Notes the players that were deleted, for their highlight, or says why
    /// they are unknown.
    private mutating func deletedPlayersFound(_ ids: [Int64], error: String?) -> [HallOfFameEffect] {
        if let error {
            status.error = "Deleted players unknown: \(error)"
        } else {
            highlighter.noteDeletions(ids)
        }
        return []
    }

    /// Says why the observation failed: the next request is observed again.
    private mutating func observationFailed(_ error: String) -> [HallOfFameEffect] {
        status.error = "Observation failed: \(error)"
        // No observation runs any longer: the next request must be emitted
        // even if it equals the failed one.
        observedRequest = nil
        return []
    }

    /// Takes the end of a write: the edit form that waited for its save closes,
    /// or says why it failed.
    private mutating func writeFinished(_ effect: HallOfFameEffect, error: String?) -> [HallOfFameEffect] {
        status.pendingWrites = max(0, status.pendingWrites - 1)
        if case let .updatePlayer(player) = effect, case var .editing(form) = mode,
           form.isSaving, form.player.id == player.id
        {
            // The form waited for its save: close it, or show why it
            // failed, with the edit kept.
            if let error {
                form.isSaving = false
                form.error = "Save failed: \(error)"
                mode = .editing(form)
            } else {
                mode = .browsing
            }
            return []
        }
        if let error {
            status.error = "Write failed: \(error)"
        }
        return []
    }

    private mutating func externalChangesPolled(note: String, reason: String?) -> [HallOfFameEffect] {
        guard status.polling != note else { return [] }
        status.polling = note
        if let reason {
            status.error = "Changes of other processes are polled: \(reason)"
        }
        return []
    }

    private mutating func stressProgress(completed: Int, total: Int) -> [HallOfFameEffect] {
        // A late progress must not revive a finished test, or `s` would be
        // ignored forever.
        if isStressTestRunning {
            status.stressTest = .running(completed: completed, total: total)
        }
        return []
    }

    private mutating func stressFinished(total: Int, failed: Int, seconds: Double, firstError: String?) -> [HallOfFameEffect] {
        status.stressTest = .finished(total: total, failed: failed, seconds: seconds)
        if failed > 0 {
            // The counts are on the right of the status line; the error
            // says why.
            status.error = "Stress test refresh failed: \(firstError ?? "unknown error")"
        }
        return []
    }
}

// MARK: - Keys

extension HallOfFameState {
    fileprivate mutating func handle(_ key: Key) -> [HallOfFameEffect] {
        // The bound control keys (Ctrl-C quits, Ctrl-Z suspends) act from
        // anywhere, even from a form or an overlay, which are there again
        // on resume. They never type text.
        if case .control = key, let action = KeyBinding.action(for: key) {
            return perform(action)
        }
        if HallOfFameLayout(width: width, height: height).isTooSmall {
            // "Too small" hides the list, the form and the overlays: a key
            // that would act unseen is ignored. Quitting and suspending
            // are safe.
            guard mode == .browsing, let action = KeyBinding.action(for: key),
                  action == .quit || action == .suspend
            else { return [] }
            return perform(action)
        }
        switch mode {
        case .help:
            mode = .browsing
            return []

        case .confirmingDeleteAll:
            switch key {
            case .character("y"), .character("Y"):
                mode = .browsing
                return [.deleteAll]
            case .character("n"), .character("N"), .escape:
                mode = .browsing
                return []
            default:
                return []
            }

        case var .editing(form):
            let effects = handle(key, in: &form)
            if case .editing = mode {
                mode = .editing(form)
            }
            return effects

        case .browsing:
            status.error = nil
            guard let action = KeyBinding.action(for: key) else { return [] }
            return perform(action)
        }
    }

    private mutating func handle(_ key: Key, in form: inout EditForm) -> [HallOfFameEffect] {
        if form.isSaving {
            // Esc leaves the save to end on its own (an error then shows
            // in the status line); nothing edits what is being saved.
            if key == .escape {
                mode = .browsing
            }
            return []
        }
        switch key {
        case .escape:
            mode = .browsing
            return []
        case .enter:
            switch form.validated() {
            case let .success(player):
                form.isSaving = true
                form.error = nil
                return [.updatePlayer(player)]
            case let .failure(error):
                form.error = error.message
                return []
            }
        case .tab:
            form.switchField()
        case .up:
            form.switchField(.name)
        case .down:
            form.switchField(.score)
        case .left:
            form.moveCursor(by: -1)
        case .right:
            form.moveCursor(by: 1)
        case .home:
            form.moveCursorToEnd(false)
        case .end:
            form.moveCursorToEnd(true)
        case .backspace:
            form.deleteBackward()
        case .delete:
            form.deleteForward()
        case .control("u"):
            form.clearField()
        case let .character(character):
            form.insert(character)
        default:
            break
        }
        return []
    }

    private mutating func perform(_ action: HallOfFameAction) -> [HallOfFameEffect] {
        switch action {
        case .moveUp:
            return move(by: -1)
        case .moveDown:
            return move(by: 1)
        case .pageUp:
            return move(by: -max(1, pageRows), isPage: true)
        case .pageDown:
            return move(by: max(1, pageRows), isPage: true)
        case .jumpToFirst:
            return jump(to: .first)
        case .jumpToLast:
            return jump(to: .last)
        case .insert:
            return [.insertRandomPlayer]
        case .edit:
            guard let player = selectedPlayer else { return [] }
            mode = .editing(EditForm(player: player))
            return []
        case .delete:
            guard let id = selectedPlayer?.id else { return [] }
            return [.deletePlayer(id: id)]
        case .deleteAll:
            guard let hallOfFame, hallOfFame.playerCount > 0 else { return [] }
            mode = .confirmingDeleteAll
            return []
        case .refresh:
            // After a failed observation, refreshing is the way to see the
            // table again.
            if observedRequest == nil {
                return [.refresh] + observe(windowRequest(anchor: currentAnchor))
            }
            return [.refresh]
        case .stressTest:
            guard !isStressTestRunning else { return [] }
            status.stressTest = .running(completed: 0, total: AppDatabase.stressTestRefreshes)
            return [.stressTest]
        case .toggleOrdering:
            ordering = ordering.toggled
            pendingJump = nil
            // Re-anchor on the selected player, whose key locates it in the
            // new ordering too.
            return observe(windowRequest(anchor: selectedPlayer.map { .player($0) } ?? .first))
        case .toggleHighlight:
            highlighter.isEnabled.toggle()
            playersDeleted = 0
            return []
        case .help:
            mode = .help
            return []
        case .suspend:
            return [.suspend]
        case .quit:
            return quit()
        }
    }

    private mutating func quit() -> [HallOfFameEffect] {
        isQuitting = true
        return [.quit]
    }
}

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

    fileprivate mutating func resize(width: Int, height: Int) -> [HallOfFameEffect] {
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

    private mutating func move(by offset: Int, isPage: Bool = false) -> [HallOfFameEffect] {
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

    private mutating func jump(to target: JumpTarget) -> [HallOfFameEffect] {
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
    fileprivate mutating func receive(_ newValue: HallOfFame, at now: ContinuousClock.Instant) -> [HallOfFameEffect] {
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
    fileprivate mutating func setHighlightTimer() -> [HallOfFameEffect] {
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

