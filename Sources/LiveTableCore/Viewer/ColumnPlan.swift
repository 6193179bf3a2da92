/// The viewer's columns as the screen orders and sizes them: the key
/// columns frozen on the left, then the others in table order, hidden ones
/// left out; each as wide as its widest text, or as the user set it. The
/// one place where widths are derived, so that `viewerUpdate`'s sideways
/// scroll and `viewerRender`'s drawing never disagree.
struct ColumnPlan: Equatable {
    /// One long value leaves room for the others (`<` `>` go beyond).
    static let maximumNaturalWidth = 40
    /// The narrowest `<` makes a column: "ab…".
    static let minimumWidth = 3
    static let widthStep = 4
    static let gap = 2

    let screenWidth: Int
    /// By source index: the widest text, or the user's width, at most the screen's.
    let widths: [Int]
    /// From the texts and the widths seen before (`TableState.seenWidths`).
    let naturalWidths: [Int]
    let frozen: [Int]
    let scrolling: [Int]

    /// A column is at least as wide as in `seen`: it does not narrow as rows scroll.
    init(source: RowSource, texts: [[CellText]], hidden: Set<String>, widths: [String: Int],
         seen: [String: Int] = [:], screenWidth: Int)
    {
        self.screenWidth = max(0, screenWidth)
        let names = source.columnNames
        let maximum = max(Self.minimumWidth, self.screenWidth - 2)
        var natural = names.map { max(TextWidth.width(of: RowDetail.name($0)), seen[$0] ?? 0) }
        for row in texts {
            for (index, cell) in row.enumerated() where natural.indices.contains(index) {
                natural[index] = max(natural[index], cell.width)
            }
        }
        let naturalWidths = natural.map { min(max(1, $0), Self.maximumNaturalWidth) }
        self.naturalWidths = naturalWidths
        self.widths = names.indices.map { index in
            if let width = widths[names[index]] {
                return min(max(Self.minimumWidth, width), maximum)
            }
            return naturalWidths[index]
        }
        let keys = source.keyColumns.filter { !hidden.contains(names[$0]) }
        frozen = keys
        scrolling = names.indices.filter { !keys.contains($0) && !hidden.contains(names[$0]) }
    }

    var order: [Int] { frozen + scrolling }

    var maximumWidth: Int { max(Self.minimumWidth, screenWidth - 2) }

    /// The first one at or after `firstColumn`, so that hiding the first
    /// column shown shows the next.
    private func position(of firstColumn: Int) -> Int {
        min(scrolling.firstIndex { $0 >= firstColumn } ?? scrolling.count, max(0, scrolling.count - 1))
    }

    func layout(firstColumn: Int) -> ColumnLayout {
        layout(fromPosition: position(of: firstColumn))
    }

    private func layout(fromPosition first: Int) -> ColumnLayout {
        var result = ColumnLayout(shown: [], hiddenLeft: first, hiddenRight: 0, isLastCut: false)
        var x = 1
        for index in frozen + scrolling[min(first, scrolling.count)...] {
            let available = screenWidth - 1 - x
            if widths[index] <= available {
                result.shown.append(ColumnLayout.Column(index: index, x: x, width: widths[index]))
                x += widths[index] + Self.gap
            } else {
                // A cut column shows at least "ab…".
                if available >= Self.minimumWidth {
                    result.shown.append(ColumnLayout.Column(index: index, x: x, width: available))
                    result.isLastCut = true
                }
                let shownScrolling = result.shown.filter { !frozen.contains($0.index) }.count
                result.hiddenRight = scrolling.count - first - shownScrolling
                return result
            }
        }
        return result
    }

    /// Scrolls from `firstColumn` only as far as needed for `column` to be
    /// whole; a column too wide for the screen comes first, cut. The screen is
    /// never left part empty while columns are scrolled off to the left: when
    /// they would all fit (after `<`, `-`, `=` or a wider screen), the scroll
    /// comes back.
    func firstColumn(showing column: Int, from firstColumn: Int) -> Int {
        guard !scrolling.isEmpty else { return firstColumn }
        var first = position(of: firstColumn)
        guard let target = scrolling.firstIndex(of: column) else { return scrolling[first] }
        first = min(first, target)
        while first < target, !layout(fromPosition: first).isWhole(column) {
            first += 1
        }
        while first > 0, case let before = layout(fromPosition: first - 1), before.hiddenRight == 0, !before.isLastCut {
            first -= 1
        }
        return scrolling[first]
    }
}

struct ColumnLayout: Equatable {
    struct Column: Equatable {
        var index: Int
        var x: Int
        var width: Int
    }

    var shown: [Column]
    var hiddenLeft: Int
    /// A cut column counts as shown.
    var hiddenRight: Int
    var isLastCut: Bool

    func isWhole(_ column: Int) -> Bool {
        shown.indices.contains { shown[$0].index == column && !(isLastCut && $0 == shown.count - 1) }
    }
}

extension RowSource {
    /// The `INTEGER PRIMARY KEY` or primary key, frozen on the left; none for
    /// a view, a query, or a table identified by its hidden rowid.
    var keyColumns: [Int] {
        switch identity {
        case let .primaryKey(names):
            return names.compactMap { name in columns.firstIndex { $0.name == name } }
        case .rowid, .none:
            return columns.indices.filter { columns[$0].isRowidAlias }
        }
    }
}

extension TableState {
    func columnPlan(texts: [[CellText]]? = nil, width: Int) -> ColumnPlan {
        ColumnPlan(
            source: viewed.source, texts: texts ?? (window?.rows.map { $0.map(CellText.init) } ?? []),
            hidden: hiddenColumns, widths: columnWidths, seen: seenWidths, screenWidth: width)
    }
}
