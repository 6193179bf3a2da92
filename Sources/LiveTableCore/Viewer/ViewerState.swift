import ReactiveGRDB

// MARK: - State

/// Everything the viewer shows, as a plain value: `viewerUpdate` changes
/// it, and `viewerRender` draws it.
///
/// The viewer is on one of two screens: the table picker, or a table (or
/// query) whose window of rows it observes. The selection is a row
/// position (`RowPosition`: the sort value and the rowid or primary key),
/// so that it stays on its row across updates, and `selectedRow` keeps
/// its place on the screen.
///
/// For example:
///
/// ```swift
/// var state = ViewerState.initial(databaseName: "app.sqlite", opened: nil, width: 80, height: 24)
/// let effects = viewerUpdate(&state, .resize(width: 80, height: 24)) // [.listTables]
/// ```
public struct ViewerState: Equatable, Sendable {
    /// The database's name, as the title shows it: "app.sqlite"
    /// (`ViewerDataSource.name`).
    public var databaseName: String
    /// The terminal width, in cells.
    public var width: Int
    /// The terminal height, in cells.
    public var height: Int
    /// False for a monochrome screen (`NO_COLOR`, `--no-color`).
    public var useColor: Bool
    /// The table picker: its list stays while a table is viewed.
    public var picker: PickerState
    /// The table or query on screen, nil on the picker.
    public var table: TableState?
    /// The overlay on top of the screen, if any.
    public var overlay: ViewerOverlay?
    /// The last error or notice, shown in the status line until the next key.
    public var message: ViewerStatusMessage?
    /// True once the first resize has started the screen's reads.
    public var isStarted: Bool
    /// The title's note when other processes' commits are polled, and
    /// why: "polled every 0.1 s: fuse" (`CommitPolling`); nil while
    /// inotify's file events are enough.
    public var liveness: String?
    /// False when other machines' commits can not be seen (a WAL file on a
    /// network or FUSE file system): the title never says `live`.
    public var seesOtherMachines = true
    /// The source being opened, whose `.opened` or `.openFailed` is
    /// awaited: a result that comes after `t` left it is dropped.
    public var pendingOpen: ViewerTarget?
    /// False once the user turned change highlighting off (`H`): a table
    /// opened then starts with it off too.
    public var highlightsChanges: Bool
    /// The deadline of the highlight timer that runs, or nil when none
    /// does: `viewerUpdate` sets the timer again only when the table's
    /// next highlight deadline differs from it.
    public var highlightTimer: ContinuousClock.Instant?
    /// The one-line prompt of the status line (search `/`, filter `f`),
    /// nil when none is open: it takes the keys until Enter or Esc.
    public var prompt: ViewerPrompt?
    /// The filters typed this session (`f`), which ↑ ↓ walk in its prompt.
    var filterHistory = PromptHistory()
    /// How each table or query was left with `t`, to show it again so.
    var tableMemories: [ViewerTarget: TableMemory] = [:]
    /// The table or query left with `t`: the picker's cursor starts on it,
    /// and Esc goes back to it.
    var leftTarget: ViewerTarget?

    /// The state at launch: on the table `opened` (read and checked before
    /// the screen is touched), or on the picker when it is nil.
    public static func initial(
        databaseName: String, opened: ViewedSource?, width: Int, height: Int, useColor: Bool = true) -> ViewerState
    {
        ViewerState(
            databaseName: databaseName, width: max(0, width), height: max(0, height), useColor: useColor,
            picker: PickerState(), table: opened.map(TableState.init(viewed:)),
            overlay: nil, message: opened.flatMap(openingNotice), isStarted: false, liveness: nil, pendingOpen: nil,
            highlightsChanges: true, highlightTimer: nil, prompt: nil)
    }

    /// The number of rows of the list at the current size (0 when too small).
    public var pageRows: Int {
        ViewerLayout(width: width, height: height).listRows
    }
}

