extension String {
    /// The text with its control characters escaped (a newline becomes
    /// `\u{a}`), so that a message that quotes it stays on one line
    /// whatever it holds: a path, a terminal type.
    ///
    /// For example:
    ///
    /// ```swift
    /// "a\nb".escapingControlCharacters // "a\\u{a}b"
    /// ```
    public var escapingControlCharacters: String {
        unicodeScalars.map { scalar in
            scalar.properties.generalCategory == .control
                ? "\\u{\(String(scalar.value, radix: 16))}"
                : String(scalar)
        }.joined()
    }
}
