// What every screen of the app draws the same way: the "too small"
// message, the title bar, the footer of key hints and the help overlay.
// The Hall of Fame and the viewer draw them from their own key tables.

enum ChromeStyle {
    static let title = CellStyle(color: .title, bold: true, reverse: true)
    static let border = CellStyle(color: .border)
    static let boxTitle = CellStyle(color: .title, bold: true)
    static let hintKey = CellStyle(color: .accent, bold: true)
    static let hint = CellStyle(color: .dim)
    static let error = CellStyle(color: .error, bold: true)
}

extension Screen {
    // MARK: - Too small

    /// Says, centred, that the terminal is smaller than `minimumWidth` x
    /// `minimumHeight`: the longest message that fits, down to the size
    /// alone. Draws nothing on a 0x0 screen.
    mutating func drawTooSmall(minimumWidth: Int, minimumHeight: Int) {
        guard width > 0, height > 0 else { return }
        let size = "\(minimumWidth)x\(minimumHeight)"
        let messages = ["Terminal too small (need \(size))", "Too small: need \(size)", "need \(size)", size]
        let message = messages.first { TextWidth.width(of: $0) <= width }
            ?? TextWidth.truncated(size, toWidth: width)
        let x = (width - TextWidth.width(of: message)) / 2
        put(message, x: x, y: (height - 1) / 2, style: ChromeStyle.error)
    }

    // MARK: - Title bar

    /// Writes `title` on the left and the first of `trailing` that fits on the right. A long title is
    /// cut with "…" rather than let "live" or "not live" vanish behind it.
    mutating func drawTitleBar(_ title: String, trailing: [String], y: Int) {
        fill(x: 0, y: y, width: width, height: 1, style: ChromeStyle.title)
        let titleWidth = TextWidth.width(of: title)
        let right = trailing.first { titleWidth + 1 + TextWidth.width(of: $0) <= width }
            ?? trailing.first { TextWidth.width(of: $0) <= width - width / 2 - 1 } ?? ""
        let rightWidth = TextWidth.width(of: right)
        put(TextWidth.truncated(title, toWidth: width - rightWidth - (rightWidth > 0 ? 1 : 0)), x: 0, y: y, style: ChromeStyle.title)
        put(right, x: width - rightWidth, y: y, style: ChromeStyle.title)
    }

    // MARK: - Key hints

    /// Writes key hints ("Enter row  ? help  q quit") on row `y`, from
    /// column 1: whole hints only, since a cut hint would read as another
    /// key.
    mutating func drawKeyHints(_ hints: [(key: String, text: String)], y: Int) {
        var x = 1
        for hint in hints {
            let hintWidth = TextWidth.width(of: hint.key) + (hint.key.isEmpty ? 0 : 1) + TextWidth.width(of: hint.text)
            guard x + hintWidth <= width else { break }
            var text = hint.text
            if !hint.key.isEmpty {
                x += put(hint.key, x: x, y: y, style: ChromeStyle.hintKey, maxWidth: width - x)
                text = " " + text
            }
            x += put(text, x: x, y: y, style: ChromeStyle.hint, maxWidth: width - x)
            x += 2
        }
    }

    // MARK: - Help overlay

    /// Draws a key table as the help overlay, centred; rows that do not fit are left out.
    mutating func drawHelpOverlay(_ rows: [(keys: String, description: String)]) {
        let keysWidth = rows.map { TextWidth.width(of: $0.keys) }.max() ?? 0
        let descriptionWidth = rows.map { TextWidth.width(of: $0.description) }.max() ?? 0
        let box = centeredBox(width: keysWidth + 2 + descriptionWidth + 4, height: rows.count + 4, in: self)
        drawBox(
            x: box.x, y: box.y, width: box.width, height: box.height,
            style: ChromeStyle.border, title: "Keys", titleStyle: ChromeStyle.boxTitle)
        let innerRows = box.height - 2
        // The last inner row says how to close the overlay. On a screen
        // too short for every key, the last row that fits says how many
        // are left out.
        let room = max(0, innerRows - 2)
        let shown = rows.count <= room ? rows.count : max(0, room - 1)
        if shown < rows.count, room > 0 {
            let more = "… \(rows.count - shown) more: a taller terminal shows them"
            put(TextWidth.truncated(more, toWidth: box.width - 4), x: box.x + 2, y: box.y + 1 + shown,
                style: ChromeStyle.hint)
        }
        for (offset, row) in rows.prefix(shown).enumerated() {
            let y = box.y + 1 + offset
            let x = box.x + 2
            let available = box.width - 4
            put(row.keys, x: x, y: y, style: ChromeStyle.hintKey, maxWidth: available)
            put(
                TextWidth.truncated(row.description, toWidth: available - keysWidth - 2),
                x: x + keysWidth + 2, y: y, maxWidth: max(0, available - keysWidth - 2))
        }
        if innerRows >= 2 {
            let closing = TextWidth.truncated("Press any key to close", toWidth: box.width - 4)
            put(closing, x: box.x + 2, y: box.y + box.height - 2, style: ChromeStyle.hint)
        }
    }

    // MARK: - Monochrome

    /// Draws every cell in the `.normal` colour: a monochrome screen keeps
    /// only bold and reverse.
    mutating func removeColors() {
        for y in 0..<height {
            for x in 0..<width {
                self[x, y].style.color = .normal
            }
        }
    }
}

func centeredBox(width: Int, height: Int, in screen: Screen) -> Rect {
    let width = min(width, screen.width)
    let height = min(height, screen.height)
    return Rect(x: (screen.width - width) / 2, y: (screen.height - height) / 2, width: width, height: height)
}
