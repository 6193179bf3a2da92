/// What a key does on the main screen.
package enum HallOfFameAction: Hashable, Sendable {
    case moveUp
    case moveDown
    case pageUp
    case pageDown
    case jumpToFirst
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
    case help
    case suspend
    case quit
}

extension HallOfFameAction: ScreenAction { }

extension KeyBinding where Action == HallOfFameAction {
    package static func action(for key: Key) -> HallOfFameAction? {
        action(for: key, in: keyBindings)
    }
}

/// The keys of the main screen, in the order the help overlay lists them.
package let keyBindings: [KeyBinding<HallOfFameAction>] = KeyBinding.moving + [
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
        keys: "r", description: "refresh: new scores, may add/delete a player", hint: "r refresh",
        actions: [.character("r"): .refresh]),
    KeyBinding(
        keys: "s", description: "stress test: 50 refreshes at once", hint: "s stress",
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
