import GRDB

// MARK: - Charts

extension ViewerState {
    /// `.`: a chart of the current column, on top: a histogram of its
    /// numbers, or its rows per time bucket. From its first bin, even when
    /// opened before: a window around a remembered bin is four statements,
    /// and each would run the chart's whole query.
    mutating func openChartSheet() -> [ViewerEffect] {
        guard let table, let column = table.currentColumnName,
            let chart = DerivedSheet.chart(of: column, in: table.viewed)
        else { return [] }
        return openOnTop(.sheet(chart), PendingSheet(), memory: TableMemory())
    }

    /// Enter on a chart: the rows of the selected bar's bin, as the sheet
    /// it counts filtered to its edges, on top.
    mutating func openSelectedBin() -> [ViewerEffect] {
        guard let table, case let .sheet(sheet) = table.viewed.target, let bin = table.selectedChartBin,
            let filter = sheet.binFilter(
                from: bin.from, to: bin.to, isLast: bin.isLast, dialect: table.viewed.source.dialect)
        else { return [] }
        return openBase(of: sheet, filteredBy: filter)
    }
}

/// A bar of a chart sheet, as its row reads.
struct ChartBin: Equatable {
    var from: DatabaseValue
    var to: DatabaseValue
    var count: Int
    /// The most rows of any bin of the chart.
    var most: Int
    /// `number`, or the unit of a time bucket (`minute`…`month`).
    var unit: String
    var isLast: Bool

    /// The bins of `window`, whose columns are `DerivedSheet.chartColumns`;
    /// `reachesEnd`: its last row is the chart's last bin.
    static func bins(_ rows: [[DatabaseValue]], columns: [String], reachesEnd: Bool) -> [ChartBin]? {
        let index = DerivedSheet.chartColumns.map { columns.firstIndex(of: $0) }
        guard case let indices = index.compactMap({ $0 }), indices.count == index.count else { return nil }
        return rows.enumerated().map { offset, row in
            let value = { (name: Int) in row.indices.contains(indices[name]) ? row[indices[name]] : .null }
            return ChartBin(
                from: value(1), to: value(2), count: Self.integer(value(3)), most: Self.integer(value(4)),
                unit: String.fromDatabaseValue(value(5)) ?? "number", isLast: reachesEnd && offset == rows.count - 1)
        }
    }

    /// PostgreSQL's values are their text.
    private static func integer(_ value: DatabaseValue) -> Int {
        Int.fromDatabaseValue(value) ?? String.fromDatabaseValue(value).flatMap { Int($0) } ?? 0
    }
}

extension TableState {
    /// The selected bar, when the sheet on screen is a chart.
    var chartBin: (bins: [ChartBin], selected: Int?)? {
        guard case let .sheet(sheet) = viewed.target, case .chart = sheet.kind, let window else { return nil }
        guard let bins = ChartBin.bins(window.rows, columns: viewed.source.columnNames, reachesEnd: window.reachesEnd)
        else { return nil }
        return (bins, selectedIndex)
    }

    var selectedChartBin: ChartBin? {
        guard let chart = chartBin, let index = chart.selected, chart.bins.indices.contains(index) else { return nil }
        return chart.bins[index]
    }
}
