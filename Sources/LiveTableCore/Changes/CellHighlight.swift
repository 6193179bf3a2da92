/// How a cell is highlighted because its row changed: what happened, and
/// how far its highlight has faded. Renderers map it to attributes with
/// `CellStyle.highlighted(_:)`, in colour and in monochrome alike.
///
/// For example:
///
/// ```swift
/// if let highlight = highlighter.highlight(row: player.id, cell: HallOfFame.scoreCell) {
///     style = style.highlighted(highlight)
/// }
/// ```
public struct CellHighlight: Equatable, Sendable {
    /// What happened to the cell.
    public enum Kind: Equatable, Sendable {
        /// The value of the cell changed.
        case changed
        /// The row is new in the window: inserted, or moved there by an
        /// update of its sort values.
        case added
    }

    /// How strongly the cell is highlighted, fading with time: `.strong`
    /// just after the change, then `.faint`, then no highlight at all
    /// (see `ChangeHighlighter.strongDuration` and `fadeDuration`).
    public enum Level: Int, Comparable, Sendable {
        /// The tail of the fade.
        case faint
        /// Just changed.
        case strong

        /// True when `lhs` is fainter than `rhs`.
        public static func < (lhs: Level, rhs: Level) -> Bool {
            lhs.rawValue < rhs.rawValue
        }
    }

    /// What happened to the cell.
    public var kind: Kind
    /// How strongly it is highlighted.
    public var level: Level

    /// Creates a highlight.
    ///
    /// For example:
    ///
    /// ```swift
    /// let highlight = CellHighlight(kind: .changed, level: .strong)
    /// ```
    public init(kind: Kind, level: Level) {
        self.kind = kind
        self.level = level
    }
}

// MARK: - Styles

extension CellStyle {
    /// The style of a highlighted cell drawn in this style: in the colour
    /// of the kind of change (`.accent` for a changed cell, `.status` for
    /// an added row) and bold; while the highlight is strong, with
    /// foreground and background swapped from this style's, and once
    /// faint, underlined.
    ///
    /// Without colours (`NO_COLOR`, `--no-color`), where `render` keeps
    /// only bold, reverse and underline, a strong highlight is a reversed
    /// bold cell (a plain bold cell in the reversed bar of the selection)
    /// and a faint one is bold and underlined; a highlight has faded when
    /// the cell is drawn as before again.
    ///
    /// For example:
    ///
    /// ```swift
    /// CellStyle.plain.highlighted(CellHighlight(kind: .changed, level: .strong))
    /// // CellStyle(color: .accent, bold: true, reverse: true)
    /// ```
    ///
    /// - parameter highlight: The highlight, or nil for none.
    /// - returns: The style to draw the cell in.
    public func highlighted(_ highlight: CellHighlight?) -> CellStyle {
        guard let highlight else { return self }
        let color: Color
        switch highlight.kind {
        case .changed: color = .accent
        case .added: color = .status
        }
        switch highlight.level {
        case .strong:
            return CellStyle(color: color, bold: true, reverse: !reverse)
        case .faint:
            return CellStyle(color: color, bold: true, reverse: reverse, underline: true)
        }
    }
}
