/// The form that edits the name and score of a player.
/// Fields hold raw text: the score is checked on save, so that bad input shows with its error.
struct EditForm: Equatable, Sendable {
    enum Field: Equatable, Sendable {
        case name
        case score
    }

    var player: Player
    var name: String
    var score: String
    var focus: Field
    var cursor: Int
    var error: String?
    /// True from Enter until the save ends: the form stays open, says
    /// "saving…", and takes no edit, so that a failed save keeps the edit
    /// and shows why.
    var isSaving: Bool

    /// Opens the form on a player, with the cursor at the end of the name.
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

    var focusedText: String {
        get { focus == .name ? name : score }
        set {
            if focus == .name { name = newValue } else { score = newValue }
            error = nil
        }
    }

    // MARK: - Limits

    /// The most characters of a name: more than a terminal row shows, few enough that each edit
    /// (which copies the field) stays instant. A longer name from elsewhere opens, and can only shrink.
    static let maximumNameLength = 1_000

    /// The most characters of the score field: an integer has at most 19
    /// digits and a sign, and a few spaces around them are trimmed.
    static let maximumScoreLength = 32

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
    mutating func insert(_ character: Character) {
        var inserted = true
        editFocusedField { inserted = $0.insert(character) }
        if !inserted {
            let limit = Self.maximumLength(of: focus)
            error = "\(focus == .name ? "Name" : "Score") is limited to \(grouped(limit)) characters"
        }
    }

    mutating func deleteBackward() {
        editFocusedField { $0.deleteBackward() }
    }

    mutating func deleteForward() {
        editFocusedField { $0.deleteForward() }
    }

    mutating func clearField() {
        focusedText = ""
        cursor = 0
    }

    mutating func moveCursor(by offset: Int) {
        editFocusedField { $0.moveCursor(by: offset) }
    }

    mutating func moveCursorToEnd(_ end: Bool) {
        editFocusedField { $0.moveCursorToEnd(end) }
    }

    /// Focuses `field` (the other field when nil), with the cursor at the
    /// end of its text.
    mutating func switchField(_ field: Field? = nil) {
        focus = field ?? (focus == .name ? .score : .name)
        cursor = focusedText.count
    }

    // MARK: - Validation

    /// The edited player, or the error to show.
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
        var message: String

        init(_ message: String) {
            self.message = message
        }
    }
}

extension String {
    fileprivate func trimmedOfSpaces() -> String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}
