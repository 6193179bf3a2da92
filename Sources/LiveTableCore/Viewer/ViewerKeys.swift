// MARK: - Keys

/// What a key does in the viewer.
///
/// For example:
///
/// ```swift
/// KeyBinding.action(for: .character("t"), in: viewerKeyBindings) // .tables
/// ```
public enum ViewerAction: ScreenAction {
    /// Select the previous row (scroll the whole row up).
    case moveUp
    /// Select the next row (scroll the whole row down).
    case moveDown
    /// A page up.
    case pageUp
    /// A page down.
    case pageDown
    /// The first row of the ordering.
    case jumpToFirst
    /// The last row of the ordering.
    case jumpToLast
    /// The column cursor one column to the left.
    case columnLeft
    /// The column cursor one column to the right.
    case columnRight
    /// The current column a few cells narrower.
    case narrowColumn
    /// The current column a few cells wider.
    case widenColumn
    /// Hide the current column; the cursor moves to the next.
    case hideColumn
    /// Show every hidden column again.
    case showAllColumns
    /// Sort by the current column, ascending; again: the natural order.
    case sortAscending
    /// Sort by the current column, descending; again: the natural order.
    case sortDescending
    /// Open the selected table (picker), show the whole row (table).
    case open
    /// Back to the table picker.
    case tables
    /// Turn change highlighting off, or on again.
    case toggleHighlight
    /// Follow the end of the ordering as rows arrive (like `less +F`), or
    /// stop following.
    case follow
    /// Freeze the screen while the data keeps changing, or show the
    /// latest again.
    case pause
    /// Open the search prompt: text to find in the current column.
    case search
    /// The next row that matches the search.
    case searchNext
    /// The previous row that matches the search.
    case searchPrevious
    /// Open the filter prompt: a SQL expression the rows must satisfy.
    case filter
    /// Show the help overlay.
    case help
    /// Restore the terminal and stop until the shell continues the app.
    case suspend
    /// Close what is on top (the whole row, a prompt, the help, the filter);
    /// on the picker, back to the table left. Never quits.
    case close
    /// Quit (close the whole row or the help first).
    case quit
}

/// The viewer's key table, in the order the help overlay and the README
/// list it.
///
/// For example:
///
/// ```swift
/// viewerKeyBindings.map(\.keys) // ["↑ ↓ / k j", "PgUp PgDn, Home End / g G", "Enter", ...]
/// ```
public let viewerKeyBindings: [KeyBinding<ViewerAction>] = KeyBinding.moving + [
    KeyBinding(
        keys: "← → / h l", description: "move the column cursor, scroll sideways", hint: nil,
        actions: [.left: .columnLeft, .right: .columnRight, .character("h"): .columnLeft, .character("l"): .columnRight]),
    KeyBinding(
        keys: "< >", description: "narrow / widen the current column", hint: nil,
        actions: [.character("<"): .narrowColumn, .character(">"): .widenColumn]),
    KeyBinding(
        keys: "- =", description: "hide the current column / show all", hint: nil,
        actions: [.character("-"): .hideColumn, .character("="): .showAllColumns]),
    KeyBinding(
        keys: "[ ]", description: "sort ↑ / ↓ (again: the natural order)", hint: nil,
        actions: [.character("["): .sortAscending, .character("]"): .sortDescending]),
    KeyBinding(
        keys: "Enter", description: "open the table / show the whole row", hint: "Enter row",
        actions: [.enter: .open]),
    KeyBinding(
        keys: "t", description: "the table picker; the table is kept", hint: "t tables",
        actions: [.character("t"): .tables]),
    KeyBinding(
        keys: "H", description: "highlight changes on / off", hint: nil,
        actions: [.character("H"): .toggleHighlight]),
    KeyBinding(
        keys: "F", description: "follow new rows at the end (F: stop)", hint: "F follow",
        actions: [.character("F"): .follow]),
    KeyBinding(
        keys: "Space", description: "pause; Space again shows the latest", hint: nil,
        actions: [.character(" "): .pause]),
    KeyBinding(
        keys: "/ n N", description: "search column or picker; next, previous", hint: "/ search",
        actions: [.character("/"): .search, .character("n"): .searchNext, .character("N"): .searchPrevious]),
    KeyBinding(
        keys: "f", description: "filter by SQL (↑ ↓: earlier filters)", hint: nil,
        actions: [.character("f"): .filter]),
    KeyBinding(
        keys: "Esc", description: "close row, prompt, help, filter, picker", hint: nil,
        actions: [.escape: .close]),
    .help,
    .suspend,
    .quit(description: "quit (q: close the row first)"),
]
