/// A key press, decoded by the runtime from the terminal.
public enum Key: Hashable, Sendable {
    /// A printable character, including space.
    case character(Character)
    /// A control key: `.control("c")` is Ctrl-C.
    case control(Character)
    /// An arrow key.
    case up, down, left, right
    /// A paging or jumping key.
    case pageUp, pageDown, home, end
    /// An editing key.
    case enter, escape, backspace, delete, tab
}
