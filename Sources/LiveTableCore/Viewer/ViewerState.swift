import ReactiveGRDB

// MARK: - State

/// Everything the viewer shows, as a plain value: `viewerUpdate` changes
/// it, `viewerRender` draws it. The selection is a row position (sort
/// value and key), so that it stays on its row across commits, and
/// `selectedRow` keeps its place on the screen.
package struct ViewerState: Equatable, Sendable {
    /// As the title shows it (`ViewerDataSource.name`).
    package var databaseName: String
    package var width: Int
    package var height: Int
    package var useColor: Bool
    package var picker: PickerState
    package var table: TableState?
    package var overlay: ViewerOverlay?
    /// Shown in the status line until the next key.
    package var message: ViewerStatusMessage?
    package var isStarted: Bool
    /// The title's note when commits are polled, and why ("polled every
    /// 0.1 s: fuse"); nil while file events are enough.
    package var liveness: String?
    /// False when other machines' commits can not be seen (a database on a
    /// network file system): the title never says `live`.
    package var seesOtherMachines = true
    /// The source being opened: a result that comes after `t` left it is dropped.
    package var pendingOpen: ViewerTarget?
    package var highlightsChanges: Bool
    /// The deadline of the running highlight timer: set again only when the
    /// table's next highlight deadline differs.
    package var highlightTimer: ContinuousClock.Instant?
    package var prompt: ViewerPrompt?
    /// `--alert` or `!`: the rows matching a condition ring the bell.
    package var alert: ViewerAlert?
    /// `L`: the changes seen while open, in every sheet.
    package var changesLog = ChangesLog()
    var filterHistory = PromptHistory()
    /// The queries typed at `:` and given with `--query`, kept between runs
    /// (`HistoryFile`): set by the command line before the screen starts.
    package var queryHistory = PromptHistory()
    /// The sheets under the one on screen, bottom first, each as it was
    /// left: `q` goes back to the top one.
    var coveredSheets: [CoveredSheet] = []
    /// A sheet being opened on top of this one: pushed once it opens.
    var pendingSheet: PendingSheet?
    /// How the sheet being opened is shown (a sheet uncovered, a group's
    /// rows); else as its table was left with `t`.
    var pendingMemory: TableMemory?
    /// The source being opened takes the place of the sheet on screen, as
    /// it is shown then (a describe sheet's figures).
    var replacesSheet = false
    var tableMemories: [ViewerTarget: TableMemory] = [:]
    /// The picker's cursor starts on it, and Esc goes back to it.
    var leftTarget: ViewerTarget?
    /// The save that runs (`s`): the status line shows its progress.
    package var saving: SaveProgress?
    /// The file exists: the next key says whether to replace it.
    var overwriteQuestion: SaveRequest?

    /// On the table `opened` (read and checked before the screen is touched),
    /// or on the picker when it is nil.
    package static func initial(
        databaseName: String, opened: ViewedSource?, width: Int, height: Int, useColor: Bool = true) -> ViewerState
    {
        ViewerState(
            databaseName: databaseName, width: max(0, width), height: max(0, height), useColor: useColor,
            picker: PickerState(), table: opened.map(TableState.init(viewed:)),
            overlay: nil, message: opened.flatMap(openingNotice), isStarted: false, liveness: nil, pendingOpen: nil,
            highlightsChanges: true, highlightTimer: nil, prompt: nil)
    }

    package var pageRows: Int {
        ViewerLayout(width: width, height: height).listRows
    }
}

/// The table picker: the tables and views of the file, with their row counts.
package struct PickerState: Equatable, Sendable {
    package var entries: [PickerEntry]?
    package var selectedIndex: Int
    package var scrollTop: Int
    /// Kept until the list is read again (in a second, or at the next key).
    package var failure: String?
    /// Where the cursor goes when the list arrives: the table left.
    var pendingSelection: String?

    package init(entries: [PickerEntry]? = nil, selectedIndex: Int = 0, scrollTop: Int = 0) {
        self.entries = entries
        self.selectedIndex = selectedIndex
        self.scrollTop = scrollTop
        failure = nil
        pendingSelection = nil
    }

    mutating func select(_ name: String) {
        if let index = entries?.firstIndex(where: { $0.name == name }) {
            selectedIndex = index
        }
    }
}

/// A sheet under the one on screen. A nil target stands for the table picker.
struct CoveredSheet: Equatable, Sendable {
    var target: ViewerTarget?
    var memory: TableMemory?
}

/// A sheet on its way; `prompt`: the query typed at `:`, given back to its
/// prompt when it can not be opened.
struct PendingSheet: Equatable, Sendable {
    var prompt: String?
    /// The row to select once it opens (`o`'s referenced row), found as a
    /// search finds its match. A sheet of the table on screen opens on top.
    var locate: RowSearch?
    /// `q`: the sheet below, shown anew even where it reads the same
    /// source as the one closed (a table's row referenced by that table);
    /// put back under the one on screen if it can not be opened.
    var uncovered: CoveredSheet?
    var uncovers: Bool { uncovered != nil }
}

