/// What a key does on the main screen.
///
/// For example:
///
/// ```swift
/// KeyBinding.action(for: .character("o")) // .toggleOrdering
/// ```
public enum Action: Hashable, Sendable {
    /// Select the previous player.
    case moveUp
    /// Select the next player.
    case moveDown
    /// Select the player a page above.
    case pageUp
    /// Select the player a page below.
    case pageDown
    /// Select the first player of the ordering.
    case jumpToFirst
    /// Select the last player of the ordering.
    case jumpToLast
    /// Insert a random player.
    case insert
    /// Open the edit form on the selected player.
    case edit
    /// Delete the selected player.
    case delete
    /// Ask for confirmation, then delete all players.
    case deleteAll
    /// The demos' refresh.
    case refresh
    /// 50 concurrent refreshes.
    case stressTest
    /// Switch between "by score" and "by name".
    case toggleOrdering
    /// Turn change highlighting off, or on again.
    case toggleHighlight
    /// Show the help overlay.
    case help
    /// Restore the terminal and stop until the shell continues the app.
    case suspend
    /// Restore the terminal and exit.
    case quit
}

/// A row of a screen's key table: some keys, what they do, and the actions
/// they trigger on that screen.
///
/// Each screen has one table, the only place where its keys are mapped to
/// its actions: ``keyBindings`` for the Hall of Fame (`Action`),
/// ``viewerKeyBindings`` for the viewer (`ViewerAction`). `update` looks keys
/// up in it, and the help overlay, the footer and the README show it. For
/// example:
///
/// ```swift
/// for binding in keyBindings {
///     print("| \(binding.keys) | \(binding.description) |")
/// }
/// KeyBinding.action(for: .character("j")) // .moveDown
/// ```
public struct KeyBinding<Action: Hashable & Sendable>: Equatable, Sendable {
    /// The keys as people read them: "↑ ↓ / k j".
    public var keys: String
    /// What the keys do: "move the selection".
    public var description: String
    /// A short hint for the footer ("n new"), or nil to leave the row out.
    var hint: String?
    /// Each key and the action it triggers.
    var actions: [Key: Action]

    /// Creates a row of the key table.
    ///
    /// For example:
    ///
    /// ```swift
    /// KeyBinding(keys: "r", description: "refresh", hint: "r refresh",
    ///            actions: [.character("r"): .refresh])
    /// ```
    init(keys: String, description: String, hint: String?, actions: [Key: Action]) {
        self.keys = keys
        self.description = description
        self.hint = hint
        self.actions = actions
    }

    /// The action of `key` in the key table `bindings`, or nil when the
    /// key does nothing there.
    ///
    /// For example:
    ///
    /// ```swift
    /// KeyBinding.action(for: .character("t"), in: viewerKeyBindings) // .tables
    /// ```
    public static func action(for key: Key, in bindings: [KeyBinding]) -> Action? {
        for binding in bindings {
            if let action = binding.actions[key] {
                return action
            }
        }
        return nil
    }
}

// MARK: - The keys of every screen

/// The actions that every screen has, on the same keys: moving the
/// selection, the help overlay, suspend and quit.
///
/// A screen's action type conforms to it (its enum cases are the
/// requirements), and its key table starts and ends with the rows of
/// `KeyBinding`'s shared rows, so that a key means the same on every
/// screen. For example:
///
/// ```swift
/// let bindings: [KeyBinding<ViewerAction>] = KeyBinding.moving + [tablesRow, .help, .suspend, .quit()]
/// ```
public protocol ScreenAction: Hashable, Sendable {
    /// Select the previous row.
    static var moveUp: Self { get }
    /// Select the next row.
    static var moveDown: Self { get }
    /// Select the row a page above.
    static var pageUp: Self { get }
    /// Select the row a page below.
    static var pageDown: Self { get }
    /// Select the first row.
    static var jumpToFirst: Self { get }
    /// Select the last row.
    static var jumpToLast: Self { get }
    /// Show the help overlay.
    static var help: Self { get }
    /// Restore the terminal and stop until the shell continues the app.
    static var suspend: Self { get }
    /// Restore the terminal and exit.
    static var quit: Self { get }
}

