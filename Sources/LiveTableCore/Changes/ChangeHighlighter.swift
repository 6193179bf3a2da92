/// The change highlighting of one screen, as a plain value: it compares
/// each delivered window with the previous one by row identity (see
/// `WindowDiff`), remembers when each cell changed and each row arrived,
/// and derives from those times and the current time which cells are
/// highlighted, and how strongly.
///
/// The host (the app's state and update) drives it with three calls:
///
/// - `take(_:cause:at:)` for each delivered window, with `.update` when
///   the window answers the same request as the previous one and
///   `.navigation` otherwise, so that a scroll never lights rows up;
/// - `advance(to:)` when the one-shot timer it set for `nextDeadline`
///   fires; no timer runs when `nextDeadline` is nil, so an idle screen
///   costs no CPU;
/// - `markAsSeen()` on each key the user presses: the row-count change
///   and the deletions count from that "last look" on.
///
/// The last look is the last key, not the end of the last highlight: a
/// user who looks away for a minute comes back to "+40" and "3 rows
/// deleted", which a count reset every two seconds of calm would have
/// lost; a user who scrolls sees counts of what happened since their last
/// move only.
///
/// The window of a screen may hold rows above and below the visible ones
/// (the Hall of Fame keeps a margin): they are highlighted too, so that a
/// row scrolled into view a moment after its change shows it.
///
/// `render` reads `highlight(row:cell:)` and `rowHighlight(row:)`, and
/// the title and status line read `rowCountChangeText` and
/// `deletionsText`.
///
/// For example:
///
/// ```swift
/// var highlighter = ChangeHighlighter<Int64>()
/// _ = highlighter.take(first, cause: .update, at: now)     // nothing: no previous window
/// let diff = highlighter.take(second, cause: .update, at: now)
/// highlighter.highlight(row: 42, cell: HallOfFame.scoreCell)  // .changed, .strong
/// if let deadline = highlighter.nextDeadline { scheduleTick(at: deadline) }
/// // 0.6 seconds later:
/// highlighter.advance(to: later)
/// highlighter.highlight(row: 42, cell: HallOfFame.scoreCell)  // .changed, .faint
/// ```
public struct ChangeHighlighter<RowID: Hashable & Sendable>: Equatable, Sendable {
    /// A moment of the monotonic clock the host reads.
    public typealias Instant = ContinuousClock.Instant

    /// How long a highlight stays `.strong`.
    public static var strongDuration: Duration { .milliseconds(600) }
    /// How long a highlight lasts in all: `.strong`, then `.faint` until then.
    public static var fadeDuration: Duration { .seconds(2) }

    /// When each change of a row happened, for rows still highlighted.
    private struct RowMarks: Equatable, Sendable {
        /// When the row arrived in the window, if it did recently.
        var addedAt: Instant?
        /// When each recently changed cell changed, by cell index.
        var changedAt: [Int: Instant] = [:]

        var instants: [Instant] {
            (addedAt.map { [$0] } ?? []) + Array(changedAt.values)
        }
    }

    // MARK: - State

    /// False when highlighting is off: windows are still taken (so that
    /// turning it on does not light up what changed meanwhile), but
    /// nothing is highlighted or counted. Turning it off clears what is
    /// highlighted; turning it on starts a new "last look".
    public var isEnabled: Bool {
        didSet {
            guard isEnabled != oldValue else { return }
            marks = [:]
            deletionsSinceLastLook = 0
            rowCountAtLastLook = rowCount
        }
    }

    /// The current time: the latest one given to `take(_:cause:at:)` or
    /// `advance(to:)`, nil before any. Highlights are derived from it.
    public private(set) var now: Instant?

    /// The window last taken, which the next one is compared with.
    public private(set) var window: WindowSnapshot<RowID>?

    /// The latest known row count.
    public private(set) var rowCount: Int?

    /// The row count at the last look (`markAsSeen()`), or at the first
    /// window that told it.
    public private(set) var rowCountAtLastLook: Int?

    /// The number of rows deleted since the last look, as the host
    /// confirmed them with `noteDeletions(_:)`.
    public private(set) var deletionsSinceLastLook: Int

    /// The recent changes of rows of the current window, by row id.
    private var marks: [RowID: RowMarks]

    /// Creates a highlighter that has seen no window yet.
    ///
    /// For example:
    ///
    /// ```swift
    /// var highlighter = ChangeHighlighter<Int64>(isEnabled: !options.noHighlight)
    /// ```
    public init(isEnabled: Bool = true) {
        self.isEnabled = isEnabled
        self.now = nil
        self.window = nil
        self.rowCount = nil
        self.rowCountAtLastLook = nil
        self.deletionsSinceLastLook = 0
        self.marks = [:]
    }

