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

    func testShellKeysMoveAndCut() {
        var field = TextField(text: "SELECT name FROM orders", maximumLength: 100)
        field.edit(.control("a"))
        XCTAssertEqual(field.cursor, 0)
        field.edit(.alt("f"))
        XCTAssertEqual(field.cursor, 6)
        field.edit(.alt("f"))
        XCTAssertEqual(field.cursor, 11)
        field.edit(.alt("b"))
        XCTAssertEqual(field.cursor, 7)
        field.edit(.control("k"))
        XCTAssertEqual(field.text, "SELECT ")
        XCTAssertEqual(field.cursor, 7)
        field.edit(.control("e"))
        field.edit(.paste("id, total\nFROM\torders"))
        XCTAssertEqual(field.text, "SELECT id, total FROM orders")
        field.edit(.control("w"))
        XCTAssertEqual(field.text, "SELECT id, total FROM ")
        field.edit(.alt("\u{7F}"))
        XCTAssertEqual(field.text, "SELECT id, total ")
        field.edit(.control("w"))
        XCTAssertEqual(field.text, "SELECT id, ")
        field.edit(.control("a"))
        field.edit(.alt("d"))
        XCTAssertEqual(field.text, " id, ")
        XCTAssertEqual(field.cursor, 0)
        field.edit(.control("f"))
        field.edit(.control("d"))
        XCTAssertEqual(field.text, " d, ")
        field.edit(.control("b"))
        XCTAssertEqual(field.cursor, 0)
    }

    func testAPasteKeepsItsLineEndsAsLFWhereTheFieldKeepsThem() {
        var field = TextField(text: "", maximumLength: 100)
        field.keepsLineEnds = true
        // CR (as terminals paste), CR LF, LF: each one line end; a tab a space.
        field.edit(.paste("SELECT a -- why\rFROM t\r\nWHERE\tb\n\u{1B}"))
        XCTAssertEqual(field.text, "SELECT a -- why\nFROM t\nWHERE b\n")
        XCTAssertEqual(field.cursor, 31)
        // A line end is a blank to the word keys.
        field.edit(.backspace)
        field.edit(.control("w"))
        field.edit(.control("w"))
        XCTAssertEqual(field.text, "SELECT a -- why\nFROM t\n")
    }

    func testAPasteLongerThanTheFieldIsCutAndSaysSo() {
        var field = TextField(text: "ab", maximumLength: 5)
        XCTAssertEqual(field.edit(.paste("123456")), .full)
        XCTAssertEqual(field.text, "ab123")
        XCTAssertEqual(field.cursor, 5)
    }
}
