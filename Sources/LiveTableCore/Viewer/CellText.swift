import GRDB

/// The text of one cell of a table: any value that SQLite stores, written
/// so that it fits one line of the screen and can not move the cursor or
/// recolour the terminal.
///
/// SQLite stores any value in any column, whatever its declared type, so
/// the text depends on the value, never on the column: numbers are
/// right-aligned, NULL is a word of its own (`kind` lets a renderer dim
/// it, to tell it from the text "NULL"), a BLOB shows its size, and text
/// has its control characters escaped (`ESC [2J` becomes `\u{1b}[2J`).
///
/// Text longer than any screen is cut before it is escaped and measured,
/// ending with "…" (`maximumLength`): a value of 10 MB costs a refresh
/// no more than a short one.
///
/// For example:
///
/// ```swift
/// CellText(42.databaseValue).fitted(toWidth: 5)          // "   42"
/// CellText("a\nb".databaseValue).text                    // "a\\u{a}b"
/// CellText(Data([1, 2, 3]).databaseValue).text           // "<3 bytes>"
/// CellText("Alexandria".databaseValue).fitted(toWidth: 6) // "Alexa…"
/// ```
public struct CellText: Equatable, Sendable {
    /// What the value is.
    public enum Kind: Equatable, Sendable {
        /// SQL NULL.
        case null
        /// An integer or a real.
        case number
        /// Text.
        case text
        /// A BLOB, shown as its size.
        case blob
    }

    /// Where the text sits in a wider cell.
    public enum Alignment: Equatable, Sendable {
        /// Text, NULL, BLOBs.
        case leading
        /// Numbers, so that digits line up.
        case trailing
    }

    /// The words for NULL.
    public static let nullText = "NULL"

    /// The most characters (Unicode scalars) of a text that a cell keeps:
    /// more than any terminal is wide. The rest is never escaped nor
    /// measured; the text ends with "…".
    public static let maximumLength = 512

    /// What the value is.
    public var kind: Kind
    /// One line of text, safe to print.
    public var text: String

    /// The text of `value`.
    public init(_ value: DatabaseValue) {
        switch value.storage {
        case .null:
            kind = .null
            text = Self.nullText
        case let .int64(integer):
            kind = .number
            text = String(integer)
        case let .double(double):
            kind = .number
            text = Self.text(of: double)
        case let .string(string):
            kind = .text
            text = Self.escaped(string.cut(toLength: Self.maximumLength))
        case let .blob(data):
            kind = .blob
            text = data.count == 1 ? "<1 byte>" : "<\(data.count) bytes>"
        }
    }

    /// Numbers align on the right, everything else on the left.
    public var alignment: Alignment {
        kind == .number ? .trailing : .leading
    }

    /// The number of terminal cells the text occupies.
    public var width: Int {
        TextWidth.width(of: text)
    }

    /// The text cut to `width` cells (ending with "…" when cut) and padded
    /// with spaces to exactly `width` cells, on the side its alignment
    /// says.
    ///
    /// For example:
    ///
    /// ```swift
    /// CellText(3.5.databaseValue).fitted(toWidth: 6) // "   3.5"
    /// CellText("中文字".databaseValue).fitted(toWidth: 5) // "中文…"
    /// ```
    public func fitted(toWidth width: Int) -> String {
        guard width > 0 else { return "" }
        let cut = TextWidth.truncated(text, toWidth: width)
        let padding = String(repeating: " ", count: max(0, width - TextWidth.width(of: cut)))
        return alignment == .trailing ? padding + cut : cut + padding
    }

    // MARK: - Text

    /// A real in its shortest exact form: "1.0", "0.1", "1e+20".
    static func text(of double: Double) -> String {
        if double.isInfinite {
            return double < 0 ? "-Inf" : "Inf"
        }
        if double.isNaN { return "NaN" } // SQLite stores NaN as NULL; kept for safety.
        return "\(double)"
    }

    /// `text` with the characters that could act on the terminal escaped:
    /// control characters (C0, DEL, C1: ESC, newline, tab, NUL…), the
    /// bidirectional controls that reorder what follows them and the
    /// zero-width characters that hide in a name, all by
    /// `escapingControlCharacters`; and each byte of invalid UTF-8 as
    /// `\x{ff}` (see `StoredText`), whose stand-ins are private-use
    /// characters that no other pass escapes.
    static func escaped(_ text: String) -> String {
        let escaped = text.escapingControlCharacters
        guard StoredText.holdsInvalidBytes(escaped) else { return escaped }
        return escaped.unicodeScalars.map { scalar in
            if let byte = StoredText.invalidByte(scalar) {
                return "\\x{\(String(byte, radix: 16))}"
            }
            return String(scalar)
        }.joined()
    }
}
