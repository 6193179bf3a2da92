import Foundation
import GRDB

// MARK: - The changes log

/// One change the viewer saw, a row of the changes log (`L`).
package struct ChangeEntry: Equatable, Sendable {
    package enum Kind: String, Sendable {
        case inserted
        case updated
        case deleted
    }

    package struct ColumnChange: Equatable, Sendable {
        package var column: String
        package var old: DatabaseValue
        package var new: DatabaseValue
    }

    /// The log's key: one more for each change.
    package var number: Int
    package var at: ContinuousClock.Instant
    package var sheet: String
    package var key: StoredKey
    package var kind: Kind
    /// An update's changed columns, in the sheet's order.
    package var columns: [ColumnChange]
    /// The sheet as it was shown, its selection on the row: Enter goes
    /// there. Nil for a deleted row.
    var target: ViewerTarget?
    var memory: TableMemory?
}

/// The changes the viewer saw while open, in every sheet, newest last,
/// bounded: taken from the diff of each window that change highlighting
/// makes anyway, and from the deletions its lookup confirms, so that the
/// log costs no read. Shown as a sheet whose rows come from memory: its
/// reads are answered here (`window(_:)`), never by the database.
package struct ChangesLog: Equatable, Sendable {
    package static let limit = 10_000

    package private(set) var entries: [ChangeEntry] = []
    private var nextNumber = 1
    /// The time of the latest change, or of the latest window while the log
    /// is on screen: the log's own windows are stamped with it.
    var now: ContinuousClock.Instant?
    /// For the time column; set by the host, as `viewerUpdate` reads no clock.
    package var clock: WallClock?
    /// While the log is on screen, the sheet under it, whose windows still
    /// arrive: each is compared with the one before.
    var covered: CoveredWindow?

    package init(clock: WallClock? = nil) {
        self.clock = clock
    }

    struct CoveredWindow: Equatable, Sendable {
        var target: ViewerTarget
        var snapshot: WindowSnapshot<StoredKey>?
        var memory: TableMemory
    }

    // MARK: - Recording

    /// The changes of `diff`, a commit's, between `old` and `new` (the
    /// window `value`'s snapshot) of the sheet shown as `memory` says.
    mutating func record(
        _ diff: WindowDiff<StoredKey>, from old: WindowSnapshot<StoredKey>, to new: WindowSnapshot<StoredKey>,
        of value: ViewerWindow, memory: TableMemory, at time: ContinuousClock.Instant)
    {
        guard !diff.isEmpty else { return }
        now = max(now ?? time, time)
        let names = value.viewed.source.columnNames
        let sheet = Self.sheetName(of: value.viewed.target)
        var oldRows: [StoredKey: WindowSnapshot<StoredKey>.Row] = [:]
        for row in old.rows where oldRows[row.id] == nil {
            oldRows[row.id] = row
        }
        let added = Set(diff.addedRows)
        for (index, row) in new.rows.enumerated() {
            let kind: ChangeEntry.Kind
            var columns: [ChangeEntry.ColumnChange] = []
            if let cells = diff.changedCells[row.id], let oldRow = oldRows[row.id] {
                kind = .updated
                columns = cells.map { cell in
                    ChangeEntry.ColumnChange(
                        column: names.indices.contains(cell) ? names[cell] : "#\(cell + 1)",
                        old: oldRow.cells.indices.contains(cell) ? oldRow.cells[cell] : .null,
                        new: row.cells.indices.contains(cell) ? row.cells[cell] : .null)
                }
            } else if added.contains(row.id) {
                kind = .inserted
            } else {
                continue
            }
            var shown = memory
            shown.selected = value.window.positions.indices.contains(index) ? value.window.positions[index] : nil
            append(ChangeEntry(
                number: 0, at: time, sheet: sheet, key: row.id, kind: kind, columns: columns,
                target: value.viewed.target, memory: shown))
        }
        trim()
    }

    /// Rows of `source` that its lookup confirmed gone.
    mutating func recordDeletions(_ ids: [StoredKey], of source: RowSource, at time: ContinuousClock.Instant) {
        let sheet = source.isQuery ? "query" : RowDetail.name(source.name)
        for id in ids {
            append(ChangeEntry(number: 0, at: time, sheet: sheet, key: id, kind: .deleted, columns: []))
        }
        trim()
    }

    private mutating func append(_ entry: ChangeEntry) {
        var entry = entry
        entry.number = nextNumber
        nextNumber += 1
        entries.append(entry)
    }

    private mutating func trim() {
        if entries.count > Self.limit {
            entries.removeFirst(entries.count - Self.limit)
        }
    }

    // MARK: - Reading

    /// The latest change of each column of the row `key` of `target`, for
    /// the row view: its value before, and when.
    func previousValues(of key: StoredKey, in target: ViewerTarget) -> [String: (old: DatabaseValue, at: ContinuousClock.Instant)] {
        var result: [String: (old: DatabaseValue, at: ContinuousClock.Instant)] = [:]
        for entry in entries.reversed() where entry.kind == .updated && entry.key == key && entry.target == target {
            for change in entry.columns where result[change.column] == nil {
                result[change.column] = (change.old, entry.at)
            }
        }
        return result
    }

    /// How a sheet is named in the log, as in the title's trail.
    static func sheetName(of target: ViewerTarget) -> String {
        switch target {
        case let .table(name): RowDetail.name(name)
        case .query: "query"
        case let .sheet(sheet): sheet.name
        case .changesLog: "changes log"
        }
    }
}

/// The wall-clock time at one instant of the continuous clock.
package struct WallClock: Equatable, Sendable {
    package var instant: ContinuousClock.Instant
    package var date: Date

    package init(instant: ContinuousClock.Instant, date: Date) {
        self.instant = instant
        self.date = date
    }

    func date(at time: ContinuousClock.Instant) -> Date {
        date.addingTimeInterval((time - instant).timeInterval)
    }
}
