/// A colour of the terminal's palette, as a config file names it: one of
/// the 256 by number, or the terminal's own foreground.
package enum ThemeColor: Equatable, Sendable {
    case terminalDefault
    case palette(Int)

    /// The eight colours, their bright forms ("bright-red", and grey for
    /// bright black) and "default".
    package static let names: [String: ThemeColor] = {
        let basic = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]
        var names: [String: ThemeColor] = ["default": .terminalDefault, "grey": .palette(8), "gray": .palette(8)]
        for (number, name) in basic.enumerated() {
            names[name] = .palette(number)
            names["bright-" + name] = .palette(number + 8)
        }
        return names
    }()

    /// The colour of a name, or nil.
    package init?(name: String) {
        guard let color = Self.names[name.lowercased()] else { return nil }
        self = color
    }

    /// The colour of a number from 0 to 255, or nil.
    package init?(number: Int) {
        guard (0...255).contains(number) else { return nil }
        self = .palette(number)
    }
}

/// What a config file may colour: each role, the screen's colours it fills.
package enum ThemeRole: String, CaseIterable, Sendable {
    case title, header, selection, changed
    case newRow = "new_row"
    case null, status

    var colors: [Color] {
        switch self {
        case .title: [.title]
        case .header: [.header]
        case .selection: [.selection]
        case .changed: [.changed]
        case .newRow: [.added]
        case .null: [.null]
        case .status: [.status]
        }
    }
}

/// The colours the screen is drawn in: a foreground for each `Color`, on
/// the terminal's own background. Mono draws none, as `NO_COLOR` does.
package struct Theme: Equatable, Sendable {
    package var name: String
    package var usesColor: Bool
    private var foregrounds: [Color: ThemeColor]

    package static let dark = Theme(name: "dark", usesColor: true, foregrounds: [
        .title: .palette(6), .header: .palette(6), .border: .palette(4), .accent: .palette(3),
        .selection: .palette(3), .status: .palette(2), .error: .palette(1), .dim: .palette(8),
        .changed: .palette(3), .added: .palette(2), .null: .palette(8),
    ])

    /// For a light background: no yellow or cyan, which fade on white.
    package static let light = Theme(name: "light", usesColor: true, foregrounds: [
        .title: .palette(4), .header: .palette(4), .border: .palette(4), .accent: .palette(5),
        .selection: .palette(4), .status: .palette(2), .error: .palette(1), .dim: .palette(8),
        .changed: .palette(5), .added: .palette(2), .null: .palette(8),
    ])

    package static let mono = Theme(name: "mono", usesColor: false, foregrounds: [:])

    package static let all = [dark, light, mono]

    /// The theme of a name, or nil.
    package static func named(_ name: String) -> Theme? {
        all.first { $0.name == name }
    }

    /// The foreground of `color`: the terminal's own for `.normal` and any
    /// colour the theme leaves.
    package func foreground(_ color: Color) -> ThemeColor {
        foregrounds[color] ?? .terminalDefault
    }

    /// Colours `role` with `color`, whatever the theme gave it.
    package mutating func set(_ role: ThemeRole, to color: ThemeColor) {
        for screenColor in role.colors {
            foregrounds[screenColor] = color
        }
    }
}
