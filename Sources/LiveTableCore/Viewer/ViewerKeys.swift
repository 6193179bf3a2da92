// MARK: - Keys

/// What a key does in the viewer; `viewerKeyBindings` says which key.
package enum ViewerAction: ScreenAction {
    case moveUp
    case moveDown
    case pageUp
    case pageDown
    case jumpToFirst
    case jumpToLast
    case columnLeft
    case columnRight
    /// `c`: the column cursor to a column by part of its name.
    case findColumn
    case narrowColumn
    case widenColumn
    case hideColumn
    case showAllColumns
    case sortAscending
    case sortDescending
    case open
    case tables
    case toggleHighlight
    case follow
    case pause
    case search
    case searchNext
    case searchPrevious
    case filter
    /// `:`: a SQL query, as a new sheet on top.
    case query
    /// `#`: the current column's frequency table, as a new sheet on top.
    case frequency
    /// `I`: a row per column with its figures, as a new sheet on top.
    case describe
    /// `C`: the table's columns and keys, as a new sheet on top.
    case columnsSheet
    /// `o`: the row the current cell's foreign key points to, as a new sheet.
    case followReference
    /// `y`: the selected cell's whole value to the terminal's clipboard.
    case copyCell
    /// `Y`: the selected row, a header line then a tab-separated line.
    case copyRow
    /// `s`: the sheet to a file, in the format its name ends with.
    case save
    /// `!`: a SQL condition whose new matching rows ring the bell.
    case alert
    /// `L`: the changes seen while open, as a sheet.
    case changesLog
    /// `.`: a chart of the current column, as a new sheet on top.
    case chart
    case help
    case suspend
    /// Closes what is on top; on the picker, back to the table left. Never quits.
    case close
    case quit
}

/// In the order the help overlay and the README list it.
package let viewerKeyBindings: [KeyBinding<ViewerAction>] = KeyBinding.moving + [
    KeyBinding(
        keys: "← → / h l", description: "move the column cursor, scroll sideways", hint: nil,
        actions: [.left: .columnLeft, .right: .columnRight, .character("h"): .columnLeft, .character("l"): .columnRight]),
    KeyBinding(
        keys: "c", description: "go to a column by part of its name", hint: nil,
        actions: [.character("c"): .findColumn]),
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
        keys: "Enter", description: "open table, whole row, or group's rows", hint: "Enter row",
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
        keys: "/ n N", description: "search column (Tab: all) or picker; n N", hint: "/ search",
        actions: [.character("/"): .search, .character("n"): .searchNext, .character("N"): .searchPrevious]),
    KeyBinding(
        keys: "f :", description: "filter; : a SQL query as a new sheet", hint: nil,
        actions: [.character("f"): .filter, .character(":"): .query]),
    KeyBinding(
        keys: "# I", description: "a column's frequencies; I: describe", hint: nil,
        actions: [.character("#"): .frequency, .character("I"): .describe]),
    KeyBinding(
        keys: "C o", description: "columns sheet; o: follow a foreign key", hint: nil,
        actions: [.character("C"): .columnsSheet, .character("o"): .followReference]),
    KeyBinding(
        keys: ".", description: "a chart of the column (histogram, time)", hint: nil,
        actions: [.character("."): .chart]),
    KeyBinding(
        keys: "y Y s", description: "copy cell / row; s: save the sheet", hint: nil,
        actions: [.character("y"): .copyCell, .character("Y"): .copyRow, .character("s"): .save]),
    KeyBinding(
        keys: "! L", description: "alert on a condition; L: changes log", hint: nil,
        actions: [.character("!"): .alert, .character("L"): .changesLog]),
    KeyBinding(
        keys: "Esc", description: "close row, prompt, help, filter, picker", hint: nil,
        actions: [.escape: .close]),
    .help,
    .suspend,
    .quit(description: "quit (q: close row or sheet first)"),
]
