/// One line of text being typed, and its cursor: the text editing of the
/// Hall of Fame's edit form (`EditForm`) and of the viewer's prompts
/// (search `/`, filter `f`).
struct TextField: Equatable, Sendable {
    enum EditResult: Equatable, Sendable {
        /// The text or the cursor changed (or stayed, at an end).
        case edited
        /// The character was refused: the field holds `maximumLength`.
        case full
        /// Not an editing key.
        case ignored
    }

    var text: String
    /// The number of characters before the cursor.
    var cursor: Int
    var maximumLength: Int

    /// A field holding `text`, with the cursor at its end.
    init(text: String = "", maximumLength: Int) {
        self.text = text
        self.cursor = text.count
        self.maximumLength = maximumLength
    }

    var clampedCursor: Int {
        min(max(0, cursor), text.count)
    }

    /// Applies an editing key: a character, Backspace, Delete, ← →,
    /// Home End, Ctrl-U (empties the field).
    @discardableResult
    mutating func edit(_ key: Key) -> EditResult {
        switch key {
        case let .character(character):
            return insert(character) ? .edited : .full
        case .backspace: deleteBackward()
        case .delete: deleteForward()
        case .left: moveCursor(by: -1)
        case .right: moveCursor(by: 1)
        case .home: moveCursorToEnd(false)
        case .end: moveCursorToEnd(true)
        case .control("u"): clear()
        default: return .ignored
        }
        return .edited
    }

    /// Inserts a character at the cursor; false, and nothing inserted,
    /// when the field is full.
    mutating func insert(_ character: Character) -> Bool {
        guard text.count < maximumLength else { return false }
        let cursor = clampedCursor
        replaceCharacters(cursor..<cursor, with: String(character))
        return true
    }

    /// Deletes the character before the cursor (Backspace).
    mutating func deleteBackward() {
        let cursor = clampedCursor
        guard cursor > 0 else { return }
        replaceCharacters((cursor - 1)..<cursor, with: "")
    }

    /// Deletes the character after the cursor (Delete).
    mutating func deleteForward() {
        let cursor = clampedCursor
        guard cursor < text.count else { return }
        replaceCharacters(cursor..<(cursor + 1), with: "")
    }

    /// Empties the field (Ctrl-U).
    mutating func clear() {
        text = ""
        cursor = 0
    }

    mutating func moveCursor(by offset: Int) {
        cursor = min(max(0, clampedCursor + offset), text.count)
    }

    mutating func moveCursorToEnd(_ end: Bool) {
        cursor = end ? text.count : 0
    }

    /// Replaces the characters at `offsets` with `replacement`, and puts the
    /// cursor after it.
    private mutating func replaceCharacters(_ offsets: Range<Int>, with replacement: String) {
        let lower = text.index(text.startIndex, offsetBy: offsets.lowerBound)
        let upper = text.index(lower, offsetBy: offsets.count)
        let end = text.unicodeScalars.distance(from: text.startIndex, to: lower)
            + replacement.unicodeScalars.count
        text.replaceSubrange(lower..<upper, with: replacement)
        let endIndex = text.unicodeScalars.index(text.startIndex, offsetBy: end)
        cursor = text.indices.prefix { $0 < endIndex }.count
    }
}