extension Action: ScreenAction { }

extension KeyBinding where Action: ScreenAction {
    /// The rows that move the selection: arrows and k j, pages, first and
    /// last.
    static var moving: [KeyBinding] {
        [
            KeyBinding(
                keys: "↑ ↓ / k j", description: "move the selection", hint: nil,
                actions: [.up: .moveUp, .down: .moveDown, .character("k"): .moveUp, .character("j"): .moveDown]),
            KeyBinding(
                keys: "PgUp PgDn, Home End / g G", description: "page, jump to first / last", hint: nil,
                actions: [
                    .pageUp: .pageUp, .pageDown: .pageDown,
                    .home: .jumpToFirst, .end: .jumpToLast,
                    .character("g"): .jumpToFirst, .character("G"): .jumpToLast,
                ]),
        ]
    }

    /// The row of the help overlay: `?`.
    static var help: KeyBinding {
        KeyBinding(keys: "?", description: "show this help", hint: "? help", actions: [.character("?"): .help])
    }

    /// The row of suspend: Ctrl-Z.
    static var suspend: KeyBinding {
        KeyBinding(keys: "Ctrl-Z", description: "suspend (fg resumes)", hint: nil, actions: [.control("z"): .suspend])
    }

    /// The row of quit: q, Esc and Ctrl-C.
    ///
    /// - parameter description: What quitting does on the screen.
    static func quit(description: String = "quit") -> KeyBinding {
        KeyBinding(
            keys: "q, Esc, Ctrl-C", description: description, hint: "q quit",
            actions: [.character("q"): .quit, .escape: .quit, .control("c"): .quit])
    }
}

extension KeyBinding where Action == LiveTableCore.Action {
    /// The action of `key` on the Hall of Fame's main screen, or nil when
    /// the key does nothing there.
    ///
    /// For example:
    ///
    /// ```swift
    /// KeyBinding.action(for: .control("c")) // .quit
    /// KeyBinding.action(for: .character("x")) // nil
    /// ```
    public static func action(for key: Key) -> Action? {
        action(for: key, in: keyBindings)
    }
}

/// The keys of the main screen, in the order the help overlay lists them.
///
/// For example:
///
/// ```swift
/// keyBindings.map(\.keys) // ["↑ ↓ / k j", "PgUp PgDn, Home End / g G", "n or +", ...]
/// ```
public let keyBindings: [KeyBinding<Action>] = KeyBinding.moving + [
    KeyBinding(
        keys: "n or +", description: "insert a random player", hint: "n new",
        actions: [.character("n"): .insert, .character("+"): .insert]),
    KeyBinding(
        keys: "e or Enter", description: "edit the selected player", hint: "e edit",
        actions: [.character("e"): .edit, .enter: .edit]),
    KeyBinding(
        keys: "d or Delete", description: "delete the selected player", hint: "d del",
        actions: [.character("d"): .delete, .delete: .delete]),
    KeyBinding(
        keys: "D", description: "delete all players (asks y/n)", hint: "D del all",
        actions: [.character("D"): .deleteAll]),
    KeyBinding(
        keys: "r", description: "refresh: new random scores", hint: "r refresh",
        actions: [.character("r"): .refresh]),
    KeyBinding(
        keys: "s", description: "stress test: 50 refreshes", hint: "s stress",
        actions: [.character("s"): .stressTest]),
    KeyBinding(
        keys: "o", description: "order by score / by name", hint: "o order",
        actions: [.character("o"): .toggleOrdering]),
    KeyBinding(
        keys: "H", description: "highlight changes on / off", hint: nil,
        actions: [.character("H"): .toggleHighlight]),
    .help,
    .suspend,
    .quit(),
]
