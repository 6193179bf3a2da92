/// The form that edits the name and score of a player.
///
/// Fields hold raw text: the score is only checked when the form is saved,
/// so that invalid input can be shown with its error instead of being
/// silently refused.
///
/// For example:
///
/// ```swift
/// var form = EditForm(player: Player(id: 1, name: "Arthur", score: 100))
/// form.switchField()
/// form.insert("0")
/// form.validated() // .success(Player(id: 1, name: "Arthur", score: 1000))
/// ```
public struct EditForm: Equatable, Sendable {
    /// A field of the form.
    public enum Field: Equatable, Sendable {
        /// The name field, focused when the form opens.
        case name
        /// The score field.
        case score
    }

    /// The player being edited, as it was when the form opened.
    public var player: Player
    /// The text of the name field.
    public var name: String
    /// The text of the score field.
    public var score: String
    /// The field that receives typed characters.
    public var focus: Field
    /// The number of characters before the cursor in the focused field.
    public var cursor: Int
    /// Why the last attempt to save failed, if it did.
    public var error: String?

    /// Opens the form on a player, with the cursor at the end of the name.
    ///
    /// For example:
    ///
    /// ```swift
    /// let form = EditForm(player: player)
    /// ```
    public init(player: Player) {
        self.player = player
        self.name = player.name
        self.score = String(player.score)
        self.focus = .name
        self.cursor = player.name.count
        self.error = nil
    }

    /// The text of the focused field.
    ///
    /// For example:
    ///
    /// ```swift
    /// EditForm(player: Player(id: 1, name: "Ann", score: 3)).focusedText // "Ann"
    /// ```
    public var focusedText: String {
        get { focus == .name ? name : score }
        set {
            if focus == .name { name = newValue } else { score = newValue }
            error = nil
        }
    }

    // MARK: - Editing

    /// Inserts a character at the cursor.
    ///
    /// For example:
    ///
    /// ```swift
    /// form.insert("x")
    /// ```
    public mutating func insert(_ character: Character) {
        var text = focusedText
        text.insert(character, at: text.index(text.startIndex, offsetBy: cursor))
        focusedText = text
        cursor += 1
    }

    /// Deletes the character before the cursor (Backspace).
    ///
    /// For example:
    ///
    /// ```swift
    /// form.deleteBackward()
    /// ```
    public mutating func deleteBackward() {
        guard cursor > 0 else { return }
        var text = focusedText
        text.remove(at: text.index(text.startIndex, offsetBy: cursor - 1))
        focusedText = text
        cursor -= 1
    }

    /// Deletes the character after the cursor (Delete).
    ///
    /// For example:
    ///
    /// ```swift
    /// form.deleteForward()
    /// ```
    public mutating func deleteForward() {
        var text = focusedText
        guard cursor < text.count else { return }
        text.remove(at: text.index(text.startIndex, offsetBy: cursor))
        focusedText = text
    }

    /// Empties the focused field (Ctrl-U).
    ///
    /// For example:
    ///
    /// ```swift
    /// form.clearField()
    /// ```
    public mutating func clearField() {
        focusedText = ""
        cursor = 0
    }

    /// Moves the cursor by `offset` characters, within the field.
    ///
    /// For example:
    ///
    /// ```swift
    /// form.moveCursor(by: -1)
    /// ```
    public mutating func moveCursor(by offset: Int) {
        cursor = min(max(0, cursor + offset), focusedText.count)
    }

    /// Moves the cursor to the start or the end of the field.
    ///
    /// For example:
    ///
    /// ```swift
    /// form.moveCursorToEnd(false) // to the start
    /// ```
    public mutating func moveCursorToEnd(_ end: Bool) {
        cursor = end ? focusedText.count : 0
    }

    /// Focuses `field` (the other field when nil), with the cursor at the
    /// end of its text.
    ///
    /// For example:
    ///
    /// ```swift
    /// form.switchField()        // name ⇄ score
    /// form.switchField(.score)
    /// ```
    public mutating func switchField(_ field: Field? = nil) {
        focus = field ?? (focus == .name ? .score : .name)
        cursor = focusedText.count
    }

    // MARK: - Validation

    /// The edited player, or the error to show.
    ///
    /// The name is trimmed and must not be empty; the score must be an
    /// integer, digits with an optional leading minus.
    ///
    /// For example:
    ///
    /// ```swift
    /// var form = EditForm(player: Player(id: 1, name: "Ann", score: 3))
    /// form.score = "12x"
    /// form.validated() // .failure(EditForm.ValidationError("Score must be an integer"))
    /// ```
    public func validated() -> Result<Player, ValidationError> {
        let name = name.trimmedOfSpaces()
        guard !name.isEmpty else {
            return .failure(ValidationError("Name must not be empty"))
        }
        let scoreText = score.trimmedOfSpaces()
        let digits = scoreText.hasPrefix("-") ? scoreText.dropFirst() : Substring(scoreText)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            return .failure(ValidationError("Score must be an integer"))
        }
        guard let score = Int(scoreText) else {
            return .failure(ValidationError("Score is out of range"))
        }
        var player = player
        player.name = name
        player.score = score
        return .success(player)
    }

    /// Why a form cannot be saved, in words for the user.
    public struct ValidationError: Error, Equatable, Sendable {
        /// The message shown in the form.
        public var message: String

        /// Creates an error with its message.
        ///
        /// For example:
        ///
        /// ```swift
        /// EditForm.ValidationError("Name must not be empty")
        /// ```
        public init(_ message: String) {
            self.message = message
        }
    }
}

extension String {
    /// The string without spaces at either end.
    fileprivate func trimmedOfSpaces() -> String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}