/// The table picker: the tables and views of the file, with their row counts.
public struct PickerState: Equatable, Sendable {
    /// The tables and views, nil until listed.
    public var entries: [PickerEntry]?
    /// The index of the selected entry.
    public var selectedIndex: Int
    /// The index of the entry on the top row.
    public var scrollTop: Int
    /// Why the list failed, until it is listed again (in a second, or at
    /// the next key).
    public var failure: String?
    /// The entry the cursor goes to when the list arrives: the table left.
    var pendingSelection: String?

    /// An empty picker, waiting for its list.
    public init(entries: [PickerEntry]? = nil, selectedIndex: Int = 0, scrollTop: Int = 0) {
        self.entries = entries
        self.selectedIndex = selectedIndex
        self.scrollTop = scrollTop
        failure = nil
        pendingSelection = nil
    }

    /// Puts the cursor on the entry named `name`, if listed.
    mutating func select(_ name: String) {
        if let index = entries?.firstIndex(where: { $0.name == name }) {
            selectedIndex = index
        }
    }
}

/// What the viewer keeps of a table left with `t`, for the session: its
/// order, filter, selection and columns come back when it is opened again.
struct TableMemory: Equatable, Sendable {
    var sortColumn: String?
    var descending: Bool
    var filter: String?
    var selected: RowPosition?
    var selectedRow: Int
    var currentColumn: String?
    var firstColumn: String?
    var hiddenColumns: Set<String>
    var columnWidths: [String: Int]
    var seenWidths: [String: Int]
}

/// A table or view of the picker.
public struct PickerEntry: Equatable, Sendable {
    /// Its name.
    public var name: String
    /// What kind of table it is.
    public var kind: TableSchema.Kind
    /// Its number of rows, exact or estimated; nil when it can not be
    /// counted (in `PickerEntry.countTimeLimit`), or is not yet.
    public var count: RowCount?
    /// True until it is counted: the names show at once, and the counts
    /// as they come.
    public var isCounting: Bool

    /// How long the picker counts a table or view, in seconds, at most: a slow view
    /// shows "?".
    public static let countTimeLimit: Double = 1

    /// Creates an entry.
    public init(name: String, kind: TableSchema.Kind, count: RowCount?, isCounting: Bool = false) {
        self.name = name
        self.kind = kind
        self.count = count
        self.isCounting = isCounting
    }
}

