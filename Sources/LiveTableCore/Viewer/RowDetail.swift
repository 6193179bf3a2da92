import Foundation
import GRDB

/// The whole of one row, as the row overlay shows it: each column's name,
/// then its value wrapped, its line breaks kept; a JSON object or array
/// indented; a BLOB its size, then its text where it is UTF-8 text, else
/// hexadecimal. A long value shows its first `maximumBytes`, then "… N more
/// bytes": a 10 MB value costs the overlay no more than a 16 KB one.
enum RowDetail {
    /// The column name on the first line of its value, blank on the others.
    struct Line: Equatable {
        var name: String
        var value: String
        var isNull: Bool
        /// The index of the column whose value it shows.
        var column = 0
    }

    static let maximumBytes = 16_384

    static func page(height: Int) -> Int {
        max(1, height - 4)
    }

    /// `notes`: said after a column's value, unless NULL (where a foreign
    /// key points: `→ customers.id`); `previous`: on a line under it (what
    /// it was before a change).
    static func lines(
        names: [String], values: [DatabaseValue], notes: [String?] = [], previous: [String?] = [], width: Int) -> [Line]
    {
        let names = names.map(name)
        let inner = max(1, width - 4)
        let nameWidth = min(names.map { TextWidth.width(of: $0) }.max() ?? 0, max(1, inner / 3))
        let valueWidth = max(1, inner - nameWidth - 2)
        var lines: [Line] = []
        for (column, value) in values.enumerated() where column < names.count {
            let isNull = value.isNull
            var shown = valueLines(value)
            if !isNull, notes.indices.contains(column), let note = notes[column] {
                shown[0] += "  " + note
            }
            if previous.indices.contains(column), let before = previous[column] {
                shown.append(before)
            }
            for (offset, part) in shown.flatMap({ wrapped($0, toWidth: valueWidth) }).enumerated() {
                lines.append(Line(
                    name: offset == 0 ? TextWidth.padded(names[column], toWidth: nameWidth) : "",
                    value: part, isNull: isNull, column: column))
            }
        }
        return lines
    }

    /// A text's own lines, escaped (a tab is four spaces), cut after `maximumBytes`.
    private static func valueLines(_ value: DatabaseValue) -> [String] {
        switch value.storage {
        case let .string(string):
            if let json = indentedJSON(string) {
                return json
            }
            let (shown, more) = prefix(string, bytes: maximumBytes)
            // Split by scalar: "\r\n" is one Character, which a split by
            // Character would not cut.
            var lines = shown.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                var line = line
                if line.last == "\r" { line = line.dropLast() }  // "\r\n" is one line break.
                return CellText.escaped(String(line).replacingOccurrences(of: "\t", with: "    "))
            }
            if more > 0 {
                lines.append(moreBytes(more))
            }
            return lines
        case let .blob(data) where blobText(data) != nil:
            return ["\(CellText(value).text) of text:"] + valueLines(blobText(data)?.databaseValue ?? value)
        case let .blob(data) where !data.isEmpty:
            let shown = data.prefix(maximumBytes / 2).map { byte in
                let hex = String(byte, radix: 16)
                return byte < 16 ? "0" + hex : hex
            }.joined()
            var lines = [CellText(value).text + " " + shown]
            if data.count > maximumBytes / 2 {
                lines.append(moreBytes(data.count - maximumBytes / 2))
            }
            return lines
        default:
            return [CellText(value).text]
        }
    }

    private static func moreBytes(_ count: Int) -> String {
        "… \(count) more \(count == 1 ? "byte" : "bytes")"
    }

    /// Cut between two characters; only the bytes kept are read.
    static func prefix(_ text: String, bytes: Int) -> (String, more: Int) {
        let total = text.utf8.count
        guard total > bytes else { return (text, 0) }
        var end = text.unicodeScalars.startIndex
        var used = 0
        while end < text.unicodeScalars.endIndex {
            let length = UTF8.width(text.unicodeScalars[end])
            guard used + length <= bytes else { break }
            used += length
            end = text.unicodeScalars.index(after: end)
        }
        return (String(text.unicodeScalars[..<end]), total - used)
    }

    /// Line breaks escaped visibly, so that `new\nline` and `new line` are
    /// told apart; cut as a cell's text is.
    static func name(_ text: String) -> String {
        CellText.escaped(text.cut(toLength: CellText.maximumLength))
    }

    /// Line breaks and tabs made spaces; cut as a cell's text is, so that a
    /// long query costs each screen no more than a short one.
    static func oneLine(_ text: String) -> String {
        let spaced = text.cut(toLength: CellText.maximumLength).split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\t" })
            .joined(separator: " ")
        return CellText.escaped(spaced)
    }

    /// Cut after a space where there is one (a unit wider than `width` gets a
    /// line of its own), each unit measured once.
    static func wrapped(_ text: String, toWidth width: Int) -> [String] {
        let units = TextWidth.units(of: text)
        guard !units.isEmpty else { return [""] }
        let width = max(1, width)
        var lines: [String] = []
        var start = 0
        while start < units.count {
            var end = start
            var used = 0
            var lastSpace: Int?
            while end < units.count, used + units[end].width <= width {
                used += units[end].width
                if units[end].text == " " { lastSpace = end }
                end += 1
            }
            if end == start {
                end = start + 1  // Wider than the line: alone on it.
            } else if end < units.count, let lastSpace {
                end = lastSpace + 1
            }
            lines.append(units[start..<end].map(\.text).joined())
            start = end
        }
        return lines
    }
}
