import Foundation
import GRDB

// MARK: - Drawing a chart sheet

/// A chart sheet's rows drawn as horizontal bars, one line per bin: its
/// edges on the left axis, the count scale on the header line, each count
/// at the end of its bar. The selected bin's edges are reversed (Enter
/// opens its rows), and a changed count takes the change's highlight.
///
/// ```
///         amount  0            25,012          50,024        100,048
///      0 –  5,000 │█████████████████████████████████████▌     98,312
///  5,000 – 10,000 │███████████████████████████████████████▉  100,048
/// ```
struct ChartDrawing {
    let table: TableState
    let bins: [ChartBin]
    let selected: Int?
    let layout: ViewerLayout

    private var column: (name: String, time: Bool) {
        guard case let .sheet(sheet) = table.viewed.target, case let .chart(name, time) = sheet.kind else { return ("", false) }
        return (name, time)
    }

    private var title: String { RowDetail.name(column.name) }

    private var isTimeOfDay: Bool {
        guard case let .sheet(sheet) = table.viewed.target else { return false }
        return sheet.chartTime == .timeOfDay
    }

    /// What an empty chart says: there is nothing to count.
    var emptyText: String {
        "No \(column.time ? "times" : "numbers") in \(title)"
    }

    private enum Style {
        static let axis = CellStyle(color: .header, bold: true)
        static let bar = CellStyle(color: .accent)
        static let selectedBar = CellStyle(color: .accent, bold: true)
        static let selection = CellStyle(color: .selection, bold: true, reverse: true)
    }

    /// Eighths of a cell, from one to eight.
    private static let blocks: [Character] = ["▏", "▎", "▍", "▌", "▋", "▊", "▉", "█"]

    func draw(into screen: inout Screen) {
        let visible = Array(bins.indices.dropFirst(table.scrollTop).prefix(layout.listRows))
        let labels = visible.map { label(bins[$0]) }
        let most = bins.map(\.most).max() ?? 0
        let countWidth = max(TextWidth.width(of: grouped(most)), 4)
        let labelWidth = min(max(labels.map { TextWidth.width(of: $0) }.max() ?? 0, TextWidth.width(of: title)), layout.width / 2)
        let axisX = 1 + labelWidth + 1
        let barWidth = max(0, layout.width - axisX - 1 - 1 - countWidth - 1)
        screen.put(Self.rightAligned(title, labelWidth), x: 1, y: layout.headerY, style: Style.axis,
                   maxWidth: labelWidth)
        screen.put(scale(most: most, barWidth: barWidth, width: barWidth + 1 + countWidth), x: axisX + 1, y: layout.headerY, style: Style.axis)
        let countColumn = table.viewed.source.columnNames.firstIndex(of: "count")
        let rowIDs = table.highlighter.isHighlighting ? table.highlighter.window?.rows.map(\.id) : nil
        for (line, index) in visible.enumerated() {
            let y = layout.listY + line
            let bin = bins[index]
            let isSelected = index == selected
            let text = Self.rightAligned(labels[line], labelWidth)
            screen.put(text, x: 1, y: y, style: isSelected ? Style.selection : .plain, maxWidth: labelWidth)
            screen.put("│", x: axisX, y: y, style: Style.axis)
            let bar = Self.bar(bin.count, of: most, width: barWidth)
            screen.put(bar, x: axisX + 1, y: y, style: isSelected ? Style.selectedBar : Style.bar)
            let highlight = countColumn.flatMap { column in
                rowIDs.flatMap { $0.indices.contains(index) ? table.highlighter.highlight(row: $0[index], cell: column) : nil }
            }
            let count = grouped(bin.count)
            let countX = axisX + 1 + TextWidth.width(of: bar) + 1
            screen.put(count, x: countX, y: y, style: (isSelected ? Style.axis : .plain).highlighted(highlight))
        }
    }

    /// `count` of `most` as a bar of `width` cells, to an eighth; a bin
    /// with rows shows at least an eighth.
    static func bar(_ count: Int, of most: Int, width: Int) -> String {
        guard most > 0, count > 0, width > 0 else { return "" }
        let eighths = max(1, Int((Double(count) / Double(most) * Double(width * 8)).rounded()))
        return String(repeating: "█", count: eighths / 8) + (eighths % 8 == 0 ? "" : String(blocks[eighths % 8 - 1]))
    }

    /// 0, a quarter, half, three quarters and all of `most`, each ending
    /// where its bar would end (0 at the start), in `width` cells; each
    /// value once.
    private func scale(most: Int, barWidth: Int, width: Int) -> String {
        var line = Array(repeating: Character(" "), count: max(0, width))
        var end = -1
        var last = -1
        for quarter in 0...4 where most * quarter / 4 > last {
            let text = Array(grouped(most * quarter / 4))
            let x = quarter == 0 ? 0 : max(0, barWidth * quarter / 4 - text.count)
            guard x > end, x + text.count <= line.count else { continue }
            last = most * quarter / 4
            line.replaceSubrange(x..<(x + text.count), with: text)
            end = x + text.count
        }
        return String(line)
    }

    /// A time bucket's start, to its unit; a bin's edges, to a precision
    /// its width shows.
    func label(_ bin: ChartBin) -> String {
        guard bin.unit == "number" else {
            let text = String.fromDatabaseValue(bin.from) ?? ""
            // A time of day's date is a stand-in: `13:45`.
            if isTimeOfDay { return String(text.dropFirst(11).prefix(5)) }
            let length = ["month": 7, "day": 10][bin.unit] ?? 16
            return String(text.prefix(length))
        }
        let from = Self.number(bin.from)
        let to = Self.number(bin.to)
        guard let from, let to else { return "?" }
        let width = to - from
        var decimals = width > 0 ? max(0, min(6, Int((-log10(width)).rounded(.up)) + 1)) : 0
        if from == from.rounded(), to == to.rounded() { decimals = 0 }
        return Self.formatted(from, decimals) + " – " + Self.formatted(to, decimals)
    }

    private static func rightAligned(_ text: String, _ width: Int) -> String {
        let cut = TextWidth.truncated(text, toWidth: width)
        return String(repeating: " ", count: max(0, width - TextWidth.width(of: cut))) + cut
    }

    /// SQLite's numbers, or PostgreSQL's text of one.
    static func number(_ value: DatabaseValue) -> Double? {
        Double.fromDatabaseValue(value) ?? String.fromDatabaseValue(value).flatMap { Double($0) }
    }

    private static func formatted(_ value: Double, _ decimals: Int) -> String {
        guard decimals == 0, abs(value) < 1e15 else { return String(format: "%.\(decimals)f", value) }
        return grouped(Int(value.rounded()))
    }
}
