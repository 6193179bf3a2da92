/// Everything that can happen to the app: key presses, terminal resizes, and
/// values and results that come back from the database. `update` turns each
/// message into a new state and effects.
package enum HallOfFameMessage: Equatable, Sendable {
    case key(Key)
    case resize(width: Int, height: Int)
    /// The Hall of Fame observation delivered a value, at `now`: change
    /// highlighting fades from that time.
    case hallOfFame(HallOfFame, now: ContinuousClock.Instant)
    /// The timer of change highlighting (``HallOfFameEffect/highlightTimer(at:)``)
    /// fired at `now`: highlights fade, and the timer is set again if
    /// some remain.
    case highlightTick(ContinuousClock.Instant)
    /// The players of these ids, which left the window from within it,
    /// are deleted (``HallOfFameEffect/findDeletedPlayers(_:)``), or the lookup
    /// failed with `error`.
    case deletedPlayersFound([Int64], error: String? = nil)
    /// The Hall of Fame observation failed: it is over.
    case observationFailed(String)
    /// A write effect ended: committed, or failed with `error` and rolled
    /// back. The runtime sends it once for each write effect
    /// (``HallOfFameEffect/isWrite``).
    case writeFinished(HallOfFameEffect, error: String?)
    /// Other processes' commits are polled: the status line's note ("polled every 0.1 s: fuse"), and
    /// ReactiveGRDB's reason, nil when asked for (`--poll`).
    case externalChangesPolled(note: String, reason: String?)
    /// This app's writes (refresh, stress test, delete) deleted this many
    /// players, seen in the window or not.
    case playersDeleted(Int)
    case stressProgress(completed: Int, total: Int)
    /// The stress test is over: `failed` refreshes of `total` failed, the
    /// first one with `firstError`.
    case stressFinished(total: Int, failed: Int, seconds: Double, firstError: String? = nil)
}

extension HallOfFameMessage: TerminalMessage { }

/// Work that `update` asks the app loop to do. Results come back as messages,
/// and database changes come back through the observation: nothing is
/// applied to the state optimistically.
package enum HallOfFameEffect: Equatable, Sendable {
    /// (Re)start the Hall of Fame observation for this window of rows,
    /// cancelling the previous one.
    case observe(WindowRequest)
    case insertRandomPlayer
    case updatePlayer(Player)
    case deletePlayer(id: Int64)
    case deleteAll
    /// The demos' refresh, in one transaction.
    case refresh
    case stressTest
    /// Runs one timer that sends `.highlightTick` at `deadline`, in place
    /// of the previous one; nil stops it. `update` asks for it only while
    /// something is highlighted, so that an idle screen costs no CPU.
    case highlightTimer(at: ContinuousClock.Instant?)
    /// Looks up which of these players, which left the window from
    /// within it, no longer exist: the answer comes back as
    /// `.deletedPlayersFound`.
    case findDeletedPlayers([Int64])
    /// Restore the terminal and stop the process, as Ctrl-Z does in a
    /// shell; redraw when it continues.
    case suspend
    case quit

    /// True for the effects that write: the runtime answers each one with
    /// `.writeFinished`, and the status line shows "writing…" until then.
    var isWrite: Bool {
        switch self {
        case .insertRandomPlayer, .updatePlayer, .deletePlayer, .deleteAll, .refresh:
            return true
        case .observe, .stressTest, .highlightTimer, .findDeletedPlayers, .suspend, .quit:
            return false
        }
    }
}
