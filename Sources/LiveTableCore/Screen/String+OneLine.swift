extension String {
    /// The text with its control characters escaped (a newline becomes
    /// `\u{a}`), so that a message that quotes it stays on one line
    /// whatever it holds: a path, a terminal type.
    package var escapingControlCharacters: String {
        unicodeScalars.map { scalar in
            scalar.isNeutralized
                ? "\\u{\(String(scalar.value, radix: 16))}"
                : String(scalar)
        }.joined()
    }
}

extension Unicode.Scalar {
    /// True for the characters that text from outside (names, paths,
    /// errors) must never send to the terminal as they are: the C0 and C1
    /// controls, which move the cursor or start escape sequences; the
    /// bidirectional controls (U+061C, U+200E, U+200F, U+202A…U+202E,
    /// U+2066…U+2069), which reorder what follows them on screen; the line
    /// and paragraph separators; and U+200B ZERO WIDTH SPACE and U+FEFF
    /// ZERO WIDTH NO-BREAK SPACE, which hide in a name.
    var isNeutralized: Bool {
        switch value {
        case 0x061C, 0x200B, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029, 0xFEFF:
            return true
        default:
            return properties.generalCategory == .control
        }
    }
}
