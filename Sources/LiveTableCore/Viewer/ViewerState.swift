import ReactiveGRDB

// MARK: - State

/// Everything the viewer shows, as a plain value: `viewerUpdate` changes
/// it, `viewerRender` draws it. The selection is a row position (sort
/// value and key), so that it stays on its row across commits, and
/// `selectedRow` keeps its place on the screen.
public struct ViewerState: Equatable, Sendable {
    /// As the title shows it (`ViewerDataSource.name`).
    public var databaseName: String
    public var width: Int
    public var height: Int
    public var useColor: Bool
    public var picker: PickerState
    public var table: TableState?
    public var overlay: ViewerOverlay?
    /// Shown in the status line until the next key.
    public var message: ViewerStatusMessage?
    public var isStarted: Bool
    /// The title's note when commits are polled, and why ("polled every
    /// 0.1 s: fuse"); nil while file events are enough.
    public var liveness: String?
    /// False when other machines' commits can not be seen (a database on a
    /// network file system): the title never says `live`.
    public var seesOtherMachines = true
    /// The source being opened: a result that comes after `t` left it is dropped.
    public var pendingOpen: ViewerTarget?
    public var highlightsChanges: Bool
    /// The deadline of the running highlight timer: set again only when the
    /// table's next highlight deadline differs.
    public var highlightTimer: ContinuousClock.Instant?
    public var prompt: ViewerPrompt?
    var filterHistory = PromptHistory()
    /// The queries typed at `:` and given with `--query`, kept between runs
    /// (`HistoryFile`): set by the command line before the screen starts.
    public var queryHistory = PromptHistory()
    /// The sheets under the one on screen, bottom first: `q` goes back to
    /// the top one. Nil stands for the table picker.
    public var sheets: [ViewerTarget?] = []
    /// The query of a sheet being opened on top of this one (`:`): pushed
    /// once it opens, given back to its prompt when it can not.
    var pendingSheet: String?
    var tableMemories: [ViewerTarget: TableMemory] = [:]
    /// The picker's cursor starts on it, and Esc goes back to it.
    var leftTarget: ViewerTarget?

    /// On the table `opened` (read and checked before the screen is touched),
    /// or on the picker when it is nil.
    public static func initial(
        databaseName: String, opened: ViewedSource?, width: Int, height: Int, useColor: Bool = true) -> ViewerState
    {
        ViewerState(
            databaseName: databaseName, width: max(0, width), height: max(0, height), useColor: useColor,
            picker: PickerState(), table: opened.map(TableState.init(viewed:)),
            overlay: nil, message: opened.flatMap(openingNotice), isStarted: false, liveness: nil, pendingOpen: nil,
            highlightsChanges: true, highlightTimer: nil, prompt: nil)
    }

    public var pageRows: Int {
        ViewerLayout(width: width, height: height).listRows
    }
}

/// The table picker: the tables and views of the file, with their row counts.
public struct PickerState: Equatable, Sendable {
    public var entries: [PickerEntry]?
    public var selectedIndex: Int
    public var scrollTop: Int
    /// Kept until the list is read again (in a second, or at the next key).
    public var failure: String?
    /// Where the cursor goes when the list arrives: the table left.
    var pendingSelection: String?

