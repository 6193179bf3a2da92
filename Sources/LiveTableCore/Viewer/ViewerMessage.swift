import GRDB

// MARK: - Messages and effects

/// Everything that can happen to the viewer.
public enum ViewerMessage: Equatable, Sendable, TerminalMessage {
    /// The user pressed a key.
    case key(Key)
    /// The terminal has this size.
    case resize(width: Int, height: Int)
    /// The tables and views of the file.
    case tablesListed([PickerEntry])
    /// The tables could not be listed.
    case tablesFailed(String)
    /// The picker's entries from index `from`, named `names`, were
    /// counted, `counts` of them so far (nil: not in time, or failed).
    case tablesCounted(from: Int, names: [String], counts: [RowCount?])
    /// Time to list the tables again, after a failure.
    case retryListing
    /// Time to open the source again, while no file is at its path.
    case retryOpen
    /// A source was opened (from the picker, or again after a failure).
    case opened(ViewedSource)
    /// A source could not be opened, and why.
    case openFailed(String, ViewerFailureKind)
    /// The observation delivered a window, at `now` (stamped as it
    /// arrives): change highlighting fades from that time.
    case window(ViewerWindow, now: ContinuousClock.Instant = .now)
    /// The paused screen shows the latest window, at `now` (stamped by
    /// `ViewerEffect.resume`): what changed meanwhile lights up from then.
    case resumed(now: ContinuousClock.Instant)
    /// Of the rows of `source` that left the window (`WindowDiff.departedRows`),
    /// these are deleted: the lookup by identity did not find them.
    case deletedRowsFound(RowSource, [StoredKey])
    /// The highlight timer (`ViewerEffect.highlightTimer(at:)`) fired at
    /// `now`: highlights fade, and the timer is set again if some remain.
    case highlightTick(ContinuousClock.Instant)
    /// A read of the window failed. After a `.transient` failure the
    /// observation goes on, and reads again on the next commit; after
    /// another, it is over.
    case windowFailed(String, ViewerFailureKind)
    /// The row count of the source on screen, exact unless another
    /// process committed during the count, and how long counting took.
    case counted(Int, isExact: Bool = true, seconds: Double = 0)
    /// The database's estimate of the row count (PostgreSQL's planner's),
    /// read before the exact count: the title's `~N` until it ends.
    case countEstimated(Int)
    /// The pause after a count is over (`ViewerEffect.pauseCounting`).
    case countPauseEnded
    /// The count failed.
    case countFailed(String)
    /// The rows of `viewed` before `position` were counted
    /// (`ViewerEffect.countRowsBefore`), in this many seconds: the title's
    /// exact position.
    case rowsBeforeCounted(ViewedSource, RowPosition, Int, isExact: Bool = true, seconds: Double = 0)
    /// The count of the rows before the selection failed (or ran out of
    /// time) after this many seconds: the title keeps its estimate.
    case rowsBeforeCountFailed(seconds: Double = 0)
    /// The pause after a count of the rows before the selection is over
    /// (`ViewerEffect.pauseCountingRowsBefore`).
    case rowsBeforePauseEnded
    /// A search ended.
    case searched(RowSearchResult)
    /// A search failed.
    case searchFailed(String)
    /// A filter was validated (nil expression: cleared): the source with
    /// it, and the rows each update scans when SQLite can not use an index.
    case filtered(ViewedSource, scannedRows: RowCount?)
    /// A filter is invalid: SQLite's message, in one line.
    case filterFailed(String)
    /// Other processes' commits are polled: the title's note ("polled
    /// every 0.1 s: fuse"), and ReactiveGRDB's reason, nil when the
    /// polling was asked for (`--poll`).
    case liveness(note: String, reason: String?)
    /// Other machines' commits can not be seen (a WAL file on a network or
    /// FUSE file system): the title's note ("WAL on fuse") and why.
    case commitsUnseen(note: String, reason: String)
    /// The row at a position read whole for the row view; nil when it
    /// could not be (the window's values stay).
    case wholeRowRead(RowPosition, [DatabaseValue]?)
}

/// A read of the source on screen that runs until it ends or is replaced,
/// and that the viewer can leave (`ViewerEffect.stop(_:)`).
public enum ViewerRead: String, CaseIterable, Equatable, Sendable {
    /// The observation of the window.
    case window
    /// The row count.
    case count
    /// The count of the rows before the selection: the title's position.
    case rowsBefore
    /// A search.
    case search
    /// The check of a filter.
    case filter
    /// The opening of a source (or of a new order).
    case open
    /// The picker's counts.
    case tableCounts
    /// The selected row read whole, for the row view.
    case wholeRow
}

/// Work that `viewerUpdate` asks for; results come back as messages.
public enum ViewerEffect: Equatable, Sendable {
    /// List the tables and views (their counts follow: `countTables`).
    case listTables
    /// Count the picker's entries from index `from`, these names and
    /// kinds, each in its own read, within `PickerEntry.countTimeLimit`.
    case countTables(from: Int, names: [String], kinds: [TableSchema.Kind])
    /// Send `.retryListing` after this many seconds.
    case retryListing(after: Double)
    /// Send `.retryOpen` after this many seconds.
    case retryOpen(after: Double)
    /// Open a source, on the screen's reader.
    case open(ViewerTarget, sortColumn: String?, descending: Bool)
    /// Observe this window of this source, replacing the observation.
    case observe(ViewedSource, RowWindowRequest)
    /// Stop a read, and interrupt it if it runs (`ReadTicket`): its
    /// connection is free for the next one at once.
    case stop(ViewerRead)
    /// Count the rows of the source, off the main thread; `estimating`:
    /// read the database's estimate first, for the title while the count
    /// runs, as long as no count is known (after one, it is dropped).
    case count(RowSource, estimating: Bool = false)
    /// Search the source, off the main thread.
    case search(ViewedSource, RowSearch)
    /// Validate a filter on the source (nil: clear it), off the main thread.
    case filter(ViewedSource, String?)
    /// Send `.countPauseEnded` after this many seconds.
    case pauseCounting(seconds: Double)
    /// Count the rows of the source before this position, off the main
    /// thread: the title's position beyond `ViewerWindow.rankLimit`.
    case countRowsBefore(ViewedSource, RowPosition)
    /// Send `.rowsBeforePauseEnded` after this many seconds.
    case pauseCountingRowsBefore(seconds: Double)
    /// Runs one timer that sends `.highlightTick` at `deadline`, in place
    /// of the previous one; nil stops it. Asked for only while something
    /// is highlighted, so that an idle screen costs no CPU.
    case highlightTimer(at: ContinuousClock.Instant?)
    /// Send `.resumed(now:)` with the current time, to show the latest
    /// window of a paused screen (`viewerUpdate` reads no clock).
    case resume
    /// Look up these rows of `source` by identity, and send the ones that
    /// are gone in `.deletedRowsFound`.
    case findDeletedRows(RowSource, [StoredKey])
    /// Read the row at a position whole (`ViewerDataSource.wholeRow`).
    case readWholeRow(ViewedSource, RowPosition)
    /// Restore the terminal and stop until continued.
    case suspend
    /// Restore the terminal and exit.
    case quit
}
