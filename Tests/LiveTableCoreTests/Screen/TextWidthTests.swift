#if canImport(Glibc)
import Glibc
#endif
import XCTest
@testable import LiveTableCore

final class TextWidthTests: XCTestCase {
    func testAsciiIsOneCellPerCharacter() {
        XCTAssertEqual(TextWidth.width(of: ""), 0)
        XCTAssertEqual(TextWidth.width(of: "Arthur 1200"), 11)
    }

    func testEastAsianWideAndFullwidthCharactersTakeTwoCells() {
        XCTAssertEqual(TextWidth.width(of: "中文"), 4)
        XCTAssertEqual(TextWidth.width(of: "한글"), 4)
        XCTAssertEqual(TextWidth.width(of: "ｶﾀｶﾅ"), 4)  // halfwidth katakana: 1 each
        XCTAssertEqual(TextWidth.width(of: "ＡＢ"), 4)  // fullwidth Latin
    }

    func testEmojiTakeTwoCells() {
        XCTAssertEqual(TextWidth.width(of: "😀"), 2)
        XCTAssertEqual(TextWidth.width(of: "🎮x"), 3)
    }

    func testCombiningMarksTakeNoCell() {
        let decomposed = "e\u{301}te\u{301}"  // "été", decomposed
        XCTAssertEqual(TextWidth.width(of: decomposed), 3)
        XCTAssertEqual(
            TextWidth.units(of: decomposed),
            [
                TextWidth.Unit(text: "e\u{301}", width: 1),
                TextWidth.Unit(text: "t", width: 1),
                TextWidth.Unit(text: "e\u{301}", width: 1),
            ])
    }

    func testLeadingCombiningMarkIsAttachedToASpace() {
        XCTAssertEqual(TextWidth.units(of: "\u{301}a"), [
            TextWidth.Unit(text: " \u{301}", width: 1),
            TextWidth.Unit(text: "a", width: 1),
        ])
    }

    func testZeroWidthJoinerSequencesAreSplitAsNcursesCountsThem() {
        // 👨‍👩‍👧: three emoji joined by U+200D. ncurses stores three wide
        // characters (each joiner combined with the emoji before it).
        let family = "👨\u{200D}👩\u{200D}👧"
        XCTAssertEqual(TextWidth.units(of: family).map(\.text), ["👨\u{200D}", "👩\u{200D}", "👧"])
        XCTAssertEqual(TextWidth.width(of: family), 6)
    }

    func testControlCharactersAreReplaced() {
        XCTAssertEqual(TextWidth.units(of: "a\nb\u{1B}\u{7F}\u{9B}\u{0}"), [
            TextWidth.Unit(text: "a", width: 1),
            TextWidth.Unit(text: "\u{FFFD}", width: 1),
            TextWidth.Unit(text: "b", width: 1),
            TextWidth.Unit(text: "\u{FFFD}", width: 1),
            TextWidth.Unit(text: "\u{FFFD}", width: 1),
            TextWidth.Unit(text: "\u{FFFD}", width: 1),
            TextWidth.Unit(text: "\u{FFFD}", width: 1),
        ])
    }

    func testWidthDoesNotDependOnTheProcessLocale() {
        let saved = String(cString: setlocale(LC_CTYPE, nil))
        defer { setlocale(LC_CTYPE, saved) }
        // In the "C" locale, the C library's wcwidth answers -1 for "中".
        setlocale(LC_CTYPE, "C")
        XCTAssertEqual(TextWidth.width(of: "中😀é"), 5)
        if setlocale(LC_CTYPE, "C.UTF-8") != nil {
            XCTAssertEqual(TextWidth.width(of: "中😀é"), 5)
        }
    }

    func testFallbackTableAgreesWithTheCLibrary() {
        let samples: [Unicode.Scalar] = [
            "a", "Z", "~", "é", "ß", "Ω", "Ж", "\u{301}", "\u{200D}", "\u{FE0F}", "中", "語", "한",
            "ア", "ｱ", "Ａ", "￥", "😀", "🎮", "🚀", "─", "│", "…", "—", "\u{3000}", "\u{20000}",
            "\u{1160}", "\u{7F}", "\u{A}",
        ]
        for scalar in samples {
            guard let libraryWidth = TextWidth.libraryWidth(of: scalar) else {
                return XCTFail("no C.UTF-8 locale: the fallback table is in use")
            }
            XCTAssertEqual(
                TextWidth.fallbackWidth(of: scalar), libraryWidth,
                "U+\(String(scalar.value, radix: 16, uppercase: true))")
        }
    }

