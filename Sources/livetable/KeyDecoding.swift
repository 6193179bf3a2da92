import CNcurses
import LiveTableCore

/// Turns the function key codes of `wget_wch` into `Key`s. Characters,
/// and the escape sequences that ncurses does not know, are decoded by
/// `Key.decoding(_:)`.
enum KeyDecoding {
    /// The key of a function key code (`KEY_UP`…), or nil for keys the app
    /// has no use for.
    static func key(keyCode code: Int32) -> Key? {
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        case KEY_PPAGE, KEY_A3: return .pageUp
        case KEY_NPAGE, KEY_C3: return .pageDown
        case KEY_HOME, KEY_A1, KEY_FIND: return .home
        case KEY_END, KEY_C1, KEY_SELECT: return .end
        case KEY_DC: return .delete
        case KEY_BACKSPACE: return .backspace
        case KEY_ENTER: return .enter
        default: return nil
        }
    }
}