/// What is kept of a table left with `t`, for the session, and of a
/// covered sheet.
struct TableMemory: Equatable, Sendable {
    var sortColumn: String?
    var descending = false
    var filter: String?
    var selected: RowPosition?
    var selectedRow = 0
    var currentColumn: String?
    var firstColumn: String?
    var hiddenColumns: Set<String> = []
    var columnWidths: [String: Int] = [:]
    var seenWidths: [String: Int] = [:]
}

package struct PickerEntry: Equatable, Sendable {
    package var name: String
    package var kind: TableSchema.Kind
    /// Nil when it can not be counted within `countTimeLimit` (shown "?").
    package var count: RowCount?
    /// The names show at once, the counts as they come.
    package var isCounting: Bool

    package static let countTimeLimit: Double = 1

    package init(name: String, kind: TableSchema.Kind, count: RowCount?, isCounting: Bool = false) {
        self.name = name
        self.kind = kind
        self.count = count
        self.isCounting = isCounting
    }
}

package struct TableState: Equatable, Sendable {
    package var viewed: ViewedSource
    package var window: RowWindow?
    /// The rows before the window's first, for the title's position: exact
    /// (counted by the window's fetch, in the background, or carried over),
    /// estimated (a commit came since), or a lower bound (`rankLimit`).
    package var rowsBeforeWindow: RowCount?
    /// Counts the rows before the selection in the background where the
    /// window's fetch stops: one count at a time, each followed by a pause.
    package var rowsBeforePacer: RefreshPacer
    /// A commit came during that count: it is then an estimate.
    package var rowsBeforeCountSawCommit: Bool
    /// The row being counted before; meaningful only while the pacer reads.
    package var rowsBeforeCountPosition: RowPosition?
    package var observedRequest: RowWindowRequest?
    /// The observation's later windows are commits, which make the count stale.
    package var awaitsFirstWindow: Bool
    package var selected: RowPosition?
    /// Kept across updates, so that the selection keeps its place on screen.
    package var selectedRow: Int
    package var scrollTop: Int
    var pendingJump: JumpTarget?
    /// Moves asked beyond the window while it was read (positive: down),
    /// applied when the next window arrives, so that no key is lost.
    package var pendingMove = 0
    /// The first scrolling column shown (the key columns are frozen on the
    /// left); moved only as far as the column cursor needs to be whole.
    package var firstColumn: Int
    package var currentColumn: Int
    package var hiddenColumns: Set<String>
    package var columnWidths: [String: Int]
    /// The widest each column has been shown: it does not narrow as other
    /// rows scroll in.
    var seenWidths: [String: Int] = [:]
    /// From `[` or `]` until its first window: the status line says "sorting by …".
    package var pendingSort: PendingSort?
    package var rowCount: Int?
    /// The database's estimate, shown `~N` until the first count ends (none on SQLite).
    package var rowCountEstimate: Int?
    /// One count at a time, each followed by a pause (`ViewerPacing.count`),
    /// so that counting a big table on each commit does not load the database.
    package var countPacer: RefreshPacer
    /// The first exact count of the source, shown without `~` though
    /// commits came while it ran (autovacuum moves the token): counted
    /// again after its pause, as any (issue 25, item 11).
    package var countShownAsIs = false
    package var isLive: Bool
    /// After a failure, until a window arrives: a second failure stops retrying.
    package var isRecovering: Bool
    /// Why the rows can not be read now (a lock held too long, a writer that
    /// died mid-transaction…): the screen keeps its rows, says `not live`, and
    /// reads again on the next commit or key.
    package var failure: String?
    package var countFailure: String?
    /// The file at the path is opened again, after another file took its place.
    package var reopensFile = false
    package var highlighter: ChangeHighlighter<StoredKey>
    package var follow: FollowState?
    /// The pause (Space): the screen frozen, what arrives counted.
    package var paused: PauseState?
    package var search: TableSearch?
    /// `n` and `N` wait for it; a new `/` replaces it.
    package var pendingSearch: RowSearch?
    /// The `n` and `N` typed while a search runs: each searches on from the
    /// match of the one before, so that `n n n` typed quickly moves three.
    package var queuedSearchSteps: [Bool] = []
    package var pendingFilter: String?
    /// Back on the prompt if the filter is rejected.
    var typedFilter: String?
    /// With a filter the database answers with a scan, the rows each update scans.
    package var filterScannedRows: RowCount?
    /// The selected row read whole for the row view, where the windows cut
    /// long values (PostgreSQL).
    package var wholeRow: WholeRow?
    /// `o` waits for the selected row read whole, to follow this key.
    var followedKey: ForeignKey?
    /// `y` or `Y` waits for the selected row read whole.
    var pendingCopy: CopyRequest?

    package init(viewed: ViewedSource) {
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
        // On the sort column, so that `[` and `]` act on it; else on the key,
        // or on the first column of a query's ORDER BY.
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

    package var isCounting: Bool { countPacer.phase != .idle }
    package var isCountPaused: Bool { countPacer.phase == .pausing }
    /// A commit came while counting or pausing: one more count follows.
    package var countIsStale: Bool { countPacer.isPending }

    /// The title then shows `~`: a count runs, or a commit came since the last.
    package var rowCountIsApproximate: Bool {
        (isCounting && !isCountPaused) || (countIsStale && !countShownAsIs)
    }

    /// Moves wait for the window being read rather than start another read.
    package var isReadingWindow: Bool {
        awaitsFirstWindow && observedRequest != nil && window != nil
    }

    package var selectedIndex: Int? {
        guard let selected, let window else { return nil }
        return window.positions.firstIndex(of: selected)
    }

    package var isFollowing: Bool {
        follow == .on
    }

    /// The rows that arrived since following stopped ("3 new rows ↓"). Exact
    /// when the window reaches the end and still holds the row that was last
    /// then; otherwise estimated from the row count's change, which also
    /// counts inserts elsewhere and deletions.
    package var newRowsBelow: (count: Int, isExact: Bool)? {
        guard case let .stopped(mark) = follow, let window else { return nil }
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
package enum FollowState: Equatable, Sendable {
    case on
    /// The user moved away from the end: the rows that arrive are counted.
    case stopped(FollowMark)
}

package struct FollowMark: Equatable, Sendable {
    /// Nil when the window did not show the last row.
    package var lastRow: RowPosition?
    package var rowCount: Int?

    package init(lastRow: RowPosition?, rowCount: Int?) {
        self.lastRow = lastRow
        self.rowCount = rowCount
    }
}

/// A paused screen (Space): the window shown stays while the observation
/// delivers; changes are counted, and the latest window shows on resume.
package struct PauseState: Equatable, Sendable {
    package var counter: ChangeCounter<StoredKey>
    package var latest: ViewerWindow?
    /// Every window since the pause answered the shown window's request: the
    /// latest is compared with it as an update, and what changed lights up.
    package var latestIsUpdate: Bool
    /// From Space until the time-stamped `.resumed` comes back.
    package var isResuming: Bool
    /// Handled once the latest window shows.
    package var deferredKeys: [Key]

    package init(showing window: WindowSnapshot<StoredKey>?) {
        counter = ChangeCounter(since: window)
        latest = nil
        latestIsUpdate = true
        isResuming = false
        deferredKeys = []
    }
}

/// A sort asked with `[` or `]`: the source is opened in its order, then
/// its first window observed.
package struct PendingSort: Equatable, Sendable {
    /// Nil for the natural order (rowid, primary key, or all columns).
    package var column: String?
    package var descending: Bool
    package var isOpened: Bool
    /// The selected row stays selected: the status line says how to go to the top.
    var keepsRow = false

    package init(column: String?, descending: Bool, isOpened: Bool = false) {
        self.column = column
        self.descending = descending
        self.isOpened = isOpened
    }
}

package struct TableSearch: Equatable, Sendable {
    package var text: String
    /// Nil: every column of the row (Tab in the prompt).
    package var column: Int?

    package init(text: String, column: Int?) {
        self.text = text
        self.column = column
    }
}

package struct ViewerPrompt: Equatable, Sendable {
    package enum Kind: Equatable, Sendable {
        case search
        case filter
        case findTable
        /// A SQL query, opened as a new sheet (`:`).
        case query
        /// Part of a column's name (`c`).
        case findColumn
        /// A file name (`s`).
        case save
        /// A SQL condition that rows ring the bell for (`!`).
        case alert
    }

    package var kind: Kind
    var field: TextField
    var walk = PromptHistory.Walk()
    /// The search prompt looks in every column of the row (Tab toggles it).
    var searchesAllColumns = false

    /// More than any filter needs, few enough that each key stays instant.
    static let maximumLength = 1_000
    /// A query pasted from an editor can be long.
    static let maximumQueryLength = 20_000

    init(kind: Kind, text: String = "") {
        self.kind = kind
        self.field = TextField(text: text, maximumLength: kind == .query ? Self.maximumQueryLength : Self.maximumLength)
        // SQL keeps its line ends: a pasted `--` comment ends with its line.
        field.keepsLineEnds = kind == .query || kind == .filter || kind == .alert
    }

    package var text: String { field.text }
}

package enum ViewerOverlay: Equatable, Sendable {
    /// The key table, from its row `scroll`.
    case help(scroll: Int)
    case row(scroll: Int)
}

package enum ViewerStatusMessage: Equatable, Sendable {
    case error(String)
    case notice(String)
}
