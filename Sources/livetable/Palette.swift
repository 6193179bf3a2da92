import CNcurses
import LiveTableCore

/// The terminal attributes and colour pair of each `CellStyle`.
/// Without colours (`--no-color`, `NO_COLOR`, or a terminal without them), cells keep only bold,
/// reverse and underline.
@MainActor
struct Palette {
    /// False when cells are drawn in monochrome.
    let usesColor: Bool

    /// Starts ncurses colours if wanted and available. Call after `newterm`.
    init(useColor: Bool) {
        guard useColor, has_colors() else {
            usesColor = false
            return
        }
        start_color()
        // -1 is the terminal's own foreground or background, when allowed.
        let hasDefaults = use_default_colors() == OK
        let background: Int16 = hasDefaults ? -1 : Int16(COLOR_BLACK)
        let foreground: Int16 = hasDefaults ? -1 : Int16(COLOR_WHITE)
        // Bright black is grey on 16-colour terminals.
        let grey: Int16 = lt_colors() >= 16 ? 8 : Int16(COLOR_WHITE)
        for color in Color.allCases {
            let (fg, bg): (Int16, Int16)
            switch color {
            case .normal: (fg, bg) = (foreground, background)
            case .title: (fg, bg) = (Int16(COLOR_CYAN), background)
            case .border: (fg, bg) = (Int16(COLOR_BLUE), background)
            case .accent: (fg, bg) = (Int16(COLOR_YELLOW), background)
            case .selection: (fg, bg) = (Int16(COLOR_YELLOW), background)
            case .status: (fg, bg) = (Int16(COLOR_GREEN), background)
            case .error: (fg, bg) = (Int16(COLOR_RED), background)
            case .dim: (fg, bg) = (grey, background)
            }
            init_pair(Self.pair(color), fg, bg)
        }
        usesColor = true
    }

    /// Pair 0 is reserved by curses: `Color` n uses pair n + 1.
    private static func pair(_ color: Color) -> Int16 {
        Int16(color.rawValue) + 1
    }

    /// The attributes and colour pair that draw `style`.
    func attributes(for style: CellStyle) -> (attr_t, Int16) {
        var attributes = lt_a_normal()
        if style.bold {
            attributes |= lt_a_bold()
        }
        if style.reverse {
            attributes |= lt_a_reverse()
        }
        if style.underline {
            attributes |= lt_a_underline()
        }
        guard usesColor else {
            return (attributes, 0)
        }
        if style.color == .dim && lt_colors() < 16 {
            attributes |= lt_a_dim()
        }
        return (attributes, Self.pair(style.color))
    }
}
