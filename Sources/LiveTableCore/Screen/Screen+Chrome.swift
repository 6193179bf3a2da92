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

    /// Draws a key table as the help overlay, centred, from row `scroll`;
    /// rows that do not fit are counted on the first and last rows.
    mutating func drawHelpOverlay(_ rows: [(keys: String, description: String)], scroll: Int = 0) {
        let keysWidth = rows.map { TextWidth.width(of: $0.keys) }.max() ?? 0
        let descriptionWidth = rows.map { TextWidth.width(of: $0.description) }.max() ?? 0
        let box = centeredBox(width: keysWidth + 2 + descriptionWidth + 4, height: rows.count + 4, in: self)
        drawBox(
            x: box.x, y: box.y, width: box.width, height: box.height,
            style: ChromeStyle.border, title: "Keys", titleStyle: ChromeStyle.boxTitle)
        let innerRows = box.height - 2
        let page = HelpPage(rows: rows.count, screenHeight: height, scroll: scroll)
        let available = box.width - 4
        var y = box.y + 1
        if page.above > 0 {
            put(TextWidth.truncated("… \(page.above) more above: ↑", toWidth: available), x: box.x + 2, y: y,
                style: ChromeStyle.hint)
            y += 1
        }
        for row in rows[page.shown] {
            let x = box.x + 2
            put(row.keys, x: x, y: y, style: ChromeStyle.hintKey, maxWidth: available)
            put(
                TextWidth.truncated(row.description, toWidth: available - keysWidth - 2),
                x: x + keysWidth + 2, y: y, maxWidth: max(0, available - keysWidth - 2))
            y += 1
        }
        if page.below > 0 {
            put(TextWidth.truncated("… \(page.below) more: ↓ shows them", toWidth: available), x: box.x + 2, y: y,
                style: ChromeStyle.hint)
        }
        if innerRows >= 2 {
            let closing = page.below > 0 || page.above > 0 ? "↑ ↓ scroll, any other key closes" : "Press any key to close"
            put(TextWidth.truncated(closing, toWidth: available), x: box.x + 2, y: box.y + box.height - 2,
                style: ChromeStyle.hint)
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

/// Which rows of a help overlay fit in `room` lines from `scroll`: a line
/// says how many are above, another how many are below.
package struct HelpPage: Equatable {
    package let above: Int
    package let shown: Range<Int>
    package let below: Int

    package init(rows: Int, room: Int, scroll: Int) {
        guard rows > room else {
            self.init(above: 0, shown: 0..<rows, below: 0)
            return
        }
        // Too little room for a line above and one below: the first rows only.
        let first = room < 3 ? 0 : min(max(0, scroll), Self.lastScroll(rows: rows, room: room))
        let top = first > 0 ? 1 : 0
        let fits = max(0, room - top - (first + room - top < rows ? 1 : 0))
        self.init(above: first, shown: first..<min(rows, first + fits), below: max(0, rows - first - fits))
    }

    private init(above: Int, shown: Range<Int>, below: Int) {
        self.above = above
        self.shown = shown
        self.below = below
    }

    /// The page of an overlay of `rows` keys on a screen `screenHeight` high.
    package init(rows: Int, screenHeight: Int, scroll: Int) {
        self.init(rows: rows, room: Self.room(rows: rows, screenHeight: screenHeight), scroll: scroll)
    }

    /// The lines for keys: the box's height less its borders, the blank
    /// line and the closing line.
    package static func room(rows: Int, screenHeight: Int) -> Int {
        max(0, min(rows + 4, screenHeight) - 4)
    }

    /// The footer's hints under the help: how to scroll it, when it does.
    package static func footerHints(rows: Int, screenHeight: Int) -> [(key: String, text: String)] {
        guard room(rows: rows, screenHeight: screenHeight) < rows else { return [("", "any key closes the help")] }
        return [("↑↓", "scroll"), ("", "any other key closes the help")]
    }

    /// The help's scroll after `action`: the moving keys scroll a help too
    /// tall for the screen; nil for any other key, which closes it.
    package static func scroll<Action: ScreenAction>(
        _ scroll: Int, after action: Action?, rows: Int, screenHeight: Int
    ) -> Int? {
        let room = Self.room(rows: rows, screenHeight: screenHeight)
        // Every key shown: any key closes the help, as it says.
        guard room < rows else { return nil }
        let last = lastScroll(rows: rows, room: room)
        let page = max(1, room - 2)
        switch action {
        case .moveDown?: return min(last, scroll + 1)
        case .moveUp?: return max(0, scroll - 1)
        case .pageDown?: return min(last, scroll + page)
        case .pageUp?: return max(0, scroll - page)
        case .jumpToFirst?: return 0
        case .jumpToLast?: return last
        default: return nil
        }
    }

    /// The largest scroll that still fills the overlay: its last row shown.
    package static func lastScroll(rows: Int, room: Int) -> Int {
        rows > room ? max(0, rows - room + 1) : 0
    }
}
