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
struct EditForm: Equatable, Sendable {
    /// A field of the form.
    enum Field: Equatable, Sendable {
        /// The name field, focused when the form opens.
        case name
        /// The score field.
        case score
    }

    /// The player being edited, as it was when the form opened.
    var player: Player
    /// The text of the name field.
    var name: String
    /// The text of the score field.
    var score: String
    /// The field that receives typed characters.
    var focus: Field
    /// The number of characters before the cursor in the focused field.
    var cursor: Int
    /// Why the last attempt to save failed, if it did.
    var error: String?
    /// True from Enter until the save ends: the form stays open, says
    /// "saving…", and takes no edit, so that a failed save keeps the edit
    /// and shows why.
    var isSaving: Bool

    /// Opens the form on a player, with the cursor at the end of the name.
    ///
    /// For example:
    ///
    /// ```swift
    /// let form = EditForm(player: player)
    /// ```
    init(player: Player) {
        self.player = player
        self.name = player.name
        // A score that another process stored as a real, a text or a
        // blob shows as the list shows it; saving asks for an integer.
        self.score = player.score.description
        self.focus = .name
        self.cursor = player.name.count
        self.error = nil
        self.isSaving = false
    }

    /// The text of the focused field.
    ///
    /// For example:
    ///
    /// ```swift
    /// EditForm(player: Player(id: 1, name: "Ann", score: 3)).focusedText // "Ann"
    /// ```
    var focusedText: String {
        get { focus == .name ? name : score }
        set {
            if focus == .name { name = newValue } else { score = newValue }
            error = nil
        }
    }

    // MARK: - Limits

    /// The most characters a name can have in the form: 1,000.
    ///
    /// More than a row of any terminal shows, so that no real name is cut,
    /// and few enough that every key and every redraw of the form stays
    /// instant: each edit copies the field, so a paste of n characters
    /// costs n times the length of the field. A longer name written by
    /// another process opens as it is, and can be shortened, not saved.
    static let maximumNameLength = 1_000

    /// The most characters of the score field: an integer has at most 19
    /// digits and a sign, and a few spaces around them are trimmed.
    static let maximumScoreLength = 32

    /// The most characters of `field`.
    ///
    /// For example:
    ///
    /// ```swift
    /// EditForm.maximumLength(of: .name) // 1000
    /// ```
    static func maximumLength(of field: Field) -> Int {
        field == .name ? maximumNameLength : maximumScoreLength
    }

    // MARK: - Editing

    /// The focused field as a `TextField`, which does the editing: its
    /// text and cursor are written back after `edit`.
    private mutating func editFocusedField(_ edit: (inout TextField) -> Void) {
        var field = TextField(text: focusedText, maximumLength: Self.maximumLength(of: focus))
        field.cursor = cursor
        edit(&field)
        if field.text != focusedText {
            focusedText = field.text
        }
        cursor = field.cursor
    }

    /// Inserts a character at the cursor, unless the field is full: the
    /// form then says so.
    ///
    /// The character may merge with its neighbours into one (see
    /// `TextField.insert(_:)`).
    ///
    /// For example:
    ///
    /// ```swift
    /// form.insert("x")
    /// ```
    mutating func insert(_ character: Character) {
        var inserted = true
        editFocusedField { inserted = $0.insert(character) }
        if !inserted {
            let limit = Self.maximumLength(of: focus)
            error = "\(focus == .name ? "Name" : "Score") is limited to \(grouped(limit)) characters"
        }
    }

    /// Deletes the character before the cursor (Backspace).
    ///
    /// For example:
    ///
    /// ```swift
    /// form.deleteBackward()
    /// ```
    mutating func deleteBackward() {
        editFocusedField { $0.deleteBackward() }
    }

    /// Deletes the character after the cursor (Delete).
    ///
    /// For example:
    ///
    /// ```swift
    /// form.deleteForward()
    /// ```
    mutating func deleteForward() {
        editFocusedField { $0.deleteForward() }
    }

    /// Empties the focused field (Ctrl-U).
    ///
    /// For example:
    ///
    /// ```swift
    /// form.clearField()
    /// ```
    mutating func clearField() {
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
    mutating func moveCursor(by offset: Int) {
        editFocusedField { $0.moveCursor(by: offset) }
    }

    /// Moves the cursor to the start or the end of the field.
    ///
    /// For example:
    ///
    /// ```swift
    /// form.moveCursorToEnd(false) // to the start
    /// ```
    mutating func moveCursorToEnd(_ end: Bool) {
        editFocusedField { $0.moveCursorToEnd(end) }
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
    mutating func switchField(_ field: Field? = nil) {
        focus = field ?? (focus == .name ? .score : .name)
        cursor = focusedText.count
    }

    // MARK: - Validation

    /// The edited player, or the error to show.
    ///
    /// The name is trimmed, must not be empty, and must not be longer than
    /// ``maximumNameLength``; the score must be an integer, digits with an
    /// optional leading minus.
    ///
    /// For example:
    ///
    /// ```swift
    /// var form = EditForm(player: Player(id: 1, name: "Ann", score: 3))
    /// form.score = "12x"
    /// form.validated() // .failure(EditForm.ValidationError("Score must be an integer"))
    /// ```
    func validated() -> Result<Player, ValidationError> {
        let name = name.trimmedOfSpaces()
        guard !name.isEmpty else {
            return .failure(ValidationError("Name must not be empty"))
        }
        guard name.count <= Self.maximumNameLength else {
            return .failure(ValidationError("Name is longer than \(grouped(Self.maximumNameLength)) characters"))
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
        player.score = Score(score)
        return .success(player)
    }

    /// Why a form cannot be saved, in words for the user.
    struct ValidationError: Error, Equatable, Sendable {
        /// The message shown in the form.
        var message: String

        /// Creates an error with its message.
        ///
        /// For example:
        ///
        /// ```swift
        /// EditForm.ValidationError("Name must not be empty")
        /// ```
        init(_ message: String) {
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
