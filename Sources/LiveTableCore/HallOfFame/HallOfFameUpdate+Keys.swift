import Foundation

// MARK: - Keys

extension HallOfFameState {
    mutating func handle(_ key: Key) -> [HallOfFameEffect] {
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
        case let .help(scroll):
            // The moving keys scroll the help; any other key closes it.
            mode = HelpPage.scroll(scroll, after: KeyBinding.action(for: key), rows: keyBindings.count, screenHeight: height)
                .map { .help(scroll: $0) } ?? .browsing
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
            mode = .help(scroll: 0)
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