    public init(entries: [PickerEntry]? = nil, selectedIndex: Int = 0, scrollTop: Int = 0) {
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

/// What is kept of a table left with `t`, for the session.
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

public struct PickerEntry: Equatable, Sendable {
    public var name: String
    public var kind: TableSchema.Kind
    /// Nil when it can not be counted within `countTimeLimit` (shown "?").
    public var count: RowCount?
    /// The names show at once, the counts as they come.
    public var isCounting: Bool

    public static let countTimeLimit: Double = 1

    public init(name: String, kind: TableSchema.Kind, count: RowCount?, isCounting: Bool = false) {
        self.name = name
        self.kind = kind
        self.count = count
        self.isCounting = isCounting
    }
}

public struct TableState: Equatable, Sendable {
    public var viewed: ViewedSource
    public var window: RowWindow?
    /// The rows before the window's first, for the title's position: exact
    /// (counted by the window's fetch, in the background, or carried over),
    /// estimated (a commit came since), or a lower bound (`rankLimit`).
    public var rowsBeforeWindow: RowCount?
    /// Counts the rows before the selection in the background where the
    /// window's fetch stops: one count at a time, each followed by a pause.
    public var rowsBeforePacer: RefreshPacer
    /// A commit came during that count: it is then an estimate.
    public var rowsBeforeCountSawCommit: Bool
    /// The row being counted before; meaningful only while the pacer reads.
    public var rowsBeforeCountPosition: RowPosition?
    public var observedRequest: RowWindowRequest?
    /// The observation's later windows are commits, which make the count stale.
    public var awaitsFirstWindow: Bool
    public var selected: RowPosition?
    /// Kept across updates, so that the selection keeps its place on screen.
    public var selectedRow: Int
    public var scrollTop: Int
    var pendingJump: JumpTarget?
    /// Moves asked beyond the window while it was read (positive: down),
    /// applied when the next window arrives, so that no key is lost.
    public var pendingMove = 0
    /// The first scrolling column shown (the key columns are frozen on the
    /// left); moved only as far as the column cursor needs to be whole.
    public var firstColumn: Int
    public var currentColumn: Int
    public var hiddenColumns: Set<String>
    public var columnWidths: [String: Int]
    /// The widest each column has been shown: it does not narrow as other
    /// rows scroll in.
    var seenWidths: [String: Int] = [:]
    /// From `[` or `]` until its first window: the status line says "sorting by …".
    public var pendingSort: PendingSort?
    public var rowCount: Int?
    /// The database's estimate, shown `~N` until the first count ends (none on SQLite).
    public var rowCountEstimate: Int?
    /// One count at a time, each followed by a pause (`ViewerPacing.count`),
    /// so that counting a big table on each commit does not load the database.
    public var countPacer: RefreshPacer
    public var isLive: Bool
    /// After a failure, until a window arrives: a second failure stops retrying.
    public var isRecovering: Bool
    /// Why the rows can not be read now (a lock held too long, a writer that
    /// died mid-transaction…): the screen keeps its rows, says `not live`, and
    /// reads again on the next commit or key.
    public var failure: String?
    public var countFailure: String?
    /// The file at the path is opened again, after another file took its place.
    public var reopensFile = false
    public var highlighter: ChangeHighlighter<StoredKey>
    public var follow: FollowState?
    /// The pause (Space): the screen frozen, what arrives counted.
    public var paused: PauseState?
    public var search: TableSearch?
    /// `n` and `N` wait for it; a new `/` replaces it.
    public var pendingSearch: RowSearch?
    /// The `n` and `N` typed while a search runs: each searches on from the
    /// match of the one before, so that `n n n` typed quickly moves three.
    public var queuedSearchSteps: [Bool] = []
    public var pendingFilter: String?
    /// Back on the prompt if the filter is rejected.
    var typedFilter: String?
    /// With a filter the database answers with a scan, the rows each update scans.
    public var filterScannedRows: RowCount?
    /// The selected row read whole for the row view, where the windows cut
    /// long values (PostgreSQL).
    public var wholeRow: WholeRow?

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

    public var isCounting: Bool { countPacer.phase != .idle }
    public var isCountPaused: Bool { countPacer.phase == .pausing }
    /// A commit came while counting or pausing: one more count follows.
    public var countIsStale: Bool { countPacer.isPending }

    /// The title then shows `~`: a count runs, or a commit came since the last.
    public var rowCountIsApproximate: Bool {
        (isCounting && !isCountPaused) || countIsStale
    }

    /// Moves wait for the window being read rather than start another read.
    public var isReadingWindow: Bool {
        awaitsFirstWindow && observedRequest != nil && window != nil
    }

    public var selectedIndex: Int? {
        guard let selected, let window else { return nil }
        return window.positions.firstIndex(of: selected)
    }

    public var isFollowing: Bool {
        follow == .on
    }

    /// The rows that arrived since following stopped ("3 new rows ↓"). Exact
    /// when the window reaches the end and still holds the row that was last
    /// then; otherwise estimated from the row count's change, which also
    /// counts inserts elsewhere and deletions.
    public var newRowsBelow: (count: Int, isExact: Bool)? {
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
public enum FollowState: Equatable, Sendable {
    case on
    /// The user moved away from the end: the rows that arrive are counted.
    case stopped(FollowMark)
}

public struct FollowMark: Equatable, Sendable {
    /// Nil when the window did not show the last row.
    public var lastRow: RowPosition?
    public var rowCount: Int?

    public init(lastRow: RowPosition?, rowCount: Int?) {
        self.lastRow = lastRow
        self.rowCount = rowCount
    }
}

/// A paused screen (Space): the window shown stays while the observation
/// delivers; changes are counted, and the latest window shows on resume.
public struct PauseState: Equatable, Sendable {
    public var counter: ChangeCounter<StoredKey>
    public var latest: ViewerWindow?
    /// Every window since the pause answered the shown window's request: the
    /// latest is compared with it as an update, and what changed lights up.
    public var latestIsUpdate: Bool
    /// From Space until the time-stamped `.resumed` comes back.
    public var isResuming: Bool
    /// Handled once the latest window shows.
    public var deferredKeys: [Key]

    public init(showing window: WindowSnapshot<StoredKey>?) {
        counter = ChangeCounter(since: window)
        latest = nil
        latestIsUpdate = true
        isResuming = false
        deferredKeys = []
    }
}

/// A sort asked with `[` or `]`: the source is opened in its order, then
/// its first window observed.
public struct PendingSort: Equatable, Sendable {
    /// Nil for the natural order (rowid, primary key, or all columns).
    public var column: String?
    public var descending: Bool
    public var isOpened: Bool
    /// The selected row stays selected: the status line says how to go to the top.
    var keepsRow = false

    public init(column: String?, descending: Bool, isOpened: Bool = false) {
        self.column = column
        self.descending = descending
        self.isOpened = isOpened
    }
}

public struct TableSearch: Equatable, Sendable {
    public var text: String
    public var column: Int

    public init(text: String, column: Int) {
        self.text = text
        self.column = column
    }
}

public struct ViewerPrompt: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        case search
        case filter
        case findTable
        /// A SQL query, opened as a new sheet (`:`).
        case query
    }

    public var kind: Kind
    var field: TextField
    var walk = PromptHistory.Walk()

    /// More than any filter needs, few enough that each key stays instant.
    static let maximumLength = 1_000
    /// A query pasted from an editor can be long.
    static let maximumQueryLength = 20_000

    init(kind: Kind, text: String = "") {
        self.kind = kind
        self.field = TextField(text: text, maximumLength: kind == .query ? Self.maximumQueryLength : Self.maximumLength)
    }

    public var text: String { field.text }
}

public enum ViewerOverlay: Equatable, Sendable {
    case help
    case row(scroll: Int)
}

public enum ViewerStatusMessage: Equatable, Sendable {
    case error(String)
    case notice(String)
}
