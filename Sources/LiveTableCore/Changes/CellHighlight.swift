/// How a cell is highlighted because its row changed: what happened, and
/// how far its highlight has faded. Renderers map it to attributes with
/// `CellStyle.highlighted(_:)`, in colour and in monochrome alike.
package struct CellHighlight: Equatable, Sendable {
    package enum Kind: Equatable, Sendable {
        case changed
        /// The row is new in the window: inserted, or moved there by an
        /// update of its sort values.
        case added
    }

    /// How strongly the cell is highlighted, fading with time: `.strong`
    /// just after the change, then `.faint`, then no highlight at all
    /// (see `ChangeHighlighter.strongDuration` and `fadeDuration`).
    package enum Level: Int, Comparable, Sendable {
        case faint
        case strong

        package static func < (lhs: Level, rhs: Level) -> Bool {
            lhs.rawValue < rhs.rawValue
        }
    }

    package var kind: Kind
    package var level: Level

    package init(kind: Kind, level: Level) {
        self.kind = kind
        self.level = level
    }
}

// MARK: - Styles

extension CellStyle {
    /// The style of a cell drawn highlighted: `.accent` for a changed cell, `.status` for an
    /// added row, bold; reversed while strong, underlined once faint.
    package func highlighted(_ highlight: CellHighlight?) -> CellStyle {
        guard let highlight else { return self }
        let color: Color
        switch highlight.kind {
        case .changed: color = .changed
        case .added: color = .added
        }
        switch highlight.level {
        case .strong:
            return CellStyle(color: color, bold: true, reverse: !reverse)
        case .faint:
            return CellStyle(color: color, bold: true, reverse: reverse, underline: true)
        }
    }
}
