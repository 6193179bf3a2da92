/// A key press, decoded by the runtime from the terminal.
public enum Key: Hashable, Sendable {
    /// A printable character, including space.
    case character(Character)
    /// A control key: `.control("c")` is Ctrl-C.
    case control(Character)
    case up, down, left, right
    case pageUp, pageDown, home, end
    case enter, escape, backspace, delete, tab
}