/// The table or query on screen: the observed window, the selection, the
/// scroll, and the row count.
public struct TableState: Equatable, Sendable {
    /// The source, its ordering and cost, as last read.
    public var viewed: ViewedSource
    /// The latest window, nil until the first one arrives.
    public var window: RowWindow?
    /// The number of rows before the window's first, when known: exact
    /// (counted by the window's fetch, `ViewerWindow.rowsBefore`, or in
    /// the background, or carried over from the window before), estimated
    /// (a commit came since it was counted), or a lower bound
    /// (`ViewerWindow.rankLimit`). The title's position
    /// (`selectedRowNumber`).
    public var rowsBeforeWindow: RowCount?
    /// When the rows before the selection are counted in the background,
    /// where the window's fetch stops counting: one count at a time, each
    /// followed by a pause (`ViewerPacing.rowsBefore`).
    public var rowsBeforePacer: RefreshPacer
    /// True when a commit's window came while the rows before the
    /// selection were counted: the count is then an estimate.
    public var rowsBeforeCountSawCommit: Bool
    /// The row whose rows before the count that reads is counting (the
    /// selection when it started); nil when none ever started. Meaningful
    /// only while `rowsBeforePacer` reads.
    public var rowsBeforeCountPosition: RowPosition?
    /// The window last asked for, nil when no observation runs.
    public var observedRequest: RowWindowRequest?
    /// True until the current observation delivers its first window: its
    /// later windows are commits, which make the row count stale.
    public var awaitsFirstWindow: Bool
    /// The selected row, nil when there is none (empty, not loaded).
    public var selected: RowPosition?
    /// The screen row of the selection, from the top of the list: kept
    /// across updates, so that the selection keeps its place.
    public var selectedRow: Int
    /// The index, in the window, of the row on the top of the list.
    public var scrollTop: Int
    /// A jump to the first or last row that waits for its window.
    var pendingJump: JumpTarget?
    /// The rows that ↑ ↓ PgUp PgDn asked to move beyond the window, while
    /// it was read or past its edge (positive: down): applied when the next
    /// window arrives, so that no key is lost.
    public var pendingMove = 0
    /// The index, in the source's columns, of the first scrolling column
    /// shown (sideways scrolling; the key columns are frozen on the left).
    /// `viewerUpdate` moves it only as far as the column cursor needs to
    /// be whole on screen (`ColumnPlan.firstColumn(showing:from:)`).
    public var firstColumn: Int
    /// The index, in the source's columns, of the column cursor: the
    /// column that sorting and searching act on.
    public var currentColumn: Int
    /// The names of the columns hidden with `-`, until `=` shows them all.
    public var hiddenColumns: Set<String>
    /// The widths set with `<` `>`, by column name, while the table is open.
    public var columnWidths: [String: Int]
    /// The widest each column has been shown, by name: it does not narrow
    /// as other rows scroll in.
    var seenWidths: [String: Int] = [:]
    /// The sort that `[` or `]` asked for, from the key until its first
    /// window arrives: the status line says "sorting by …" meanwhile.
    public var pendingSort: PendingSort?
    /// The exact row count, nil until counted.
    public var rowCount: Int?
    /// The database's estimate of the row count, shown (`~N`) until the
    /// first count ends; nil when the database gives none (SQLite).
    public var rowCountEstimate: Int?
    /// When the row count runs: one count at a time, each followed by a
    /// pause (`ViewerPacing.count`): the same `RefreshPacer` as the
    /// window's reads, with longer pauses.
    public var countPacer: RefreshPacer
    /// True while the observation delivers: false after it failed.
    public var isLive: Bool
    /// True after a failure, until a window arrives again: a second
    /// failure then stops retrying.
    public var isRecovering: Bool
    /// Why the rows can not be read now (a lock held longer than the busy
    /// timeout, a writer that died mid-transaction…), nil while they can:
    /// the screen keeps its rows, `not live`, and reads again on the next
    /// commit or key.
    public var failure: String?
    /// Why the rows could not be counted, nil while they can: counted
    /// again on the next commit.
    public var countFailure: String?
    /// True while the file at the path is opened again, after another file
    /// took its place: the status line says so once it is open.
    public var reopensFile = false
    /// What changed in the window, by row identity, and since when:
    /// `viewerUpdate` feeds it each window and each tick of its timer, and
    /// `viewerRender` highlights the changed cells and new rows it tells.
    public var highlighter: ChangeHighlighter<StoredKey>
    /// Following the end of the ordering (`F`), or where it stopped; nil
    /// when not followed.
    public var follow: FollowState?
    /// The pause (Space): the screen frozen, what arrives counted; nil
    /// while the screen is live.
    public var paused: PauseState?
    /// The last search (`/`), which `n` and `N` repeat and whose matches
    /// the cells of its column highlight; nil before the first.
    public var search: TableSearch?
    /// The search that runs, nil when none does: `n` and `N` wait for it,
    /// and a new search (`/`) replaces it.
    public var pendingSearch: RowSearch?
    /// The `n` (true) and `N` (false) typed while a search runs, in order:
    /// each searches on from the match of the one before, so that `n n n`
    /// typed quickly moves three matches.
    public var queuedSearchSteps: [Bool] = []
    /// The filter being validated, while it is (`f`).
    public var pendingFilter: String?
    /// The filter as typed at the prompt, while it is validated: back on
    /// the prompt if it is rejected.
    var typedFilter: String?
    /// With a filter that SQLite reads with a scan, the number of rows
    /// each update scans; nil without a filter, or with one that an index
    /// answers.
    public var filterScannedRows: RowCount?
    /// The selected row read whole for the row view, where the windows
    /// read long values cut (PostgreSQL); nil when none is.
    public var wholeRow: WholeRow?

