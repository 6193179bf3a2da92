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
    /// A paste keeps its line ends (as `\n`): SQL, where a `--` comment
    /// ends with its line. Otherwise they become spaces.
    var keepsLineEnds = false

    /// A field holding `text`, with the cursor at its end.
    init(text: String = "", maximumLength: Int) {
        self.text = text
        self.cursor = text.count
        self.maximumLength = maximumLength
    }

    var clampedCursor: Int {
        min(max(0, cursor), text.count)
    }

    /// Applies an editing key: a character, a paste, Backspace, Delete,
    /// ← → Home End, and the shell's keys: Ctrl-A/E (start, end), Ctrl-B/F
    /// (← →), Ctrl-D (Delete), Ctrl-K (cut to the end), Ctrl-U (empties
    /// the field, as zsh), Ctrl-W (cut the word before, up to a blank),
    /// Alt-B/F (word ← →), Alt-D (cut the word after), Alt-Backspace (cut
    /// the word before).
    @discardableResult
    mutating func edit(_ key: Key) -> EditResult {
        switch key {
        case let .character(character):
            return insert(character) ? .edited : .full
        case let .paste(text):
            return insert(text) ? .edited : .full
        case .backspace: deleteBackward()
        case .delete, .control("d"): deleteForward()
        case .left, .control("b"): moveCursor(by: -1)
        case .right, .control("f"): moveCursor(by: 1)
        case .home, .control("a"): moveCursorToEnd(false)
        case .end, .control("e"): moveCursorToEnd(true)
        case .control("u"): clear()
        case .control("k"): replaceCharacters(clampedCursor..<text.count, with: "", cursorAtStart: true)
        case .control("w"): cutBackward(to: wordStart(before: clampedCursor, stoppingAt: \.isWhitespace))
        case .alt("\u{7F}"): cutBackward(to: wordStart(before: clampedCursor, stoppingAt: Self.isWordSeparator))
        case .alt("b"): cursor = wordStart(before: clampedCursor, stoppingAt: Self.isWordSeparator)
        case .alt("f"): cursor = wordEnd(after: clampedCursor)
        case .alt("d"): replaceCharacters(clampedCursor..<wordEnd(after: clampedCursor), with: "", cursorAtStart: true)
        default: return .ignored
        }
        return .edited
    }

    /// Inserts pasted text at the cursor, its tabs as spaces, and its line
    /// ends as spaces unless `keepsLineEnds`; false when it had to be cut
    /// to `maximumLength`.
    mutating func insert(_ pasted: String) -> Bool {
        let flat = String(Self.unixLineEnds(pasted).map { character -> Character in
            if character == "\n" { return keepsLineEnds ? character : " " }
            return character.isNewline || character == "\t" ? " " : character
        }.filter { $0 == "\n" || !$0.isControlCharacter })
        let room = max(0, maximumLength - text.count)
        let cursor = clampedCursor
        replaceCharacters(cursor..<cursor, with: String(flat.prefix(room)))
        return flat.count <= room
    }

    /// CR LF and CR (as terminals paste line ends) as LF: SQLite ends a
    /// `--` comment at LF only.
    private static func unixLineEnds(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        var afterCR = false
        for scalar in text.unicodeScalars {
            if scalar == "\r" {
                scalars.append("\n")
            } else if scalar != "\n" || !afterCR {
                scalars.append(scalar)
            }
            afterCR = scalar == "\r"
        }
        return String(scalars)
    }

    private static func isWordSeparator(_ character: Character) -> Bool {
        !(character.isLetter || character.isNumber || character == "_")
    }

    /// The offset where the word before `offset` starts: back over the
    /// separators, then over the word.
    private func wordStart(before offset: Int, stoppingAt isSeparator: (Character) -> Bool) -> Int {
        let characters = Array(text)
        var index = offset
        while index > 0, isSeparator(characters[index - 1]) { index -= 1 }
        while index > 0, !isSeparator(characters[index - 1]) { index -= 1 }
        return index
    }

    /// The offset where the word after `offset` ends.
    private func wordEnd(after offset: Int) -> Int {
        let characters = Array(text)
        var index = offset
        while index < characters.count, Self.isWordSeparator(characters[index]) { index += 1 }
        while index < characters.count, !Self.isWordSeparator(characters[index]) { index += 1 }
        return index
    }

    private mutating func cutBackward(to start: Int) {
        replaceCharacters(start..<clampedCursor, with: "")
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
    private mutating func replaceCharacters(_ offsets: Range<Int>, with replacement: String, cursorAtStart: Bool = false) {
        guard !cursorAtStart else {
            let lower = text.index(text.startIndex, offsetBy: offsets.lowerBound)
            text.replaceSubrange(lower..<text.index(lower, offsetBy: offsets.count), with: replacement)
            cursor = offsets.lowerBound
            return
        }
        let lower = text.index(text.startIndex, offsetBy: offsets.lowerBound)
        let upper = text.index(lower, offsetBy: offsets.count)
        let end = text.unicodeScalars.distance(from: text.startIndex, to: lower)
            + replacement.unicodeScalars.count
        text.replaceSubrange(lower..<upper, with: replacement)
        let endIndex = text.unicodeScalars.index(text.startIndex, offsetBy: end)
        cursor = text.indices.prefix { $0 < endIndex }.count
    }
}

private extension Character {
    var isControlCharacter: Bool {
        unicodeScalars.allSatisfy { $0.properties.generalCategory == .control }
    }
}
