/// What the terminal library reads from standard input: a character, or a
/// function key that it has already recognised from the terminal's
/// description (terminfo).
package enum TerminalInput: Equatable, Sendable {
    /// A character, as a Unicode scalar value: a byte of an escape sequence
    /// that terminfo does not describe arrives this way too.
    case character(UInt32)
    /// A function key that the terminal library decoded, or nil for one the
    /// app has no use for.
    case functionKey(Key?)
}

extension Key {
    /// The keys of one read, for a caller that keeps no state between reads.
    package static func decoding(_ inputs: [TerminalInput]) -> [Key] {
        var decoder = KeyDecoder()
        return decoder.decode(inputs)
    }

    /// The key of a character read in raw mode, or nil for characters the
    /// app has no use for.
    init?(character value: UInt32) {
        switch value {
        case 0x0A, 0x0D:
            self = .enter
        case 0x09:
            self = .tab
        case escapeByte:
            self = .escape
        case 0x08, 0x7F:
            self = .backspace
        case 0x01...0x1A:
            // Ctrl-A is 1: .control("a").
            self = .control(Character(Unicode.Scalar(UInt8(0x60 + value))))
        case 0x00, 0x1C...0x1F:
            // Ctrl-@, Ctrl-\, Ctrl-], Ctrl-^, Ctrl-_.
            self = .control(Character(Unicode.Scalar(UInt8(0x40 + value))))
        case 0x80..<0xA0:
            return nil
        default:
            guard let scalar = Unicode.Scalar(value) else { return nil }
            self = .character(Character(scalar))
        }
    }

    /// Decodes what follows an Esc byte: returns the key, if the app knows
    /// it, and how many inputs the sequence takes.
    static func escapeSequence(_ rest: ArraySlice<TerminalInput>) -> (Key?, Int) {
        guard case let .character(introducer) = rest.first else {
            // Esc then a function key: Alt with that key.
            return (nil, 1)
        }
        switch introducer {
        case 0x5B: // "[": a control sequence.
            var parameters = ""
            var length = 1
            for input in rest.dropFirst() {
                length += 1
                guard case let .character(value) = input else {
                    // Cut short by a function key, which is a key of its
                    // own: the sequence ends before it, unknown.
                    return (nil, length - 1)
                }
                switch value {
                case 0x20...0x3F:
                    // Parameter and intermediate bytes.
                    parameters.unicodeScalars.append(Unicode.Scalar(UInt8(value)))
                case 0x4D where parameters.isEmpty:
                    // `ESC [ M` and three bytes: a mouse report in the
                    // encoding before SGR's, from a terminal without it.
                    return legacyMouseReport(rest.dropFirst(2), length: length)
                case 0x40...0x7E:
                    return (controlSequenceKey(parameters: parameters, final: value), length)
                default:
                    // Not part of a sequence (another Esc, Enter…): the
                    // sequence ends before it, unknown.
                    return (nil, length - 1)
                }
            }
            // Cut short by the end of the read: ignored.
            return (nil, length)
        case 0x4F: // "O": a single shift, as in keypad transmit mode.
            guard rest.count >= 2, case let .character(final) = rest[rest.startIndex + 1], final != escapeByte else {
                return (nil, 1)  // Alt+O.
            }
            return (cursorKey(final: final), 2)
        case escapeByte:
            // Esc Esc: Alt with a key that starts a sequence, or Esc typed
            // twice. Neither quits.
            let (_, length) = escapeSequence(rest.dropFirst())
            return (nil, 1 + (rest.count > 1 ? length : 0))
        case 0x7F, 0x08:
            return (.alt("\u{7F}"), 1)  // Alt-Backspace.
        default:
            guard case let .character(character)? = Key(character: introducer) else { return (nil, 1) }
            return (.alt(character), 1)
        }
    }

    /// The key of `ESC [ parameters final`, or nil.
    private static func controlSequenceKey(parameters: String, final: UInt32) -> Key? {
        if parameters.hasPrefix("<"), final == 0x4D || final == 0x6D { // "M" press, "m" release
            return MouseEvent(sgrParameters: parameters.dropFirst(), isRelease: final == 0x6D).map(Key.mouse)
        }
        if final == 0x7E { // "~": VT220 editing keys.
            switch parameters {
            case "1", "7": return .home
            case "4", "8": return .end
            case "3": return .delete
            case "5": return .pageUp
            case "6": return .pageDown
            default: return nil
            }
        }
        // Modifiers ("1;5" for Ctrl) make another key: only plain keys.
        guard parameters.isEmpty || parameters == "1" else { return nil }
        return cursorKey(final: final)
    }

    /// The mouse report of the three bytes after `ESC [ M` (each a value
    /// plus 32), and the length of the whole; cut short, nothing.
    private static func legacyMouseReport(_ bytes: ArraySlice<TerminalInput>, length: Int) -> (Key?, Int) {
        let values = bytes.prefix(3).compactMap { input -> Int? in
            guard case let .character(value) = input, value >= 32 else { return nil }
            return Int(value) - 32
        }
        guard values.count == 3 else { return (nil, length) }
        // Button 3 is a release of whichever button was down.
        let isRelease = values[0] & 0b1100_0011 == 3
        let event = MouseEvent(code: values[0], x: values[1] - 1, y: values[2] - 1, isRelease: isRelease)
        return (event.flatMap { $0.x >= 0 && $0.y >= 0 ? Key.mouse($0) : nil }, length + 3)
    }

    /// The key of the final byte of `ESC [ x` or `ESC O x`, or nil.
    private static func cursorKey(final: UInt32) -> Key? {
        switch final {
        case 0x41: return .up     // A
        case 0x42: return .down   // B
        case 0x43: return .right  // C
        case 0x44: return .left   // D
        case 0x48: return .home   // H
        case 0x46: return .end    // F
        default: return nil
        }
    }
}

private let escapeByte: UInt32 = 0x1B
