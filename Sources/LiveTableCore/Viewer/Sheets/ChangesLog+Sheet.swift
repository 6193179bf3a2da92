import Foundation
import GRDB

// MARK: - The log as a sheet

extension ChangesLog {
    static let columnNames = ["#", "time", "sheet", "key", "change", "values"]

    /// The log's rows as the table screen shows any sheet's: a source keyed
    /// by `#`, newest first. Its SQL is never run: its reads are answered
    /// by `window(_:)`.
    static let viewed: ViewedSource = {
        let source = RowSource.query("changes log", columnNames: columnNames, dialect: .sqlite)
            .keyed(byColumns: ["#"], named: "changes log")
        let ordering = RowOrdering(
            keyColumns: [RowOrdering.KeyColumn(expression: source.orderExpression(ofColumn: "#") ?? "c0", descending: true)],
            isUnique: true, dialect: .sqlite)
        return ViewedSource(target: .changesLog, source: source, ordering: ordering, cost: .indexSearch, schemaVersion: 0)
    }()

    /// The window `request` asks for, paged in memory as the database pages
    /// a table: around the entry of its anchor, or the one that took its place.
    func window(_ request: RowWindowRequest) -> ViewerWindow {
        let count = entries.count
        // Display row i is entries[count - 1 - i]: newest first. `after`
        // counts the anchor's row; `.last` stands after the last row.
        var selection: RowPosition?
        let range: Range<Int>
        switch request.anchor {
        case .first:
            range = 0..<min(count, request.after)
        case .last:
            range = max(0, count - request.before)..<count
        case let .position(position):
            let number = position.key.first.flatMap(Int.fromDatabaseValue) ?? Int.max
            // The first entry at or after it: an entry trimmed away is older than all.
            let index = entries.partitioningIndex { $0.number >= number }
            let anchor = index < count ? count - 1 - index : max(0, count - 1)
            selection = count > 0 ? Self.position(entries[count - 1 - anchor]) : nil
            range = max(0, anchor - request.before)..<min(count, anchor + max(1, request.after))
        }
        let shown = range.map { entries[count - 1 - $0] }
        let window = RowWindow(
            request: request, rows: shown.map(row), positions: shown.map(Self.position),
            reachesStart: range.lowerBound == 0, reachesEnd: range.upperBound == count)
        return ViewerWindow(viewed: Self.viewed, window: window, selection: selection)
    }

    /// Every entry as the sheet's row, newest first, with `columns` only:
    /// what `s` saves.
    func rows(columns: [Int]) -> [[DatabaseValue]] {
        entries.reversed().map { entry in
            let cells = row(entry)
            return columns.map { cells.indices.contains($0) ? cells[$0] : .null }
        }
    }

    private static func position(_ entry: ChangeEntry) -> RowPosition {
        RowPosition(key: [entry.number.databaseValue])
    }

    /// The entry as the sheet's row: an update's columns as `name: old → new`.
    private func row(_ entry: ChangeEntry) -> [DatabaseValue] {
        let time = clock.map { Self.timeText($0.date(at: entry.at)) } ?? ""
        let key = entry.key.values.map { CellText($0).text }.joined(separator: ", ")
        let values = entry.columns.map { change in
            "\(change.column): \(CellText(change.old).text) → \(CellText(change.new).text)"
        }.joined(separator: "; ")
        return [
            entry.number.databaseValue, time.databaseValue, entry.sheet.databaseValue, key.databaseValue,
            entry.kind.rawValue.databaseValue, values.databaseValue,
        ]
    }

    /// `14:03:07`, in the local time zone.
    private static func timeText(_ date: Date) -> String {
        let parts = Calendar.current.dateComponents([.hour, .minute, .second], from: date)
        return [parts.hour, parts.minute, parts.second].map { part in
            let text = String(part ?? 0)
            return text.count < 2 ? "0" + text : text
        }.joined(separator: ":")
    }

    /// The entry of the row at `position` of the log's sheet.
    func entry(at position: RowPosition) -> ChangeEntry? {
        guard let number = position.key.first.flatMap(Int.fromDatabaseValue) else { return nil }
        let index = entries.partitioningIndex { $0.number >= number }
        return index < entries.count && entries[index].number == number ? entries[index] : nil
    }
}

extension Array {
    /// The first index whose element meets `isAtOrAfter`, which every element after it meets too.
    fileprivate func partitioningIndex(where isAtOrAfter: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if isAtOrAfter(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
