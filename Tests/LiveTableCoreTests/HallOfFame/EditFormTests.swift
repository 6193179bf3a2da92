import XCTest
@testable import LiveTableCore

/// The edit form's text fields, with characters that are several Unicode
/// scalars: a terminal sends each scalar as its own key, and the scalars
/// merge into one character in the field.
final class EditFormTests: XCTestCase {
    private func emptyForm() -> EditForm {
        var form = EditForm(player: Player(id: 1, name: "Arthur", score: 10))
        form.clearField()
        return form
    }

    /// Inserts each Unicode scalar of `text` as its own character, checking
    /// after each one that the cursor is within the text.
    private func typeScalars(_ text: String, into form: inout EditForm, line: UInt = #line) {
        for scalar in text.unicodeScalars {
            form.insert(Character(scalar))
            XCTAssertTrue((0...form.focusedText.count).contains(form.cursor), "cursor \(form.cursor) in \(form.focusedText)", line: line)
        }
    }

    func testCombiningMarkMergesWithThePreviousCharacter() {
        var form = emptyForm()
        typeScalars("Jose\u{301}", into: &form)
        XCTAssertEqual(form.name, "José")
        XCTAssertEqual(form.name.count, 4)
        XCTAssertEqual(form.cursor, 4)
        // The next insert and deletion go after, then before, "é".
        form.insert("!")
        XCTAssertEqual(form.name.unicodeScalars.map(\.value), [0x4A, 0x6F, 0x73, 0x65, 0x301, 0x21])
        XCTAssertEqual(form.cursor, 5)
        form.deleteBackward()
        form.deleteBackward()
        XCTAssertEqual(form.name, "Jos")
        XCTAssertEqual(form.cursor, 3)
    }

    func testCombiningMarkTypedInTheMiddleOfTheText() {
        var form = emptyForm()
        typeScalars("Rene", into: &form)
        form.moveCursor(by: -2)
        typeScalars("\u{301}", into: &form)
        XCTAssertEqual(form.name, "Réne")
        XCTAssertEqual(form.cursor, 2)
        form.deleteForward()
        XCTAssertEqual(form.name, "Rée")
        XCTAssertEqual(form.cursor, 2)
        form.moveCursorToEnd(true)
        form.insert("e")
        XCTAssertEqual(form.name, "Réee")
    }

    func testRegionalIndicatorsMergeIntoFlags() {
        var form = emptyForm()
        typeScalars("🇫🇷", into: &form)
        XCTAssertEqual(form.name.count, 1)
        XCTAssertEqual(form.cursor, 1)
        typeScalars("🇯🇵", into: &form)
        XCTAssertEqual(form.name, "🇫🇷🇯🇵")
        XCTAssertEqual(form.cursor, 2)
        form.moveCursor(by: -1)
        form.insert(" ")
        XCTAssertEqual(form.name, "🇫🇷 🇯🇵")
        XCTAssertEqual(form.cursor, 2)
        form.deleteBackward()
        form.deleteBackward()
        XCTAssertEqual(form.name, "🇯🇵")
        XCTAssertEqual(form.cursor, 0)
        // A lone indicator before a flag pairs with its first indicator:
        // the cursor stays within the text whatever pairs form.
        typeScalars("🇦", into: &form)
        XCTAssertEqual(form.name.unicodeScalars.count, 3)
        XCTAssertEqual(form.name.count, 2)
        XCTAssertEqual(form.cursor, 1)
        form.deleteForward()
        form.deleteBackward()
        XCTAssertEqual(form.name, "")
        XCTAssertEqual(form.cursor, 0)
    }

    func testEmojiZWJSequencesAreOneCharacter() {
        var form = emptyForm()
        typeScalars("👩\u{200D}💻", into: &form)
        XCTAssertEqual(form.name, "👩‍💻")
        XCTAssertEqual(form.cursor, 1)
        typeScalars("👨\u{200D}👩\u{200D}👧x", into: &form)
        XCTAssertEqual(form.name, "👩‍💻👨‍👩‍👧x")
        XCTAssertEqual(form.name.count, 3)
        XCTAssertEqual(form.cursor, 3)
        form.moveCursor(by: -1)
        form.deleteBackward()
        XCTAssertEqual(form.name, "👩‍💻x")
        XCTAssertEqual(form.cursor, 1)
    }

