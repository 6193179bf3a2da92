// Drawing primitives of the cell grid. They clip at the screen edges, so
// `render` can lay out at any size, down to 0x0, without bounds checks.
extension Screen {
    // MARK: - Text

    /// Writes `text` from column `x` of row `y`, and returns the number of cells written.
    @discardableResult
    mutating func put(
        _ text: String, x: Int, y: Int, style: CellStyle = .plain, maxWidth: Int? = nil) -> Int
    {
        guard y >= 0, y < height else { return 0 }
        let limit = min(width, x + max(0, maxWidth ?? width - x))
        var column = x
        for unit in TextWidth.units(of: text) {
            if column >= limit { break }
            if column + unit.width > limit {
                // The unit does not fit: blank what is left rather than
                // leave half a wide character.
                while column < limit {
                    setCell(Cell(text: " ", style: style), x: column, y: y)
                    column += 1
                }
                break
            }
            if column < 0 {
                // Left of the screen: a wide character that straddles
                // column 0 leaves a blank there.
                if column + unit.width > 0 {
                    setCell(Cell(text: " ", style: style), x: 0, y: y)
                }
                column += unit.width
                continue
            }
            setCell(Cell(text: unit.text, style: style), x: column, y: y)
            for continuation in 1..<max(1, unit.width) {
                setCell(Cell(text: "", style: style, isContinuation: true), x: column + continuation, y: y)
            }
            column += unit.width
        }
        return max(0, column - max(0, x))
    }

    mutating func fill(x: Int, y: Int, width: Int, height: Int, style: CellStyle = .plain) {
        for row in max(0, y)..<max(max(0, y), min(self.height, y + height)) {
            for column in max(0, x)..<max(max(0, x), min(self.width, x + width)) {
                setCell(Cell(text: " ", style: style), x: column, y: row)
            }
        }
    }

    mutating func drawBox(
        x: Int, y: Int, width: Int, height: Int,
        style: CellStyle = .plain, title: String? = nil, titleStyle: CellStyle? = nil)
    {
        guard width >= 2, height >= 2 else {
            fill(x: x, y: y, width: width, height: height, style: style)
            return
        }
        let horizontal = String(repeating: "─", count: width - 2)
        put("┌" + horizontal + "┐", x: x, y: y, style: style)
        for row in (y + 1)..<(y + height - 1) {
            put("│", x: x, y: row, style: style)
            fill(x: x + 1, y: row, width: width - 2, height: 1)
            put("│", x: x + width - 1, y: row, style: style)
        }
        put("└" + horizontal + "┘", x: x, y: y + height - 1, style: style)
        if let title, width >= 6 {
            // "┌ Title ─┐": keep a corner, a space each side and one line.
            let text = TextWidth.truncated(title, toWidth: width - 5)
            put(" \(text) ", x: x + 1, y: y, style: titleStyle ?? style)
        }
    }

    // MARK: - Cells

    /// Sets one cell, blanking the other half of any wide character it
    /// overwrites. Does nothing outside the screen.
    mutating func setCell(_ cell: Cell, x: Int, y: Int) {
        guard contains(x: x, y: y) else { return }
        let old = self[x, y]
        if old.isContinuation, x > 0, !cell.isContinuation {
            self[x - 1, y] = Cell(text: " ", style: self[x - 1, y].style)
        }
        if !old.isContinuation, x + 1 < width, self[x + 1, y].isContinuation {
            self[x + 1, y] = Cell(text: " ", style: self[x + 1, y].style)
        }
        self[x, y] = cell
    }
}
