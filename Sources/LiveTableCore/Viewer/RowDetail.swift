import GRDB

/// The whole of one row, as the viewer's row overlay shows it: each
/// column's name, then its full value wrapped to the width of the overlay
/// (a BLOB: its size, then its bytes in hexadecimal, the first 1,024 of
/// them).
///
/// For example:
///
/// ```swift
/// let lines = RowDetail.lines(names: ["id", "note"], values: [1.databaseValue, "a long note".databaseValue], width: 20)
/// ```
enum RowDetail {
    /// One line of the overlay: the column name on the first line of its
    /// value, blank on the others.
    struct Line: Equatable {
        var name: String
        var value: String
        var isNull: Bool
    }

    /// The number of lines the overlay shows at once, on a screen of `height` rows.
    static func page(height: Int) -> Int {
        max(1, height - 4)
    }

    /// The lines of a row on a screen `width` cells wide.
    static func lines(names: [String], values: [DatabaseValue], width: Int) -> [Line] {
        let names = names.map(oneLine)
        let inner = max(1, width - 4)
        let nameWidth = min(names.map { TextWidth.width(of: $0) }.max() ?? 0, max(1, inner / 3))
        let valueWidth = max(1, inner - nameWidth - 2)
        var lines: [Line] = []
        for (column, value) in values.enumerated() where column < names.count {
            let cell = CellText(value)
            var text = cell.text
            if case let .blob(data) = value.storage, !data.isEmpty {
                let shown = data.prefix(1024).map { byte in
                    let hex = String(byte, radix: 16)
                    return byte < 16 ? "0" + hex : hex
                }.joined()
                text += " " + shown + (data.count > 1024 ? "…" : "")
            }
            for (offset, part) in wrapped(text, toWidth: valueWidth).enumerated() {
                lines.append(Line(
                    name: offset == 0 ? TextWidth.padded(names[column], toWidth: nameWidth) : "",
                    value: part, isNull: cell.kind == .null))
            }
        }
        return lines
    }

    /// A name or a query on one line: control characters escaped, line
    /// breaks and tabs made spaces.
    static func oneLine(_ text: String) -> String {
        let spaced = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\t" })
            .joined(separator: " ")
        return CellText.escaped(spaced)
    }

    /// `text` in lines of at most `width` cells, cut after a space where
    /// there is one (a unit wider than `width` gets a line of its own).
    private static func wrapped(_ text: String, toWidth width: Int) -> [String] {
        var lines: [String] = []
        var rest = text
        repeat {
            var (line, after) = TextWidth.split(rest, atWidth: width)
            if line.isEmpty {
                let first = TextWidth.units(of: rest)[0].text
                line = first
                after = String(rest.dropFirst(first.count))
            }
            lines.append(line)
            rest = after
        } while !rest.isEmpty
        return lines
    }
}