    func testTruncatedEndsWithEllipsis() {
        XCTAssertEqual(TextWidth.truncated("Alexandria", toWidth: 6), "Alexa…")
        XCTAssertEqual(TextWidth.truncated("Alexandria", toWidth: 10), "Alexandria")
        XCTAssertEqual(TextWidth.truncated("Alexandria", toWidth: 1), "…")
        XCTAssertEqual(TextWidth.truncated("Max score", toWidth: 5), "Max…")
        XCTAssertEqual(TextWidth.truncated("Alexandria", toWidth: 0), "")
        XCTAssertEqual(TextWidth.truncated("Alexandria", toWidth: -3), "")
    }

    func testTruncatedNeverSplitsAWideCharacter() {
        // "中" + "…" is 3 cells; "中文" + "…" would be 5.
        XCTAssertEqual(TextWidth.truncated("中文字", toWidth: 4), "中…")
        XCTAssertEqual(TextWidth.truncated("中文字", toWidth: 5), "中文…")
        XCTAssertEqual(TextWidth.truncated("中文字", toWidth: 6), "中文字")
        XCTAssertEqual(TextWidth.truncated("a😀😀", toWidth: 4), "a😀…")
    }

    func testPaddedHasExactWidth() {
        XCTAssertEqual(TextWidth.padded("ab", toWidth: 4), "ab  ")
        XCTAssertEqual(TextWidth.padded("中文字", toWidth: 4), "中… ")
        XCTAssertEqual(TextWidth.padded("abc", toWidth: 0), "")
    }

    func testBidirectionalControlsAndInvisibleSpacesAreReplaced() {
        for scalar in ["\u{202E}", "\u{202A}", "\u{2066}", "\u{2069}", "\u{200E}", "\u{061C}", "\u{200B}", "\u{FEFF}", "\u{2028}"] {
            XCTAssertEqual(TextWidth.units(of: "a" + scalar), [
                TextWidth.Unit(text: "a", width: 1),
                TextWidth.Unit(text: "\u{FFFD}", width: 1),
            ], scalar.unicodeScalars.first!.debugDescription)
        }
        // Joiners stay: emoji sequences need them.
        XCTAssertEqual(TextWidth.units(of: "a\u{200D}").map(\.text), ["a\u{200D}"])
    }

    func testWidthAddsUpWhenTextStartsWithAZeroWidthCharacter() {
        // The name column is " " + name: the accent must not combine with
        // that space, or the row is one cell short.
        let name = TextWidth.padded("\u{301}abc", toWidth: 6)
        XCTAssertEqual(TextWidth.width(of: name), 6)
        XCTAssertEqual(TextWidth.width(of: " " + name), 7)
        XCTAssertEqual(TextWidth.width(of: " " + TextWidth.truncated("\u{301}abcdefgh", toWidth: 5)), 6)
    }

    func testTruncationMeasuresOnlyWhatItShows() {
        XCTAssertEqual(TextWidth.truncated("ab\u{301}", toWidth: 2), "ab\u{301}")
        XCTAssertEqual(TextWidth.truncated("abc\u{301}", toWidth: 3), "abc\u{301}")
        XCTAssertEqual(TextWidth.truncated("abcd\u{301}", toWidth: 3), "ab…")
        XCTAssertEqual(TextWidth.truncated("中文字", toWidth: 6), "中文字")
        XCTAssertEqual(TextWidth.truncated(String(repeating: "x", count: 100_000), toWidth: 4), "xxx…")
    }

    func testSplitCutsAfterTheLastSpaceThatFits() {
        XCTAssertTrue(TextWidth.split("Save failed: locked", atWidth: 14) == ("Save failed: ", "locked"))
        XCTAssertTrue(TextWidth.split("abcdef", atWidth: 4) == ("abcd", "ef"))
        XCTAssertTrue(TextWidth.split("ab", atWidth: 4) == ("ab", ""))
        XCTAssertTrue(TextWidth.split("中文字", atWidth: 5) == ("中文", "字"))
    }

    func testEscapingControlCharactersKeepsOneLine() {
        XCTAssertEqual("\u{202E}cba\u{200B}\u{FEFF}".escapingControlCharacters, "\\u{202e}cba\\u{200b}\\u{feff}")
        XCTAssertEqual("a\nb\u{1B}[2Jc".escapingControlCharacters, "a\\u{a}b\\u{1b}[2Jc")
        XCTAssertEqual("Zoë 中".escapingControlCharacters, "Zoë 中")
    }
}
