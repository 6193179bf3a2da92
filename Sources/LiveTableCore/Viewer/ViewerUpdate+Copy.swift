import Foundation
import GRDB

/// What `y` and `Y` copy: a column's value, or the row's shown columns.
enum CopyRequest: Equatable, Sendable {
    case cell(Int)
    case row
}

extension ViewerState {
    /// The clipboard escape carries the text in base64, in one sequence:
    /// terminals and tmux drop or cut a longer one without a word.
    static let clipboardLimit = 100_000

    /// `y`, `Y`, and `y` in the row view (the field of the column cursor).
    /// A value the window holds cut (PostgreSQL's long values) is copied
    /// once the row is read whole.
    mutating func copy(_ request: CopyRequest) -> [ViewerEffect] {
        guard var table = self.table, let index = table.selectedIndex, let window = table.window,
              window.rows.indices.contains(index)
        else {
            message = .notice("no row to copy")
            return []
        }
        if table.viewed.source.shownExpressions == nil {
            return copy(request, window.rows[index])
        }
        if let whole = table.wholeRow, let values = whole.values, whole.position == window.positions[index],
           whole.shown == window.rows[index]
        {
            return copy(request, values)
        }
        table.pendingCopy = request
        self.table = table
        message = .notice("reading the whole row…")
        return []
    }

    /// The row read whole for a copy that waits for it.
    mutating func copyAfterWholeRow(_ values: [DatabaseValue]?) -> [ViewerEffect] {
        guard let request = table?.pendingCopy else { return [] }
        table?.pendingCopy = nil
        guard let values else {
            message = .error("not copied: the row could not be read whole")
            return []
        }
        return copy(request, values)
    }

    private mutating func copy(_ request: CopyRequest, _ values: [DatabaseValue]) -> [ViewerEffect] {
        guard let table else { return [] }
        let names = table.viewed.source.columnNames
        let text: String
        let what: String
        switch request {
        case let .cell(column):
            guard values.indices.contains(column), names.indices.contains(column) else { return [] }
            text = Self.clipboardText(values[column])
            what = RowDetail.oneLine(names[column])
        case .row:
            let columns = table.shownColumns.filter { values.indices.contains($0) }
            text = columns.map { RowEncoder.tsvField(names[$0]) }.joined(separator: "\t") + "\n"
                + columns.map { RowEncoder.tsvField(Self.clipboardText(values[$0])) }.joined(separator: "\t") + "\n"
            what = columns.count == 1 ? "the row (1 column)" : "the row (\(grouped(columns.count)) columns)"
        }
        let size = text.utf8.count
        guard size <= Self.clipboardLimit else {
            message = .error("not copied: \(what) is \(Self.byteSize(size)), over the clipboard's "
                + "\(Self.byteSize(Self.clipboardLimit))")
            return []
        }
        message = .notice("copied \(what): \(Self.byteSize(size))")
        return [.copyToClipboard(text)]
    }

    /// The whole value, as `--format csv` writes it but unquoted: NULL is
    /// empty text, as VisiData copies it; a BLOB is lowercase hexadecimal.
    static func clipboardText(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return ""
        case let .int64(integer): return String(integer)
        case let .double(double): return CellText.text(of: double)
        case let .string(text):
            return StoredText.holdsInvalidBytes(text) ? StoredText.replacingInvalidBytes(text) : text
        case let .blob(data):
            return data.map { byte in byte < 16 ? "0" + String(byte, radix: 16) : String(byte, radix: 16) }.joined()
        }
    }

    /// "12 bytes", "1.5 KB", "2.3 MB".
    static func byteSize(_ count: Int) -> String {
        if count < 1_000 { return count == 1 ? "1 byte" : "\(count) bytes" }
        let units = ["KB", "MB", "GB", "TB"]
        var value = Double(count) / 1_000
        var unit = 0
        while value >= 1_000, unit < units.count - 1 {
            value /= 1_000
            unit += 1
        }
        let text = value < 10 ? String(format: "%.1f", value) : String(Int(value.rounded(.down)))
        return text + " " + units[unit]
    }
}

extension TableState {
    /// The columns as the sheet shows them: the key columns first, the
    /// hidden ones left out (`ColumnPlan`'s order).
    package var shownColumns: [Int] {
        let names = viewed.source.columnNames
        let keys = viewed.source.keyColumns.filter { !hiddenColumns.contains(names[$0]) }
        return keys + names.indices.filter { !keys.contains($0) && !hiddenColumns.contains(names[$0]) }
    }
}

extension ViewerState {
    /// ← → in the row view: the column cursor to the field before or after,
    /// scrolled into view.
    mutating func moveRowViewField(by step: Int, scroll: Int) -> [ViewerEffect] {
        guard var table = self.table else { return [] }
        let count = table.viewed.source.columns.count
        table.currentColumn = min(max(0, table.currentColumn + step), max(0, count - 1))
        self.table = table
        keepColumnInView()
        let lines = rowDetailLines(self)
        let page = RowDetail.page(height: height)
        var scroll = scroll
        if let first = lines.firstIndex(where: { $0.column == table.currentColumn }) {
            if first < scroll {
                scroll = first
            } else if first >= scroll + page {
                scroll = first - page + 1
            }
        }
        overlay = .row(scroll: min(max(0, scroll), max(0, lines.count - page)))
        return []
    }
}