    // MARK: - Host calls

    /// Compares a delivered window with the previous one and highlights
    /// what changed: changed cells, and rows new in the window's range.
    ///
    /// The first window after `init` or `reset()` highlights nothing.
    /// Highlights of rows that stay in the window carry on fading, even
    /// across a navigation; those of rows that left are dropped.
    ///
    /// For example:
    ///
    /// ```swift
    /// let cause: WindowChange = newValue.request == oldValue?.request ? .update : .navigation
    /// let diff = highlighter.take(newValue.changeSnapshot, cause: cause, at: .now)
    /// if !diff.departedRows.isEmpty { effects.append(.checkDeleted(diff.departedRows)) }
    /// ```
    ///
    /// - parameter window: The delivered window.
    /// - parameter cause: `.update` when `window` answers the same request
    ///   as the previous window, `.navigation` otherwise.
    /// - parameter now: The current time.
    /// - returns: The differences it highlights: empty on the first window
    ///   and while disabled. Its `departedRows` left from within the window
    ///   (deleted, or moved out by an update): pass those the database no
    ///   longer holds to `noteDeletions(_:)`.
    @discardableResult
    public mutating func take(
        _ window: WindowSnapshot<RowID>, cause: WindowChange, at now: Instant) -> WindowDiff<RowID>
    {
        let previous = self.window
        self.window = window
        if let count = window.rowCount {
            rowCount = count
            if rowCountAtLastLook == nil { rowCountAtLastLook = count }
        }
        advance(to: now)
        let ids = Set(window.rows.map(\.id))
        marks = marks.filter { ids.contains($0.key) }

        guard isEnabled, let previous else { return WindowDiff() }
        let diff = WindowDiff(from: previous, to: window, cause: cause)
        let time = self.now ?? now
        for (id, cells) in diff.changedCells {
            for cell in cells {
                marks[id, default: RowMarks()].changedAt[cell] = time
            }
        }
        for id in diff.addedRows {
            marks[id, default: RowMarks()].addedAt = time
        }
        return diff
    }

    /// Moves the current time on (never back) and forgets the highlights
    /// that have faded: call it when the timer set for `nextDeadline`
    /// fires.
    ///
    /// For example:
    ///
    /// ```swift
    /// case let .tick(now):
    ///     state.highlighter.advance(to: now)
    /// ```
    public mutating func advance(to now: Instant) {
        if let current = self.now, current >= now {
            // The clock never goes back: keep the later time.
        } else {
            self.now = now
        }
        guard let time = self.now else { return }
        marks = marks.compactMapValues { row in
            var row = row
            if let addedAt = row.addedAt, Self.level(since: addedAt, at: time) == nil {
                row.addedAt = nil
            }
            row.changedAt = row.changedAt.filter { Self.level(since: $0.value, at: time) != nil }
            return row.addedAt == nil && row.changedAt.isEmpty ? nil : row
        }
    }

    /// Records rows that the host confirmed deleted, among the
    /// `departedRows` of a window: they count in `deletionsSinceLastLook`.
    /// Ignored while disabled.
    ///
    /// Why the host confirms: a row that leaves from within the window
    /// was either deleted or moved out by an update of its sort values,
    /// and only the database knows which. The row count can not tell
    /// either when another row was inserted meanwhile.
    ///
    /// For example:
    ///
    /// ```swift
    /// case let .deletedRows(ids):
    ///     state.highlighter.noteDeletions(ids)
    /// ```
    public mutating func noteDeletions(_ ids: some Collection<RowID>) {
        guard isEnabled else { return }
        deletionsSinceLastLook += ids.count
    }

    /// Notes that the user looked at the screen (pressed a key): the
    /// row-count change and the deletions count start again from here.
    ///
    /// For example:
    ///
    /// ```swift
    /// case .key:
    ///     state.highlighter.markAsSeen()
    /// ```
    public mutating func markAsSeen() {
        rowCountAtLastLook = rowCount
        deletionsSinceLastLook = 0
    }

    /// Forgets every window, highlight and count: for another table or
    /// query, whose row ids mean other rows. The next window highlights
    /// nothing.
    ///
    /// For example:
    ///
    /// ```swift
    /// state.highlighter.reset()
    /// ```
    public mutating func reset() {
        window = nil
        rowCount = nil
        rowCountAtLastLook = nil
        deletionsSinceLastLook = 0
        marks = [:]
    }

