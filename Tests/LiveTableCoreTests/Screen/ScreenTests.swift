import XCTest
@testable import LiveTableCore

final class ScreenTests: XCTestCase {
    func testNewScreenIsBlank() {
        let screen = Screen(width: 3, height: 2)
        XCTAssertEqual(screen.cells.count, 6)
        XCTAssertTrue(screen.cells.allSatisfy { $0 == Cell() })
        XCTAssertEqual(screen.lines, ["   ", "   "])
        XCTAssertEqual(screen.text, "\n")
    }

    func testNegativeSizeIsEmpty() {
        let screen = Screen(width: -1, height: 5)
        XCTAssertEqual(screen.width, 0)
        XCTAssertEqual(screen.cells.count, 0)
    }

    func testPutWritesTextWithItsStyle() {
        var screen = Screen(width: 6, height: 2)
        let bold = CellStyle(color: .accent, bold: true)
        XCTAssertEqual(screen.put("abc", x: 1, y: 1, style: bold), 3)
        XCTAssertEqual(screen.lines, ["      ", " abc  "])
        XCTAssertEqual(screen.text, "\n abc")
        XCTAssertEqual(screen.style(x: 1, y: 1), bold)
        XCTAssertEqual(screen.style(x: 3, y: 1), bold)
        XCTAssertEqual(screen.style(x: 4, y: 1), .plain)
        XCTAssertEqual(screen.style(x: 0, y: 1), .plain)
        XCTAssertNil(screen.style(x: 6, y: 1))
        XCTAssertNil(screen.style(x: 0, y: -1))
    }

    func testPutClipsAtTheRightEdgeAndAtMaxWidth() {
        var screen = Screen(width: 5, height: 2)
        XCTAssertEqual(screen.put("abcdefgh", x: 2, y: 0), 3)
        XCTAssertEqual(screen.put("abcdefgh", x: 0, y: 1, maxWidth: 2), 2)
        XCTAssertEqual(screen.text, "  abc\nab")
    }

    func testPutOutsideTheScreenWritesNothing() {
        var screen = Screen(width: 3, height: 1)
        XCTAssertEqual(screen.put("abc", x: 0, y: 1), 0)
        XCTAssertEqual(screen.put("abc", x: 0, y: -1), 0)
        XCTAssertEqual(screen.put("abc", x: 3, y: 0), 0)
        XCTAssertEqual(screen.put("abc", x: 0, y: 0, maxWidth: 0), 0)
        XCTAssertEqual(screen.put("abc", x: 0, y: 0, maxWidth: -2), 0)
        XCTAssertEqual(screen.text, "")
        var empty = Screen(width: 0, height: 0)
        XCTAssertEqual(empty.put("abc", x: 0, y: 0), 0)
        XCTAssertEqual(empty.text, "")
    }

    func testPutAtNegativeColumnShowsTheVisiblePart() {
        var screen = Screen(width: 4, height: 2)
        screen.put("abcdef", x: -2, y: 0)
        // The wide character straddles column 0: a blank stands for its right half.
        screen.put("中b", x: -1, y: 1)
        XCTAssertEqual(screen.text, "cdef\n b")
    }

    func testWideCharacterOccupiesTwoCells() {
        var screen = Screen(width: 6, height: 1)
        XCTAssertEqual(screen.put("中a文", x: 0, y: 0), 5)
        XCTAssertEqual(screen[0, 0], Cell(text: "中"))
        XCTAssertEqual(screen[1, 0], Cell(text: "", isContinuation: true))
        XCTAssertEqual(screen[2, 0], Cell(text: "a"))
        XCTAssertEqual(screen[3, 0], Cell(text: "文"))
        XCTAssertEqual(screen[4, 0], Cell(text: "", isContinuation: true))
        XCTAssertEqual(screen.lines, ["中a文 "])
    }

    func testWideCharacterThatDoesNotFitLeavesABlank() {
        var screen = Screen(width: 4, height: 2)
        XCTAssertEqual(screen.put("ab中", x: 1, y: 0), 3)
        XCTAssertEqual(screen.put("a中", x: 0, y: 1, maxWidth: 2), 2)
        XCTAssertEqual(screen.lines, [" ab ", "a   "])
        XCTAssertFalse(screen.cells.contains { $0.isContinuation })
    }

    func testOverwritingHalfAWideCharacterBlanksTheOtherHalf() {
        var screen = Screen(width: 6, height: 1)
        screen.put("中文x", x: 0, y: 0)
        screen.put("a", x: 1, y: 0)  // right half of 中
        screen.put("b", x: 3, y: 0)  // left half of 文
        XCTAssertEqual(screen.lines, [" a bx "])
        XCTAssertFalse(screen.cells.contains { $0.isContinuation })

        screen.put("中文", x: 0, y: 0)
        screen.put("語", x: 1, y: 0)  // over both
        XCTAssertEqual(screen.lines, [" 語 x "])
        XCTAssertEqual(screen.cells.filter(\.isContinuation).count, 1)
    }

    func testFillClearsARectangle() {
        var screen = Screen(width: 4, height: 3)
        for y in 0..<3 { screen.put("abcd", x: 0, y: y) }
        let reverse = CellStyle(reverse: true)
        screen.fill(x: 1, y: 1, width: 10, height: 10, style: reverse)
        screen.fill(x: -5, y: -5, width: 6, height: 6)
        XCTAssertEqual(screen.text, " bcd\na\na")
        XCTAssertEqual(screen.style(x: 3, y: 2), reverse)
        XCTAssertEqual(screen.style(x: 0, y: 2), .plain)
    }

    func testDrawBoxWithTitle() {
        var screen = Screen(width: 14, height: 4)
        screen.drawBox(x: 1, y: 0, width: 12, height: 3, title: "Players")
        screen.drawBox(x: 0, y: 3, width: 14, height: 1)
        XCTAssertEqual(screen.text, """
             ┌ Players ─┐
             │          │
             └──────────┘

            """)
    }

    func testDrawBoxTruncatesItsTitle() {
        var screen = Screen(width: 10, height: 2)
        screen.drawBox(x: 0, y: 0, width: 10, height: 2, title: "Max score")
        XCTAssertEqual(screen.text, """
            ┌ Max… ──┐
            └────────┘
            """)
    }
}

final class HelpPageTests: XCTestCase {
    func testEveryRowFitsWithoutScrolling() {
        XCTAssertEqual(HelpPage(rows: 5, room: 5, scroll: 3), HelpPage(rows: 5, room: 5, scroll: 0))
        XCTAssertEqual(HelpPage(rows: 5, room: 5, scroll: 0).shown, 0..<5)
    }

    func testAPageKeepsALineForWhatIsAboveAndBelow() {
        let top = HelpPage(rows: 10, room: 4, scroll: 0)
        XCTAssertEqual([top.above, top.below], [0, 7])
        XCTAssertEqual(top.shown, 0..<3)
        let middle = HelpPage(rows: 10, room: 4, scroll: 2)
        XCTAssertEqual([middle.above, middle.below], [2, 6])
        XCTAssertEqual(middle.shown, 2..<4)
        let last = HelpPage.lastScroll(rows: 10, room: 4)
        let bottom = HelpPage(rows: 10, room: 4, scroll: last + 5)
        XCTAssertEqual([bottom.above, bottom.below], [7, 0])
        XCTAssertEqual(bottom.shown, 7..<10)
    }

    func testTooLittleRoomShowsTheFirstRows() {
        let page = HelpPage(rows: 10, room: 2, scroll: 4)
        XCTAssertEqual([page.above, page.below], [0, 9])
        XCTAssertEqual(page.shown, 0..<1)
    }
}
