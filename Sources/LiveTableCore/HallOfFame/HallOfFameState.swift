/// Everything the app shows, as a plain value: `update` changes it, and
/// `render` draws it.
package struct HallOfFameState: Equatable, Sendable {
    // MARK: - Database values

    /// The latest value of the Hall of Fame observation, nil until the first
    /// one arrives. When the table holds the selected player, so does this
    /// window: `update` sets aside a value without it, and observes the
    /// window around the player instead.
    package var hallOfFame: HallOfFame?

    /// The window of rows the app last asked to observe, or nil when no
    /// observation runs (before the first resize, or after a failure).
    package var observedRequest: WindowRequest?

    // MARK: - Terminal

    var width: Int
    var height: Int
    /// False for a monochrome screen (`NO_COLOR`, `--no-color`).
    var useColor: Bool

    // MARK: - Selection and scrolling

    /// The selected player as last delivered: its id identifies it across
    /// updates, and windows anchored on it follow that id to its current
    /// place; its name and score locate its place if it is deleted. Nil
    /// when the table is empty or not loaded yet.
    var selectedPlayer: Player?

    /// The index, in the window, of the player on the top row of the players
    /// pane.
    var scrollTop: Int

    /// A jump to the first or last player that waits for its window.
    var pendingJump: JumpTarget?

    // MARK: - Interaction

    var ordering: Ordering
    var mode: Mode
    package var status: StatusLine
    var isQuitting: Bool

    // MARK: - Change highlighting

    /// What changed in the window of players, and since when: `update`
    /// feeds it each value and each tick of its timer, and `render`
    /// highlights the changed cells and new rows it tells.
    var highlighter: ChangeHighlighter<Int64>
    /// The deadline of the highlight timer that runs, or nil when none
    /// does: `update` sets the timer again only when the highlighter's
    /// next deadline differs from it.
    var highlightTimer: ContinuousClock.Instant?
    /// The players this app's writes deleted since the user's last key
    /// (`.playersDeleted`): the status line's count.
    var playersDeleted = 0

    /// The state at launch, before any size or database value is known.
    package static func initial(
        width: Int, height: Int, ordering: Ordering = .byScore, useColor: Bool = true) -> HallOfFameState
    {
        HallOfFameState(
            hallOfFame: nil, observedRequest: nil,
            width: max(0, width), height: max(0, height), useColor: useColor,
            selectedPlayer: nil, scrollTop: 0, pendingJump: nil,
            ordering: ordering, mode: .browsing, status: StatusLine(), isQuitting: false,
            highlighter: ChangeHighlighter(), highlightTimer: nil)
    }

    // MARK: - Derived values

    var selectedIndex: Int? {
        guard let id = selectedPlayer?.id, let players = hallOfFame?.players else { return nil }
        return players.firstIndex { $0.id == id }
    }

    /// The number of player rows the players pane shows at the current size
    /// (0 when the terminal is too small for the layout).
    var pageRows: Int {
        HallOfFameLayout(width: width, height: height).listRows
    }

    /// True while a stress test runs: `s` is ignored until it ends.
    package var isStressTestRunning: Bool {
        if case .running = status.stressTest { return true }
        return false
    }
}

enum Mode: Equatable, Sendable {
    /// The main screen: keys are looked up in ``keyBindings``.
    case browsing
    /// The help overlay, from its row `scroll`: the moving keys scroll
    /// it, any other key closes it.
    case help(scroll: Int)
    case editing(EditForm)
    case confirmingDeleteAll
}

/// The bottom line of the screen: the error or the demo caption on the
/// left, the stress test on the right.
package struct StatusLine: Equatable, Sendable {
    /// The caption of the current demo step, set as it is drawn by
    /// `HallOfFameProgram.render(_:caption:)`.
    var caption: String?
    /// The last error, cleared by the next key on the main screen.
    package var error: String?
    var stressTest: StressTestStatus?
    /// The writes asked for that have not ended yet: the status line says
    /// "writing…" while one waits, for example for another process's lock.
    var pendingWrites: Int
    /// "polled every 0.1 s: fuse" while other processes' commits are
    /// polled (`CommitPolling`), on the right of the line.
    package var polling: String?

    init(
        caption: String? = nil, error: String? = nil, stressTest: StressTestStatus? = nil, pendingWrites: Int = 0)
    {
        self.caption = caption
        self.error = error
        self.stressTest = stressTest
        self.pendingWrites = pendingWrites
    }
}

enum StressTestStatus: Equatable, Sendable {
    /// `completed` refreshes of `total` have ended.
    case running(completed: Int, total: Int)
    /// All refreshes have ended; `failed` of them failed.
    case finished(total: Int, failed: Int, seconds: Double)
}