    func testCJKCharacters() {
        var form = emptyForm()
        typeScalars("山田太郎", into: &form)
        XCTAssertEqual(form.cursor, 4)
        form.moveCursor(by: -2)
        form.insert("花")
        XCTAssertEqual(form.name, "山田花太郎")
        XCTAssertEqual(form.cursor, 3)
        form.deleteForward()
        XCTAssertEqual(form.name, "山田花郎")
        form.deleteBackward()
        XCTAssertEqual(form.name, "山田郎")
        XCTAssertEqual(form.cursor, 2)
    }

    /// Seeded random edits with scalars that merge: the cursor always stays
    /// within the text, and inserting at the end appends.
    func testRandomEditsKeepTheCursorWithinTheText() {
        let scalars: [Unicode.Scalar] = [
            "a", "e", " ", "\u{301}", "\u{308}", "\u{200D}", "\u{FE0F}", "🇫", "🇷", "🇯", "🇵",
            "👩", "💻", "山", "ｱ", "\u{1F3FD}", "\r", "\n",
        ]
        var generator = SplitMix64(seed: 7)
        for _ in 0..<200 {
            var form = emptyForm()
            for _ in 0..<30 {
                let before = form.focusedText
                switch Int.random(in: 0..<10, using: &generator) {
                case 0..<5:
                    let scalar = scalars.randomElement(using: &generator)!
                    let atEnd = form.cursor == before.count
                    form.insert(Character(scalar))
                    if atEnd {
                        XCTAssertEqual(Array(form.focusedText.unicodeScalars), Array(before.unicodeScalars) + [scalar])
                        XCTAssertEqual(form.cursor, form.focusedText.count)
                    }
                case 5:
                    form.deleteBackward()
                case 6:
                    form.deleteForward()
                case 7:
                    form.switchField()
                default:
                    form.moveCursor(by: Int.random(in: -2...2, using: &generator))
                }
                XCTAssertTrue((0...form.focusedText.count).contains(form.cursor), "cursor \(form.cursor) in \(form.focusedText.debugDescription)")
            }
        }
    }

    func testTypedKeysSaveTheMergedName() {
        var state = makeLoadedState()
        _ = press(.character("e"), .control("u"), in: &state)
        for scalar in "Zoe\u{308} 🇫🇷".unicodeScalars {
            XCTAssertEqual(hallOfFameUpdate(&state, .key(.character(Character(scalar)))), [])
        }
        _ = press(.backspace, .left, .character("e"), in: &state)
        XCTAssertEqual(press(.enter, in: &state), [[.updatePlayer(Player(id: 1, name: "Zoëe", score: 1200))]])
    }

    func testNameStopsAtTheMaximumLength() {
        var form = EditForm(player: Player(id: 1, name: String(repeating: "a", count: 999), score: 3))
        form.insert("b")
        XCTAssertEqual(form.name.count, 1_000)
        XCTAssertNil(form.error)
        form.insert("c")
        XCTAssertEqual(form.name, String(repeating: "a", count: 999) + "b")
        XCTAssertEqual(form.error, "Name is limited to 1,000 characters")
        XCTAssertEqual(try form.validated().get().name.count, 1_000)

        form.switchField()
        form.clearField()
        for _ in 0..<40 { form.insert("9") }
        XCTAssertEqual(form.score.count, EditForm.maximumScoreLength)
        XCTAssertEqual(form.error, "Score is limited to 32 characters")
    }

    func testLongerNameFromTheDatabaseOpensButIsNotSaved() {
        let name = String(repeating: "x", count: 5_000)
        var form = EditForm(player: Player(id: 1, name: name, score: 3))
        XCTAssertEqual(form.name, name)
        XCTAssertEqual(form.validated(), .failure(EditForm.ValidationError("Name is longer than 1,000 characters")))
        form.deleteBackward()
        form.moveCursorToEnd(false)
        form.deleteForward()
        XCTAssertEqual(form.name.count, 4_998)
    }
}
