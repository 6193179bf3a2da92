import Foundation
import ReactiveGRDB

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
    /// The count: a hundredth of the time, and 50 ms at least between two
    /// counts, so that a cheap count does not run after every commit;
    /// during a burst (commits during the counts or their pauses), the
    /// pause doubles up to 1 s. The title shows `~` meanwhile: a count of
    /// 200,000 rows (30 ms) runs every 3 s while a writer commits 30 times
    /// a second, where it took 3% of a core, and a cheap one once a second,
    /// where it ran, and drew the title twice, after every other commit.
    /// The pause is 20 s at most: a count of 2 s (ten million rows) runs
    /// a tenth of the time, as before, rather than once in 200 s.
    static let count = RefreshPacing.dutyCycle(0.01, minimumPause: 0.05, burstPause: 1).burstsIncludingPauses()
        .pausingAtMost(20)
    /// The window: a tenth of the time too, and 2 ms at least between two
    /// fetches, so that a window read from the cache in microseconds does
    /// not run after every commit, while the lone commits of a script that
    /// writes every few milliseconds are still shown at once. During a
    /// burst, the pause doubles up to 50 ms: each fetch, however short,
    /// costs a writer that runs into it a sleep of 1 ms or more, so a long
    /// burst is shown 20 times a second.
    static let window = RefreshPacing.dutyCycle(0.1, minimumPause: 0.002, burstPause: 0.05)
    /// The window of a WAL file, whose readers never block its writer:
    /// paced by the CPU alone, half a core at most (the pause as long as
    /// the read), so that a slow query is not left seconds stale.
    static let walWindow = RefreshPacing.dutyCycle(0.5, minimumPause: 0.002, burstPause: 0.05)

    /// The window's pacing for a file: `walWindow` in WAL mode, else `window`.
    static func window(isWAL: Bool) -> RefreshPacing {
        isWAL ? walWindow : window
    }
    /// The count of the rows before the selection (the title's position
    /// far from the start), as the row count: a tenth of the time, 50 ms
    /// at least between two, up to 1 s during a burst of commits or of
    /// windows (PgDn held, a search's `n n n`), so that no count starts
    /// per frame.
    static let rowsBefore = RefreshPacing.dutyCycle(0.1, minimumPause: 0.05, burstPause: 1)
}
