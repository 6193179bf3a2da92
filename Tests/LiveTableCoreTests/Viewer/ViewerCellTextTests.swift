import Foundation
import GRDB
import XCTest
@testable import LiveTableCore

/// The text of untrusted cell values.
final class ViewerCellTextTests: XCTestCase {
    func testNumbersAlignRight() {
        XCTAssertEqual(CellText(42.databaseValue).fitted(toWidth: 6), "    42")
        XCTAssertEqual(CellText((-3).databaseValue).fitted(toWidth: 4), "  -3")
        XCTAssertEqual(CellText(2.5.databaseValue).fitted(toWidth: 6), "   2.5")
        XCTAssertEqual(CellText(1.0.databaseValue).text, "1.0")
        XCTAssertEqual(CellText(1e300.databaseValue).text, "1e+300")
        XCTAssertEqual(CellText(Double.infinity.databaseValue).text, "Inf")
        XCTAssertEqual(CellText(Int64.min.databaseValue).text, "-9223372036854775808")
        XCTAssertEqual(CellText(42.databaseValue).alignment, .trailing)
    }

    func testTextAlignsLeft() {
        XCTAssertEqual(CellText("pen".databaseValue).fitted(toWidth: 6), "pen   ")
        XCTAssertEqual(CellText("42".databaseValue).kind, .text, "text that looks like a number is text")
        XCTAssertEqual(CellText("42".databaseValue).fitted(toWidth: 4), "42  ")
    }

    func testNullIsDistinctFromTheTextNull() {
        let null = CellText(.null)
        let text = CellText("NULL".databaseValue)
        XCTAssertEqual(null.kind, .null)
        XCTAssertEqual(text.kind, .text)
        XCTAssertNotEqual(null, text)
        XCTAssertEqual(null.fitted(toWidth: 5), "NULL ")
    }

    func testBlobsShowTheirSize() {
        XCTAssertEqual(CellText(Data([0x1B, 0x5B, 0x32, 0x4A]).databaseValue).text, "<4 bytes>")
        XCTAssertEqual(CellText(Data([0]).databaseValue).text, "<1 byte>")
        XCTAssertEqual(CellText(Data().databaseValue).kind, .blob)
    }

    func testLongTextIsCutWithAnEllipsis() {
        XCTAssertEqual(CellText("Alexandria".databaseValue).fitted(toWidth: 6), "Alexa…")
        XCTAssertEqual(CellText(123456789.databaseValue).fitted(toWidth: 5), "1234…")
        XCTAssertEqual(CellText("abc".databaseValue).fitted(toWidth: 0), "")
        XCTAssertEqual(CellText("abc".databaseValue).fitted(toWidth: 1), "…")
    }

    func testControlCharactersAndEscapeSequencesAreEscaped() {
        let cell = CellText("Bob\u{1B}[2J\u{1B}]0;pwned\u{07}\nnext\tcol\r\u{7F}\u{9B}".databaseValue)
        XCTAssertEqual(cell.text, #"Bob\u{1b}[2J\u{1b}]0;pwned\u{7}\u{a}next\u{9}col\u{d}\u{7f}\u{9b}"#)
        XCTAssertFalse(cell.text.unicodeScalars.contains { $0.properties.generalCategory == .control })
    }

    func testBidirectionalControlsAreEscaped() {
        // U+202E RIGHT-TO-LEFT OVERRIDE would show "txt.exe" as "exe.txt".
        XCTAssertEqual(CellText("a\u{202E}txt.exe".databaseValue).text, #"a\u{202e}txt.exe"#)
        XCTAssertEqual(CellText("\u{2067}x\u{2069}".databaseValue).text, #"\u{2067}x\u{2069}"#)
    }

    func testBidirectionalAndZeroWidthCharactersAreEscapedOnceByTheOnePass() {
        // The bidirectional controls, and the zero-width characters that
        // hide in a name: the shared one-line escaping alone must escape
        // each, since a cell has no second pass of its own for them.
        let values: [UInt32] = [0x061C, 0x200B, 0x200E, 0x200F, 0xFEFF, 0x2028, 0x2029]
            + Array(0x202A...0x202E) + Array(0x2066...0x2069)
        for value in values {
            let scalar = Unicode.Scalar(value)!
            let expected = "a\\u{\(String(value, radix: 16))}b"
            XCTAssertEqual("a\(scalar)b".escapingControlCharacters, expected, "U+\(String(value, radix: 16))")
            XCTAssertEqual(CellText("a\(scalar)b".databaseValue).text, expected, "U+\(String(value, radix: 16))")
        }
    }

    func testWideCharactersKeepColumnsAligned() {
        let cells = ["中文字", "Zoë", "😀!", "e\u{301}t\u{e9}"].map { CellText($0.databaseValue).fitted(toWidth: 5) }
        XCTAssertEqual(cells, ["中文…", "Zoë  ", "😀!  ", "e\u{301}t\u{e9}  "])
        XCTAssertEqual(cells.map(TextWidth.width(of:)), [5, 5, 5, 5])
        // A wide character that does not fit is not split.
        XCTAssertEqual(CellText("a中".databaseValue).fitted(toWidth: 2), "a…")
        XCTAssertEqual(TextWidth.width(of: CellText("中中".databaseValue).fitted(toWidth: 3)), 3)
    }
}
