/// The colours of the app, mapped to terminal colour pairs by the runtime.
public enum Color: UInt8, CaseIterable, Equatable, Sendable {
    case normal, title, border, accent, selection, status, error, dim
}

/// How a cell is drawn.
public struct CellStyle: Equatable, Sendable {
    public var color: Color
    public var bold: Bool
    public var reverse: Bool

    public init(color: Color = .normal, bold: Bool = false, reverse: Bool = false) {
        self.color = color
        self.bold = bold
        self.reverse = reverse
    }

    public static let plain = CellStyle()
}

/// One terminal cell. A wide character occupies its cell and the next one,
/// whose `isContinuation` is true and whose `text` is empty.
public struct Cell: Equatable, Sendable {
    /// One grapheme cluster, or "" for the right half of a wide character.
    public var text: String
    public var style: CellStyle
    public var isContinuation: Bool

    public init(text: String = " ", style: CellStyle = .plain, isContinuation: Bool = false) {
        self.text = text
        self.style = style
        self.isContinuation = isContinuation
    }
}

/// An in-memory grid of cells that `render` draws into. Only the runtime
/// copies it to the terminal.
public struct Screen: Equatable, Sendable {
    public let width: Int
    public let height: Int
    /// Row-major cells, `width * height` of them.
    public private(set) var cells: [Cell]
    /// Where the terminal cursor should stand, if visible (edit forms).
    public var cursor: (x: Int, y: Int)? {
        get { cursorPosition.map { ($0.x, $0.y) } }
        set { cursorPosition = newValue.map { CursorPosition(x: $0.x, y: $0.y) } }
    }
    private var cursorPosition: CursorPosition?

    private struct CursorPosition: Equatable, Sendable { var x: Int; var y: Int }

    /// Creates a blank screen. Negative sizes are treated as zero.
    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        self.cells = Array(repeating: Cell(), count: self.width * self.height)
    }

    public subscript(x: Int, y: Int) -> Cell {
        get { cells[y * width + x] }
        set { cells[y * width + x] = newValue }
    }
}
