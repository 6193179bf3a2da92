/// The change highlighting of one screen, as a plain value: it compares
/// each delivered window with the previous one by row identity (see
/// `WindowDiff`), remembers when each cell changed and each row arrived,
/// and derives from those times and the current time which cells are
/// highlighted, and how strongly.
package struct ChangeHighlighter<RowID: Hashable & Sendable>: Equatable, Sendable {
    package typealias Instant = ContinuousClock.Instant

    /// How long a highlight stays `.strong`.
    package static var strongDuration: Duration { .milliseconds(600) }
    /// How long a highlight lasts in all: `.strong`, then `.faint` until then.
    package static var fadeDuration: Duration { .seconds(2) }

    private struct RowMarks: Equatable, Sendable {
        var addedAt: Instant?
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
    package var isEnabled: Bool {
        didSet {
            guard isEnabled != oldValue else { return }
            marks = [:]
            deletionsSinceLastLook = 0
            rowCountAtLastLook = rowCount
        }
    }

    /// The current time: the latest one given to `take(_:cause:at:)` or
    /// `advance(to:)`, nil before any. Highlights are derived from it.
    package private(set) var now: Instant?

    package private(set) var window: WindowSnapshot<RowID>?

    package private(set) var rowCount: Int?

    /// The row count at the last look (`markAsSeen()`), or at the first
    /// window that told it.
    package private(set) var rowCountAtLastLook: Int?

    /// The number of rows deleted since the last look, as the host
    /// confirmed them with `noteDeletions(_:)`.
    package private(set) var deletionsSinceLastLook: Int

    private var marks: [RowID: RowMarks]

    package init(isEnabled: Bool = true) {
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
    @discardableResult
    package mutating func take(
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

    /// Moves the current time on (never back): call it when the timer set for `nextDeadline` fires.
    package mutating func advance(to now: Instant) {
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
    package mutating func noteDeletions(_ ids: some Collection<RowID>) {
        guard isEnabled else { return }
        deletionsSinceLastLook += ids.count
    }

    /// Notes that the user looked (pressed a key): the counts restart here. The last look is a
    /// key, not a calm moment, so a user back after a minute still sees "+40".
    package mutating func markAsSeen() {
        rowCountAtLastLook = rowCount
        deletionsSinceLastLook = 0
    }

    /// Forgets everything, for another table or query whose row ids mean other rows.
    package mutating func reset() {
        window = nil
        rowCount = nil
        rowCountAtLastLook = nil
        deletionsSinceLastLook = 0
        marks = [:]
    }

    // MARK: - Reading

    /// The highlight of a cell at the current time, or nil when it has
    /// none: the most recent of its row's arrival and its own change.
    package func highlight(row id: RowID, cell: Int) -> CellHighlight? {
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
    package func rowHighlight(row id: RowID) -> CellHighlight? {
        guard let now, let addedAt = marks[id]?.addedAt,
            let level = Self.level(since: addedAt, at: now)
        else { return nil }
        return CellHighlight(kind: .added, level: level)
    }

    package var isHighlighting: Bool {
        nextDeadline != nil
    }

    /// The next time a highlight changes level (strong to faint, or faint
    /// to none), or nil when nothing is highlighted. The host runs a
    /// one-shot timer to that time, then calls `advance(to:)`.
    package var nextDeadline: Instant? {
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

    /// The change of the row count since the last look (`+3`, `-1`), nil when off or unknown.
    package var rowCountChange: Int? {
        guard isEnabled, let rowCount, let rowCountAtLastLook else { return nil }
        return rowCount - rowCountAtLastLook
    }

    // MARK: - Text

    package var rowCountChangeText: String? {
        guard let change = rowCountChange, change != 0 else { return nil }
        return change > 0 ? "+\(change)" : "\u{2212}\(-change)"
    }

    package var deletionsText: String? {
        guard isEnabled, deletionsSinceLastLook > 0 else { return nil }
        return deletionsSinceLastLook == 1 ? "1 row deleted" : "\(deletionsSinceLastLook) rows deleted"
    }

    // MARK: - Fading

    private static func level(since start: Instant, at now: Instant) -> CellHighlight.Level? {
        if now < start + strongDuration { return .strong }
        if now < start + fadeDuration { return .faint }
        return nil
    }
}
