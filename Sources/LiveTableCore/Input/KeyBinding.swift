/// A row of a screen's key table: some keys, what they do, and the actions
/// they trigger on that screen.
package struct KeyBinding<Action: Hashable & Sendable>: Equatable, Sendable {
    /// The keys as people read them: "↑ ↓ / k j".
    package var keys: String
    /// What the keys do: "move the selection".
    package var description: String
    /// A short hint for the footer ("n new"), or nil to leave the row out.
    var hint: String?
    /// Each key and the action it triggers.
    var actions: [Key: Action]

    init(keys: String, description: String, hint: String?, actions: [Key: Action]) {
        self.keys = keys
        self.description = description
        self.hint = hint
        self.actions = actions
    }

    /// The action of `key` in the key table `bindings`, or nil when the
    /// key does nothing there.
    package static func action(for key: Key, in bindings: [KeyBinding]) -> Action? {
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
package protocol ScreenAction: Hashable, Sendable {
    static var moveUp: Self { get }
    static var moveDown: Self { get }
    static var pageUp: Self { get }
    static var pageDown: Self { get }
    static var jumpToFirst: Self { get }
    static var jumpToLast: Self { get }
    static var help: Self { get }
    /// Restore the terminal and stop until the shell continues the app.
    static var suspend: Self { get }
    /// Restore the terminal and exit.
    static var quit: Self { get }
}

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

    static var help: KeyBinding {
        KeyBinding(keys: "?", description: "show this help", hint: "? help", actions: [.character("?"): .help])
    }

    static var suspend: KeyBinding {
        KeyBinding(keys: "Ctrl-Z", description: "suspend (fg resumes)", hint: nil, actions: [.control("z"): .suspend])
    }

    /// The row of quit: q and Ctrl-C. Esc never quits: it closes what is on top.
    static func quit(description: String = "quit") -> KeyBinding {
        KeyBinding(
            keys: "q, Ctrl-C", description: description, hint: "q quit",
            actions: [.character("q"): .quit, .control("c"): .quit])
    }
}
