/// The colours of the app, mapped to terminal colour pairs by the runtime.
package enum Color: UInt8, CaseIterable, Equatable, Sendable {
    case normal
    case title
    case border
    /// Keys in hints, and the figures of the panes.
    case accent
    case selection
    case status
    case error
    case dim
    /// A table's column names.
    case header
    /// A cell that another process changed, and a row it added.
    case changed, added
    case null
}

/// How a cell is drawn.
package struct CellStyle: Equatable, Sendable {
    package var color: Color
    package var bold: Bool
    package var reverse: Bool
    /// Whether the text is underlined: the faint tail of a change
    /// highlight, which must show without colours too.
    package var underline: Bool

    init(color: Color = .normal, bold: Bool = false, reverse: Bool = false, underline: Bool = false) {
        self.color = color
        self.bold = bold
        self.reverse = reverse
        self.underline = underline
    }

    static let plain = CellStyle()
}

/// One terminal cell. A wide character occupies its cell and the next one,
/// whose `isContinuation` is true and whose `text` is empty.
package struct Cell: Equatable, Sendable {
    /// One grapheme cluster, or "" for the right half of a wide character.
    package var text: String
    package var style: CellStyle
    package var isContinuation: Bool

    init(text: String = " ", style: CellStyle = .plain, isContinuation: Bool = false) {
        self.text = text
        self.style = style
        self.isContinuation = isContinuation
    }
}

/// An in-memory grid of cells that `render` draws into. Only the runtime
/// copies it to the terminal.
package struct Screen: Equatable, Sendable {
    package let width: Int
    package let height: Int
    /// Row-major cells, `width * height` of them.
    private(set) var cells: [Cell]
    /// Where the terminal cursor should stand, if visible (edit forms).
    package var cursor: (x: Int, y: Int)? {
        get { cursorPosition.map { ($0.x, $0.y) } }
        set { cursorPosition = newValue.map { CursorPosition(x: $0.x, y: $0.y) } }
    }
    private var cursorPosition: CursorPosition?

    private struct CursorPosition: Equatable, Sendable { var x: Int; var y: Int }

    /// Creates a blank screen. Negative sizes are treated as zero.
    init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        self.cells = Array(repeating: Cell(), count: self.width * self.height)
    }

    package subscript(x: Int, y: Int) -> Cell {
        get { cells[y * width + x] }
        set { cells[y * width + x] = newValue }
    }

    // MARK: - Reading

    /// Each row as plain text, exactly `width` cells wide: the text of every
    /// cell, skipping the right halves of wide characters.
    var lines: [String] {
        (0..<height).map { y in
            var line = ""
            for x in 0..<width where !self[x, y].isContinuation {
                line += self[x, y].text
            }
            return line
        }
    }

    /// The whole screen as plain text: ``lines`` without trailing spaces,
    /// joined by newlines. There are always `height` lines, so an expected
    /// screen reads as a multi-line string literal in tests.
    var text: String {
        lines.map { line in
            var line = Substring(line)
            while line.last == " " { line.removeLast() }
            return String(line)
        }.joined(separator: "\n")
    }

    func style(x: Int, y: Int) -> CellStyle? {
        contains(x: x, y: y) ? self[x, y].style : nil
    }

    func contains(x: Int, y: Int) -> Bool {
        x >= 0 && y >= 0 && x < width && y < height
    }
}
