/// A key press, decoded by the runtime from the terminal.
package enum Key: Hashable, Sendable {
    /// A printable character, including space.
    case character(Character)
    /// A control key: `.control("c")` is Ctrl-C.
    case control(Character)
    case up, down, left, right
    case pageUp, pageDown, home, end
    case enter, escape, backspace, delete, tab
    /// Alt with a character (Esc then the character, as terminals send it):
    /// `.alt("b")` is Alt-B.
    case alt(Character)
    /// Text pasted in the terminal (bracketed paste), whole: its line ends
    /// are not Enter.
    case paste(String)
    /// A mouse report: only when the terminal was asked for them.
    case mouse(MouseEvent)
}