    // MARK: - Reading

    /// The highlight of a cell at the current time, or nil when it has
    /// none: the most recent of its row's arrival and its own change.
    ///
    /// For example:
    ///
    /// ```swift
    /// let style = CellStyle.plain.highlighted(highlighter.highlight(row: 42, cell: 1))
    /// ```
    ///
    /// - parameter id: The id of the row.
    /// - parameter cell: The index of the cell in the row's cells.
    public func highlight(row id: RowID, cell: Int) -> CellHighlight? {
        guard let now, let row = marks[id] else { return nil }
        let changed = row.changedAt[cell].flatMap { at in Self.level(since: at, at: now).map { (at, $0) } }
        let added = row.addedAt.flatMap { at in Self.level(since: at, at: now).map { (at, $0) } }
        switch (changed, added) {
        case let (changed?, added?):
            return changed.0 >= added.0
                ? CellHighlight(kind: .changed, level: changed.1)
                : CellHighlight(kind: .added, level: added.1)
        case let (changed?, nil):
            return CellHighlight(kind: .changed, level: changed.1)
        case let (nil, added?):
            return CellHighlight(kind: .added, level: added.1)
        case (nil, nil):
            return nil
        }
    }

    /// The highlight of a whole row at the current time, nil unless the
    /// row is new in the window: for what lies outside its cells (the
    /// gaps between columns, a row number), so that it reads as a band.
    ///
    /// For example:
    ///
    /// ```swift
    /// let gapStyle = rowStyle.highlighted(highlighter.rowHighlight(row: 42))
    /// ```
    public func rowHighlight(row id: RowID) -> CellHighlight? {
        guard let now, let addedAt = marks[id]?.addedAt,
            let level = Self.level(since: addedAt, at: now)
        else { return nil }
        return CellHighlight(kind: .added, level: level)
    }

    /// True while some cell is highlighted at the current time.
    public var isHighlighting: Bool {
        nextDeadline != nil
    }

    /// The next time a highlight changes level (strong to faint, or faint
    /// to none), or nil when nothing is highlighted. The host runs a
    /// one-shot timer to that time, then calls `advance(to:)`.
    ///
    /// For example:
    ///
    /// ```swift
    /// if let deadline = state.highlighter.nextDeadline {
    ///     effects.append(.tick(at: deadline))
    /// }
    /// ```
    public var nextDeadline: Instant? {
        guard let now else { return nil }
        var next: Instant?
        for row in marks.values {
            for at in row.instants {
                let deadline: Instant
                if now < at + Self.strongDuration {
                    deadline = at + Self.strongDuration
                } else if now < at + Self.fadeDuration {
                    deadline = at + Self.fadeDuration
                } else {
                    continue
                }
                next = next.map { min($0, deadline) } ?? deadline
            }
        }
        return next
    }

    /// The change of the row count since the last look (`+3`, `-1`), or
    /// nil when highlighting is off or the count is not known. Zero when
    /// the count is back where it was.
    ///
    /// For example:
    ///
    /// ```swift
    /// if let change = highlighter.rowCountChange, change != 0 {
    ///     print("\(change) rows since the last key")
    /// }
    /// ```
    public var rowCountChange: Int? {
        guard isEnabled, let rowCount, let rowCountAtLastLook else { return nil }
        return rowCount - rowCountAtLastLook
    }

    // MARK: - Text

    /// The row-count change as a title shows it: "+3", "−1" (a minus
    /// sign), or nil when there is none to show.
    ///
    /// For example:
    ///
    /// ```swift
    /// if let change = highlighter.rowCountChangeText { title += " " + change }
    /// ```
    public var rowCountChangeText: String? {
        guard let change = rowCountChange, change != 0 else { return nil }
        return change > 0 ? "+\(change)" : "\u{2212}\(-change)"
    }

    /// The deletions as a status line notes them: "1 row deleted",
    /// "3 rows deleted", or nil when there is none.
    ///
    /// For example:
    ///
    /// ```swift
    /// status.note = highlighter.deletionsText
    /// ```
    public var deletionsText: String? {
        guard isEnabled, deletionsSinceLastLook > 0 else { return nil }
        return deletionsSinceLastLook == 1 ? "1 row deleted" : "\(deletionsSinceLastLook) rows deleted"
    }

    // MARK: - Fading

    /// The level of a highlight that started at `start`, at `now`.
    private static func level(since start: Instant, at now: Instant) -> CellHighlight.Level? {
        if now < start + strongDuration { return .strong }
        if now < start + fadeDuration { return .faint }
        return nil
    }
}
