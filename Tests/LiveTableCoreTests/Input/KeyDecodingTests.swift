import LiveTableCore
import XCTest

/// Escape sequences: a lone Esc is the Esc key (which quits), anything that
/// follows an Esc in the same read is a sequence, known or ignored.
final class KeyDecodingTests: XCTestCase {
    private func keys(_ text: String) -> [Key] {
        Key.decoding(text.unicodeScalars.map { .character($0.value) })
    }

    func testLoneEscapeIsTheEscapeKey() {
        XCTAssertEqual(keys("\u{1B}"), [.escape])
        XCTAssertEqual(Key.decoding([.character(0x1B), .functionKey(nil)]), [])
    }

    func testAltWithACharacterIsAnAltKey() {
        XCTAssertEqual(keys("\u{1B}b"), [.alt("b")])
        XCTAssertEqual(keys("\u{1B}q"), [.alt("q")])
        XCTAssertEqual(keys("\u{1B}ak"), [.alt("a"), .character("k")])
        XCTAssertEqual(keys("\u{1B}\u{7F}"), [.alt("\u{7F}")])
        // Alt with a control key is no key.
        XCTAssertEqual(keys("\u{1B}\u{01}x"), [.character("x")])
    }

    func testAPasteIsOneKeyAndItsLineEndsAreNotEnter() {
        XCTAssertEqual(keys("a\u{1B}[200~SELECT 1\nFROM t\u{1B}[201~b"),
                       [.character("a"), .paste("SELECT 1\nFROM t"), .character("b")])
        // An empty paste is no key.
        XCTAssertEqual(keys("\u{1B}[200~\u{1B}[201~"), [])
    }

    func testAPasteSpanningReadsComesWholeAtItsEnd() {
        var decoder = KeyDecoder()
        let read = { (text: String) in text.unicodeScalars.map { TerminalInput.character($0.value) } }
        XCTAssertEqual(decoder.decode(read("\u{1B}[200~SELECT\n")), [])
        XCTAssertEqual(decoder.decode(read("\u{1B}\r 1")), [])
        XCTAssertEqual(decoder.decode(read("\u{1B}[201~\r")), [.paste("SELECT\n\u{1B}\r 1"), .enter])
        // Without a decoder kept between reads, the second read's line end would be Enter.
        XCTAssertEqual(Key.decoding(read("\r 1")), [.enter, .character(" "), .character("1")])
    }

    func testHomeAndEndVariantsAreDecoded() {
        for home in ["\u{1B}[1~", "\u{1B}[7~", "\u{1B}[H", "\u{1B}OH"] {
            XCTAssertEqual(keys(home), [.home], home.debugDescription)
        }
        for end in ["\u{1B}[4~", "\u{1B}[8~", "\u{1B}[F", "\u{1B}OF"] {
            XCTAssertEqual(keys(end), [.end], end.debugDescription)
        }
    }

    func testArrowsAreDecodedInBothCursorKeyModes() {
        XCTAssertEqual(keys("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D"), [.up, .down, .right, .left])
        XCTAssertEqual(keys("\u{1B}OA\u{1B}OB\u{1B}OC\u{1B}OD"), [.up, .down, .right, .left])
    }

    func testEditingAndPagingKeysAreDecoded() {
        XCTAssertEqual(keys("\u{1B}[3~\u{1B}[5~\u{1B}[6~"), [.delete, .pageUp, .pageDown])
    }

    func testUnknownSequencesAreIgnoredWhole() {
        // F5, Ctrl+Up, Insert, a mouse-like sequence cut short, Alt+Esc.
        XCTAssertEqual(keys("\u{1B}[15~x"), [.character("x")])
        XCTAssertEqual(keys("\u{1B}[1;5Ay"), [.character("y")])
        XCTAssertEqual(keys("\u{1B}[2~"), [])
        XCTAssertEqual(keys("\u{1B}[<0;1"), [])
        XCTAssertEqual(keys("\u{1B}\u{1B}"), [])
        XCTAssertEqual(keys("\u{1B}\u{1B}[A"), [])
        XCTAssertEqual(keys("\u{1B}O"), [])
    }

    func testASequenceCutShortLeavesTheNextKeyAlone() {
        // Alt+[ then Down; Alt+O then Up; Alt+[ then Enter.
        XCTAssertEqual(keys("\u{1B}[\u{1B}[B"), [.down])
        XCTAssertEqual(keys("\u{1B}O\u{1B}OA"), [.up])
        XCTAssertEqual(keys("\u{1B}[\r"), [.enter])
        XCTAssertEqual(Key.decoding([.character(0x1B), .character(0x5B), .functionKey(.pageDown)]), [.pageDown])
    }

    func testFunctionKeysAndCharactersPassThrough() {
        XCTAssertEqual(
            Key.decoding([.functionKey(.up), .character(0x71), .character(0x03), .functionKey(nil), .character(0x0D)]),
            [.up, .character("q"), .control("c"), .enter])
    }
}