    /// The state of a source just opened.
    public init(viewed: ViewedSource) {
        self.viewed = viewed
        window = nil
        rowsBeforeWindow = nil
        rowsBeforePacer = RefreshPacer(pacing: ViewerPacing.rowsBefore)
        rowsBeforeCountSawCommit = false
        rowsBeforeCountPosition = nil
        observedRequest = nil
        awaitsFirstWindow = true
        selected = nil
        selectedRow = 0
        scrollTop = 0
        pendingJump = nil
        firstColumn = 0
        // On the sort column of `--sort`, so that `[` and `]` act on it;
        // else on the first column of the screen: the key, frozen on the left.
        // A query in its own order: on the first column of its ORDER BY.
        currentColumn = viewed.ordering.sortColumn.flatMap { name in
            viewed.source.columns.firstIndex { $0.name == name }
        } ?? viewed.source.queryOrder?.terms.first?.column ?? viewed.source.keyColumns.first ?? 0
        hiddenColumns = []
        columnWidths = [:]
        pendingSort = nil
        rowCount = nil
        rowCountEstimate = nil
        countPacer = RefreshPacer(pacing: ViewerPacing.count)
        isLive = false
        isRecovering = false
        failure = nil
        countFailure = nil
        highlighter = ChangeHighlighter()
        follow = nil
        paused = nil
        search = nil
        pendingSearch = nil
        queuedSearchSteps = []
        pendingFilter = nil
        filterScannedRows = nil
    }

    /// True while a count runs, or the pause after it: one count at a time.
    public var isCounting: Bool { countPacer.phase != .idle }
    /// True during the pause after a count, before the next may start.
    public var isCountPaused: Bool { countPacer.phase == .pausing }
    /// True when a commit came while counting or during the pause, or the
    /// count saw another process's commit: one more count follows.
    public var countIsStale: Bool { countPacer.isPending }

    /// True when `rowCount` may be out of date: a count runs, or a commit
    /// came since the last one. The title then shows `~`.
    public var rowCountIsApproximate: Bool {
        (isCounting && !isCountPaused) || countIsStale
    }

    /// True while the window asked for is read, with an older one on
    /// screen: moves wait for it rather than start another read.
    public var isReadingWindow: Bool {
        awaitsFirstWindow && observedRequest != nil && window != nil
    }

    /// The index of the selected row in the window, if there.
    public var selectedIndex: Int? {
        guard let selected, let window else { return nil }
        return window.positions.firstIndex(of: selected)
    }

    /// True while the view follows the end of the ordering.
    public var isFollowing: Bool {
        follow == .on
    }

    /// The rows that arrived after the last row since following stopped
    /// ("3 new rows ↓"), or nil when following did not stop or none is
    /// known to have arrived.
    ///
    /// It is exact when the window reaches the end of the ordering and
    /// holds the row that was last when following stopped: the rows after
    /// it. Otherwise (many rows arrived, that row was deleted or moved),
    /// it is estimated from the change of the row count, which also counts
    /// rows inserted elsewhere and subtracts deletions: `isExact` is false.
    public var newRowsBelow: (count: Int, isExact: Bool)? {
        guard case let .stopped(mark) = follow, let window else { return nil }
        // The rows after the mark in the window: all of them when the
        // window reaches the end, at least that many otherwise.
        let below = mark.lastRow
            .flatMap { window.positions.lastIndex(of: $0) }
            .map { window.rows.count - 1 - $0 }
        if let below, window.reachesEnd {
            return below > 0 ? (below, true) : nil
        }
        var estimate = below ?? 0
        if let then = mark.rowCount, let now = rowCount {
            estimate = max(estimate, now - then)
        }
        return estimate > 0 ? (estimate, false) : nil
    }
}

/// Following the end of the ordering, as `less +F` follows a file.
public enum FollowState: Equatable, Sendable {
    /// The view stays on the last row of the ordering as rows arrive.
    case on
    /// The user moved away from the end: following stopped, and the rows
    /// that arrive after this mark are counted ("3 new rows ↓").
    case stopped(FollowMark)
}

/// Where following stopped: the last row then, and the row count then.
public struct FollowMark: Equatable, Sendable {
    /// The position of the last row of the ordering when following
    /// stopped, nil when the window did not show it.
    public var lastRow: RowPosition?
    /// The exact row count when following stopped, nil when not known.
    public var rowCount: Int?

