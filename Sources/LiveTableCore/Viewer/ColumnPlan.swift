/// The viewer's columns as the screen orders and sizes them: the key
/// columns frozen on the left, then the others in table order, hidden
/// ones left out; each as wide as its widest text, or as the user set it.
///
/// It is the one place where column widths are derived: `viewerUpdate`
/// asks it where to scroll sideways so that the column cursor is whole on
/// screen, and `viewerRender` asks it where each column goes, so that the
/// two never disagree.
///
/// ```
///  id  price   status   note                     (frozen id, then from firstColumn on)
///   1   12.5   shipped  a note long enough to…   (the last one cut)
/// ```
///
/// For example:
///
/// ```swift
/// let plan = ColumnPlan(source: source, texts: texts, hidden: ["note"], widths: ["name": 12], screenWidth: 80)
/// let layout = plan.layout(firstColumn: plan.firstColumn(showing: 4, from: 0))
/// layout.shown.map(\.index) // [0, 3, 4, …]
/// ```
struct ColumnPlan: Equatable {
    /// The widest a column gets from its texts, so that one long value
    /// leaves room for the others (`<` `>` go beyond).
    static let maximumNaturalWidth = 40
    /// The narrowest `<` makes a column: "ab…".
    static let minimumWidth = 3
    /// The cells that one `<` or `>` takes or gives.
    static let widthStep = 4
    /// The blank cells between two columns.
    static let gap = 2

    /// The width of the screen, in cells.
    let screenWidth: Int
    /// The width of each column of the source, by index: its widest text
    /// (name or value, at most `maximumNaturalWidth`), or the width the
    /// user set, at most the screen's.
    let widths: [Int]
    /// The width of each column from its texts and the widths seen before,
    /// at most `maximumNaturalWidth`: what the viewer remembers (`TableState.seenWidths`).
    let naturalWidths: [Int]
    /// The key columns shown, frozen on the left, in key order.
    let frozen: [Int]
    /// The other columns shown, in table order: they scroll sideways.
    let scrolling: [Int]

    /// The plan of `source`'s columns for a window whose cells have these
    /// `texts`, without the columns named in `hidden`, with the widths set
    /// by name in `widths`, on a screen `screenWidth` cells wide. A column is
    /// at least as wide as in `seen` (by name): it does not narrow as rows scroll.
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

    /// The columns shown, in the order of the screen: the cursor moves
    /// along it.
    var order: [Int] { frozen + scrolling }

    /// The widest `>` makes a column: the screen, but for its margins.
    var maximumWidth: Int { max(Self.minimumWidth, screenWidth - 2) }

    /// The position in `scrolling` of the first scrolling column shown,
    /// for the index `firstColumn` in the source: the first one at or
    /// after it, so that hiding the first column shown shows the next.
    private func position(of firstColumn: Int) -> Int {
        min(scrolling.firstIndex { $0 >= firstColumn } ?? scrolling.count, max(0, scrolling.count - 1))
    }

    /// Where each column goes when the scrolling columns start at the
    /// source's column `firstColumn` (or the next one shown).
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

    /// The first scrolling column to show so that `column` is whole on
    /// screen, moved from `firstColumn` only as far as needed: to it when
    /// it is to the left, and one column at a time while it is cut or out
    /// of sight on the right. A frozen column is always on screen; a
    /// column too wide for the screen comes first, cut.
    ///
    /// The screen is never left part empty while columns are scrolled
    /// off to the left: when the columns from the one before the first to
    /// the last would all fit whole (after `<`, `-` or `=`, or a wider
    /// screen), the scroll comes back.
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

/// Where the viewer's columns go on one screen (`ColumnPlan.layout(firstColumn:)`).
struct ColumnLayout: Equatable {
    /// A column on screen: its index in the source, where it starts and its width.
    struct Column: Equatable {
        var index: Int
        var x: Int
        var width: Int
    }

    /// The columns on screen, left to right: the frozen ones first.
    var shown: [Column]
    /// The scrolling columns to the left of the first one shown.
    var hiddenLeft: Int
    /// The scrolling columns to the right of the last one shown (a cut one
    /// is shown).
    var hiddenRight: Int
    /// True when the last column shown is cut.
    var isLastCut: Bool

    /// True when `column` is on screen, and not cut.
    func isWhole(_ column: Int) -> Bool {
        shown.indices.contains { shown[$0].index == column && !(isLastCut && $0 == shown.count - 1) }
    }
}

extension RowSource {
    /// The indexes of the columns that identify a row, frozen on the left
    /// of the screen: the `INTEGER PRIMARY KEY` of a rowid table, or the
    /// primary key of a `WITHOUT ROWID` table, in key order. None for a
    /// view, a query, or a table identified by its hidden rowid.
    var keyColumns: [Int] {
        switch identity {
        case let .primaryKey(names):
            return names.compactMap { name in columns.firstIndex { $0.name == name } }
        case .rowid, .none:
            // Only a table's columns can be an alias of its rowid.
            return columns.indices.filter { columns[$0].isRowidAlias }
        }
    }
}

extension TableState {
    /// The plan of the columns on a screen `width` cells wide, from the
    /// window's `texts` (computed when not given), the hidden columns and
    /// the widths the user set.
    func columnPlan(texts: [[CellText]]? = nil, width: Int) -> ColumnPlan {
        ColumnPlan(
            source: viewed.source, texts: texts ?? (window?.rows.map { $0.map(CellText.init) } ?? []),
            hidden: hiddenColumns, widths: columnWidths, seen: seenWidths, screenWidth: width)
    }
}
