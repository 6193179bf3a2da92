/// The colours of the app, mapped to terminal colour pairs by the runtime.
public enum Color: UInt8, CaseIterable, Equatable, Sendable {
    /// Text.
    case normal
    /// The title bar.
    case title
    /// Box borders.
    case border
    /// Keys in hints, and the figures of the panes.
    case accent
    /// The selected row.
    case selection
    /// The status line.
    case status
    /// Error messages.
    case error
    /// Secondary text.
    case dim
}

/// How a cell is drawn.
public struct CellStyle: Equatable, Sendable {
    /// The colour, drawn as the foreground.
    public var color: Color
    /// Whether the text is bold.
    public var bold: Bool
    /// Whether foreground and background are swapped.
    public var reverse: Bool
    /// Whether the text is underlined: the faint tail of a change
    /// highlight, which must show without colours too.
    public var underline: Bool

    /// Creates a style.
    ///
    /// For example:
    ///
    /// ```swift
    /// let selected = CellStyle(color: .selection, bold: true, reverse: true)
    /// ```
    init(color: Color = .normal, bold: Bool = false, reverse: Bool = false, underline: Bool = false) {
        self.color = color
        self.bold = bold
        self.reverse = reverse
        self.underline = underline
    }

    /// Normal text, neither bold nor reversed.
    static let plain = CellStyle()
}

/// One terminal cell. A wide character occupies its cell and the next one,
/// whose `isContinuation` is true and whose `text` is empty.
public struct Cell: Equatable, Sendable {
    /// One grapheme cluster, or "" for the right half of a wide character.
    public var text: String
    /// How the cell is drawn.
    public var style: CellStyle
    /// True for the right half of a wide character.
    public var isContinuation: Bool

    /// Creates a cell; by default, a blank one.
    ///
    /// For example:
    ///
    /// ```swift
    /// let cell = Cell(text: "A", style: CellStyle(bold: true))
    /// ```
    init(text: String = " ", style: CellStyle = .plain, isContinuation: Bool = false) {
        self.text = text
        self.style = style
        self.isContinuation = isContinuation
    }
}

/// An in-memory grid of cells that `render` draws into. Only the runtime
/// copies it to the terminal.
public struct Screen: Equatable, Sendable {
    /// The number of columns.
    public let width: Int
    /// The number of rows.
    public let height: Int
    /// Row-major cells, `width * height` of them.
    private(set) var cells: [Cell]
    /// Where the terminal cursor should stand, if visible (edit forms).
    public var cursor: (x: Int, y: Int)? {
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

    /// The cell at column `x` and row `y`, both in the screen.
    ///
    /// For example:
    ///
    /// ```swift
    /// var screen = Screen(width: 10, height: 2)
    /// screen[0, 1] = Cell(text: "A")
    /// ```
    public subscript(x: Int, y: Int) -> Cell {
        get { cells[y * width + x] }
        set { cells[y * width + x] = newValue }
    }

    // MARK: - Reading

    /// Each row as plain text, exactly `width` cells wide: the text of every
    /// cell, skipping the right halves of wide characters.
    ///
    /// For example:
    ///
    /// ```swift
    /// var screen = Screen(width: 4, height: 1)
    /// screen.put("中a", x: 0, y: 0)
    /// screen.lines // ["中a "]
    /// ```
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
    ///
    /// For example:
    ///
    /// ```swift
    /// var screen = Screen(width: 5, height: 2)
    /// screen.put("Hi", x: 1, y: 1)
    /// screen.text // "\n Hi"
    /// ```
    var text: String {
        lines.map { line in
            var line = Substring(line)
            while line.last == " " { line.removeLast() }
            return String(line)
        }.joined(separator: "\n")
    }

    /// The style of the cell at `x`, `y`, or nil outside the screen.
    ///
    /// For example:
    ///
    /// ```swift
    /// screen.style(x: 0, y: 0)?.reverse
    /// ```
    func style(x: Int, y: Int) -> CellStyle? {
        contains(x: x, y: y) ? self[x, y].style : nil
    }

    /// True when `x`, `y` is a cell of the screen.
    ///
    /// For example:
    ///
    /// ```swift
    /// Screen(width: 2, height: 2).contains(x: 2, y: 0) // false
    /// ```
    func contains(x: Int, y: Int) -> Bool {
        x >= 0 && y >= 0 && x < width && y < height
    }
}