    /// Creates a mark.
    public init(lastRow: RowPosition?, rowCount: Int?) {
        self.lastRow = lastRow
        self.rowCount = rowCount
    }
}

/// A paused screen (Space): the window shown does not change while the
/// observation goes on delivering; the changes are counted, and the latest
/// window is kept for the resume.
public struct PauseState: Equatable, Sendable {
    /// The changes delivered since the pause ("paused — 12 changes").
    public var counter: ChangeCounter<StoredKey>
    /// The latest window delivered while paused, shown on resume.
    public var latest: ViewerWindow?
    /// True while every window delivered since the pause answered the
    /// request of the window shown: the latest is then compared with it as
    /// an update, and what changed lights up on resume.
    public var latestIsUpdate: Bool
    /// True once Space asked to resume (`ViewerEffect.resume`), until the
    /// time-stamped `.resumed` comes back.
    public var isResuming: Bool
    /// The keys typed while resuming, handled once the latest window shows.
    public var deferredKeys: [Key]

    /// The pause of a screen that shows `window` (the highlighter's).
    public init(showing window: WindowSnapshot<StoredKey>?) {
        counter = ChangeCounter(since: window)
        latest = nil
        latestIsUpdate = true
        isResuming = false
        deferredKeys = []
    }
}

/// A sort asked for with `[` or `]`, on its way to the screen: the source
/// is opened in its order (`ViewerEffect.open`), then its first window is
/// observed.
///
/// For example:
///
/// ```swift
/// // `]` on the column "price":
/// PendingSort(column: "price", descending: true, isOpened: false)
/// ```
public struct PendingSort: Equatable, Sendable {
    /// The column to sort on, nil for the natural order (the rowid, the
    /// primary key, or all columns for a view or a query).
    public var column: String?
    /// True for a descending sort.
    public var descending: Bool
    /// True once the source is opened in this order: the next window is
    /// the first one sorted so.
    public var isOpened: Bool
    /// True when the selected row stays selected in the new order: the
    /// status line then says how to go to the top.
    var keepsRow = false

    /// Creates a pending sort.
    public init(column: String?, descending: Bool, isOpened: Bool = false) {
        self.column = column
        self.descending = descending
        self.isOpened = isOpened
    }
}

/// The text of the last search, and the column it looks in.
public struct TableSearch: Equatable, Sendable {
    /// The text, as typed.
    public var text: String
    /// The index of the column, in the source's columns.
    public var column: Int

    /// Creates a search.
    public init(text: String, column: Int) {
        self.text = text
        self.column = column
    }
}

/// The prompt of the status line: what it asks for, and the line typed.
public struct ViewerPrompt: Equatable, Sendable {
    /// What the prompt asks for.
    public enum Kind: Equatable, Sendable {
        /// Text to search in the current column (`/`).
        case search
        /// A SQL expression to filter the rows by (`f`).
        case filter
        /// The name of a table of the picker, which the cursor finds as it is typed (`/`).
        case findTable
    }

    /// What the prompt asks for.
    public var kind: Kind
    /// The line being typed.
    var field: TextField
    /// Where ↑ ↓ stand in the prompt's history.
    var walk = PromptHistory.Walk()

    /// The most characters a prompt takes: more than any filter needs, few
    /// enough that each key stays instant.
    static let maximumLength = 1_000

    /// A prompt holding `text`, the cursor at its end.
    init(kind: Kind, text: String = "") {
        self.kind = kind
        self.field = TextField(text: text, maximumLength: Self.maximumLength)
    }

    /// The text typed.
    public var text: String { field.text }
}

/// What covers the screen.
public enum ViewerOverlay: Equatable, Sendable {
    /// The key table.
    case help
    /// The whole selected row, scrolled by this many lines.
    case row(scroll: Int)
}

/// A line of the status bar.
public enum ViewerStatusMessage: Equatable, Sendable {
    /// Something went wrong.
    case error(String)
    /// Something the user should know.
    case notice(String)
}
