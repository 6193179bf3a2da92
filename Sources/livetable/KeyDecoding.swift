import CNcurses
import LiveTableCore

/// Turns what `wget_wch` returns into `Key`s.
enum KeyDecoding {
    /// The key of a character read in raw mode, or nil for characters the
    /// app has no use for.
    static func key(character value: UInt32) -> Key? {
        switch value {
        case 0x0A, 0x0D:
            return .enter
        case 0x09:
            return .tab
        case 0x1B:
            return .escape
        case 0x08, 0x7F:
            return .backspace
        case 0x01...0x1A:
            // Ctrl-A is 1: .control("a").
            return .control(Character(Unicode.Scalar(UInt8(0x60 + value))))
        case 0x00, 0x1C...0x1F:
            // Ctrl-@, Ctrl-\, Ctrl-], Ctrl-^, Ctrl-_.
            return .control(Character(Unicode.Scalar(UInt8(0x40 + value))))
        case 0x80..<0xA0:
            return nil
        default:
            guard let scalar = Unicode.Scalar(value) else { return nil }
            return .character(Character(scalar))
        }
    }

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
