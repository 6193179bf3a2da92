import CNcurses
import LiveTableCore

/// The terminal attributes and colour pair of each `CellStyle`, in the
/// colours of a `Theme`. Without colours (`--no-color`, `NO_COLOR`, the
/// mono theme, or a terminal without them), cells keep only bold, reverse
/// and underline.
@MainActor
struct Palette {
    /// False when cells are drawn in monochrome.
    let usesColor: Bool
    /// The colours drawn dim: grey on a terminal of 8 colours.
    private let dimColors: Set<Color>

    /// Starts ncurses colours if wanted and available. Call after `newterm`.
    init(theme: Theme) {
        guard theme.usesColor, has_colors() else {
            usesColor = false
            dimColors = []
            return
        }
        start_color()
        // -1 is the terminal's own foreground or background, when allowed.
        let hasDefaults = use_default_colors() == OK
        let background: Int16 = hasDefaults ? -1 : Int16(COLOR_BLACK)
        var dim: Set<Color> = []
        for color in Color.allCases {
            let foreground: Int16
            switch theme.foreground(color) {
            case .terminalDefault:
                foreground = hasDefaults ? -1 : Int16(COLOR_WHITE)
            case let .palette(number):
                let (value, isDim) = Self.fitted(number, colors: Int(lt_colors()))
                foreground = Int16(value)
                if isDim { dim.insert(color) }
            }
            init_pair(Self.pair(color), foreground, background)
        }
        dimColors = dim
        usesColor = true
    }

    /// A colour the terminal has: a bright one on 8 colours is its plain
    /// form, grey (bright black) is white drawn dim, and one of the 256 on
    /// 16 or fewer is the terminal's white.
    private static func fitted(_ number: Int, colors: Int) -> (Int, isDim: Bool) {
        if number < colors { return (number, false) }
        if number == 8 { return (Int(COLOR_WHITE), true) }
        if number < 16 { return (number - 8, false) }
        return (Int(COLOR_WHITE), false)
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
        if dimColors.contains(style.color) {
            attributes |= lt_a_dim()
        }
        return (attributes, Self.pair(style.color))
    }
}
