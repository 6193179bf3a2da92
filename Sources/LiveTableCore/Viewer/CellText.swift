import GRDB

/// The text of one cell, fitted to one line, and unable to move the cursor
/// or recolour the terminal.
///
/// A database may store any value in any column (SQLite does), so the text
/// depends on the value, never on the column: numbers right-aligned, NULL a
/// word of its own (`kind` lets a renderer dim it, to tell it from "NULL"),
/// a BLOB its size, text with its control characters escaped. Text is cut
/// before it is escaped and measured: a 10 MB value costs no more than a
/// short one.
package struct CellText: Equatable, Sendable {
    package enum Kind: Equatable, Sendable {
        case null
        case number
        case text
        case blob
    }

    package enum Alignment: Equatable, Sendable {
        case leading
        case trailing
    }

    package static let nullText = "NULL"

    /// More than any terminal is wide; the rest is never escaped nor measured.
    package static let maximumLength = 512

    package var kind: Kind
    package var text: String

    package init(_ value: DatabaseValue) {
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

    package var alignment: Alignment {
        kind == .number ? .trailing : .leading
    }

    package var width: Int {
        TextWidth.width(of: text)
    }

    /// Cut (ending with "…") and padded to exactly `width` cells.
    package func fitted(toWidth width: Int) -> String {
        guard width > 0 else { return "" }
        let cut = TextWidth.truncated(text, toWidth: width)
        let padding = String(repeating: " ", count: max(0, width - TextWidth.width(of: cut)))
        return alignment == .trailing ? padding + cut : cut + padding
    }

    // MARK: - Text

    /// The shortest exact form: "1.0", "0.1", "1e+20".
    static func text(of double: Double) -> String {
        if double.isInfinite {
            return double < 0 ? "-Inf" : "Inf"
        }
        if double.isNaN { return "NaN" } // SQLite stores NaN as NULL; kept for safety.
        return "\(double)"
    }

    /// Escapes what could act on the terminal: control characters, the
    /// bidirectional controls that reorder what follows them and zero-width
    /// characters; and each byte of invalid UTF-8 as `\x{ff}`, whose stand-ins
    /// (`StoredText`) no other pass escapes.
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
