import XCTest
@testable import LiveTableCore

/// The line editor of the viewer's prompts and the Hall of Fame's edit form.
final class TextFieldTests: XCTestCase {
    func testEditingKeysTypeMoveAndDelete() {
        var field = TextField(text: "pice", maximumLength: 20)
        XCTAssertEqual(field.cursor, 4)
        XCTAssertEqual(field.edit(.left), .edited)
        XCTAssertEqual(field.edit(.left), .edited)
        XCTAssertEqual(field.edit(.left), .edited)
        XCTAssertEqual(field.edit(.character("r")), .edited)
        XCTAssertEqual(field.text, "price")
        XCTAssertEqual(field.cursor, 2)
        field.edit(.end)
        field.edit(.backspace)
        XCTAssertEqual(field.text, "pric")
        field.edit(.home)
        field.edit(.delete)
        XCTAssertEqual(field.text, "ric")
        field.edit(.left)  // at the start already
        XCTAssertEqual(field.cursor, 0)
        field.edit(.control("u"))
        XCTAssertEqual(field.text, "")
    }

    func testOtherKeysAreNotEdits() {
        var field = TextField(text: "a", maximumLength: 20)
        for key in [Key.enter, .escape, .up, .down, .tab, .pageUp, .control("c")] {
            XCTAssertEqual(field.edit(key), .ignored, "\(key)")
        }
        XCTAssertEqual(field.text, "a")
    }

    func testFullFieldRefusesCharacters() {
        var field = TextField(text: "ab", maximumLength: 2)
        XCTAssertEqual(field.edit(.character("c")), .full)
        XCTAssertEqual(field.text, "ab")
    }

    func testCombiningCharacterMergesAndTheCursorFollows() {
        var field = TextField(text: "cafe", maximumLength: 20)
        field.edit(.character("\u{301}"))
        XCTAssertEqual(field.text, "café")
        XCTAssertEqual(field.cursor, 4)
        field.edit(.backspace)
        XCTAssertEqual(field.text, "caf")
    }
}
