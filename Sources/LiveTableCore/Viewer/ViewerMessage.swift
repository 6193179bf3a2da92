import GRDB

// MARK: - Messages and effects

/// Everything that can happen to the viewer: keys, sizes, and the reads' results.
package enum ViewerMessage: Equatable, Sendable, TerminalMessage {
    case key(Key)
    case resize(width: Int, height: Int)
    case tablesListed([PickerEntry])
    case tablesFailed(String)
    /// `counts` so far of the entries from `from` (nil: not in time, or failed).
    case tablesCounted(from: Int, names: [String], counts: [RowCount?])
    case retryListing
    /// While no file is at the path.
    case retryOpen
    case opened(ViewedSource)
    case openFailed(String, ViewerFailureKind)
    /// Stamped as it arrives: highlights fade from that time.
    case window(ViewerWindow, now: ContinuousClock.Instant = .now)
    /// Stamped by `ViewerEffect.resume`: what changed while paused lights up
    /// from then (`viewerUpdate` reads no clock).
    case resumed(now: ContinuousClock.Instant)
    /// Rows that left the window and that the lookup by identity did not find.
    case deletedRowsFound(RowSource, [StoredKey])
    case highlightTick(ContinuousClock.Instant)
    /// After a `.transient` failure the observation goes on; after another, it is over.
    case windowFailed(String, ViewerFailureKind)
    /// Exact unless another process committed during the count.
    case counted(Int, isExact: Bool = true, seconds: Double = 0)
    /// PostgreSQL's planner's estimate: the title's `~N` until the count ends.
    case countEstimated(Int)
    case countPauseEnded
    case countFailed(String)
    case rowsBeforeCounted(ViewedSource, RowPosition, Int, isExact: Bool = true, seconds: Double = 0)
    /// The title keeps its estimate.
    case rowsBeforeCountFailed(seconds: Double = 0)
    case rowsBeforePauseEnded
    case searched(RowSearchResult)
    case searchFailed(String)
    /// Nil expression: cleared; `scannedRows` when no index answers the filter.
    case filtered(ViewedSource, scannedRows: RowCount?)
    case filterFailed(String)
    /// The title's note ("polled every 0.1 s: fuse") and why; nil reason when
    /// asked for (`--poll`).
    case liveness(note: String, reason: String?)
    /// Other machines' commits can not be seen (a database on a network file
    /// system): the title's note and why.
    case commitsUnseen(note: String, reason: String)
    /// Nil when the row could not be read whole: the window's values stay.
    case wholeRowRead(RowPosition, [DatabaseValue]?)
    /// The rows a save has written so far.
    case saveProgressed(rows: Int)
    /// The file exists: asked before it is replaced.
    case saveNeedsConfirmation(SaveRequest)
    case saved(SaveRequest, RowExport.Summary)
    case saveFailed(String)
    case alert(ViewerAlertMessage)
}

/// A read that runs until it ends or is replaced, and that the viewer can
/// leave (`ViewerEffect.stop(_:)`).
package enum ViewerRead: String, CaseIterable, Equatable, Sendable {
    case window
    case count
    case rowsBefore
    case search
    case filter
    case open
    case tableCounts
    case wholeRow
}

/// Work that `viewerUpdate` asks for; results come back as messages.
package enum ViewerEffect: Equatable, Sendable {
    case listTables
    /// Each entry in its own read, within `PickerEntry.countTimeLimit`.
    case countTables(from: Int, names: [String], kinds: [TableSchema.Kind])
    case retryListing(after: Double)
    case retryOpen(after: Double)
    case open(ViewerTarget, sortColumn: String?, descending: Bool)
    case observe(ViewedSource, RowWindowRequest)
    /// Interrupts the read if it runs: its connection is free at once.
    case stop(ViewerRead)
    /// `estimating`: read the database's estimate first, for the title while
    /// no count is known.
    case count(RowSource, estimating: Bool = false)
    case search(ViewedSource, RowSearch)
    case filter(ViewedSource, String?)
    case pauseCounting(seconds: Double)
    case countRowsBefore(ViewedSource, RowPosition)
    case pauseCountingRowsBefore(seconds: Double)
    /// One timer, replacing the previous one; nil stops it. Only while
    /// something is highlighted, so that an idle screen costs no CPU.
    case highlightTimer(at: ContinuousClock.Instant?)
    case resume
    case findDeletedRows(RowSource, [StoredKey])
    case readWholeRow(ViewedSource, RowPosition)
    /// Keeps a query typed at `:` in the history file.
    case recordQuery(String)
    case copyToClipboard(String)
    /// Off the main thread, one at a time; `stopSaving` interrupts it and
    /// removes what it wrote.
    case save(SaveRequest)
    case stopSaving
    case alert(ViewerAlertEffect)
    case suspend
    case quit
}
