import LiveTableCore
import XCTest

/// Mouse reports in SGR's encoding (mode 1006), `ESC [ < b ; x ; y M|m`,
/// and in the older one (`ESC [ M` and three bytes): decoded whole, never
/// typed as keys, even when a read cuts them.
final class MouseDecodingTests: XCTestCase {
    private func read(_ text: String) -> [TerminalInput] {
        text.unicodeScalars.map { .character($0.value) }
    }

    private func keys(_ text: String) -> [Key] {
        Key.decoding(read(text))
    }

    func testAPressAndAReleaseAreDecodedWithTheirCellFromZero() {
        XCTAssertEqual(keys("\u{1B}[<0;12;5M"), [.mouse(MouseEvent(.press, x: 11, y: 4))])
        XCTAssertEqual(keys("\u{1B}[<0;12;5m"), [.mouse(MouseEvent(.release, x: 11, y: 4))])
        XCTAssertEqual(keys("\u{1B}[<2;1;1M"), [.mouse(MouseEvent(.press, button: 2, x: 0, y: 0))])
        XCTAssertEqual(keys("\u{1B}[<32;3;4M"), [.mouse(MouseEvent(.drag, x: 2, y: 3))])
    }

    func testTheWheelIsDecoded() {
        XCTAssertEqual(keys("\u{1B}[<64;10;3M"), [.mouse(MouseEvent(.wheelUp, x: 9, y: 2))])
        XCTAssertEqual(keys("\u{1B}[<65;10;3M"), [.mouse(MouseEvent(.wheelDown, x: 9, y: 2))])
        // Sideways, a move with no button down: nothing the app asked for.
        XCTAssertEqual(keys("\u{1B}[<66;10;3M\u{1B}[<35;1;1M"), [])
    }

    func testModifiersAreDecoded() {
        var event = MouseEvent(.press, x: 0, y: 0)
        event.shift = true
        XCTAssertEqual(keys("\u{1B}[<4;1;1M"), [.mouse(event)])
        event.shift = false
        event.alt = true
        event.control = true
        XCTAssertEqual(keys("\u{1B}[<24;1;1M"), [.mouse(event)])
        var wheel = MouseEvent(.wheelDown, x: 0, y: 0)
        wheel.control = true
        XCTAssertEqual(keys("\u{1B}[<81;1;1M"), [.mouse(wheel)])
    }

    func testReportsBetweenKeysLeaveTheKeysAlone() {
        XCTAssertEqual(keys("j\u{1B}[<0;2;3Mk\u{1B}[<0;2;3m"), [
            .character("j"), .mouse(MouseEvent(.press, x: 1, y: 2)),
            .character("k"), .mouse(MouseEvent(.release, x: 1, y: 2)),
        ])
        // Malformed: no key, and no digit typed.
        XCTAssertEqual(keys("\u{1B}[<0;0;3M\u{1B}[<1;2M\u{1B}[<1;2;3;4Mq"), [.character("q")])
    }

    func testAReportCutByTheEndOfAReadComesWholeWithTheNext() {
        for cut in 2..<"\u{1B}[<65;12;5M".unicodeScalars.count {
            var decoder = KeyDecoder()
            let report = Array("\u{1B}[<65;12;5M".unicodeScalars)
            let first = "j" + String(String.UnicodeScalarView(report[..<cut]))
            let second = String(String.UnicodeScalarView(report[cut...])) + "k"
            XCTAssertEqual(decoder.decode(read(first)), [.character("j")], "cut at \(cut)")
            XCTAssertEqual(decoder.decode(read(second)), [.mouse(MouseEvent(.wheelDown, x: 11, y: 4)), .character("k")],
                           "cut at \(cut)")
        }
    }

    func testAnUnfinishedReportDoesNotSwallowTheKeysAfterIt() {
        var decoder = KeyDecoder()
        XCTAssertEqual(decoder.decode(read("\u{1B}[<0;1")), [])
        // Not the rest of a report: the start is dropped, the keys stay.
        XCTAssertEqual(decoder.decode(read("\rq")), [.enter, .character("q")])
        XCTAssertEqual(decoder.decode(read("q")), [.character("q")])
        // `ESC [` at the end of a read, then no report: ignored, as before.
        XCTAssertEqual(decoder.decode(read("\u{1B}[")), [])
        XCTAssertEqual(decoder.decode(read("j")), [.character("j")])
    }

    func testTheOlderEncodingIsDecodedToo() {
        // Button byte 32 (press of button 0), column 10 and row 3, each plus 32.
        XCTAssertEqual(keys("\u{1B}[M \u{2A}\u{23}j"), [.mouse(MouseEvent(.press, x: 9, y: 2)), .character("j")])
        XCTAssertEqual(keys("\u{1B}[M#\u{2A}\u{23}"), [.mouse(MouseEvent(.release, button: 3, x: 9, y: 2))])
        XCTAssertEqual(keys("\u{1B}[M`!!"), [.mouse(MouseEvent(.wheelUp, x: 0, y: 0))])
    }

    func testASecondPressOnTheSameCellSoonIsADoubleClick() {
        var counter = ClickCounter()
        let start = ContinuousClock.now
        let press = MouseEvent(.press, x: 3, y: 4)
        XCTAssertEqual(counter.count(press, at: start).clickCount, 1)
        XCTAssertEqual(counter.count(MouseEvent(.release, x: 3, y: 4), at: start + .milliseconds(50)).clickCount, 1)
        XCTAssertEqual(counter.count(press, at: start + .milliseconds(100)).clickCount, 2)
        // Too late, or elsewhere: a single click again.
        XCTAssertEqual(counter.count(press, at: start + .seconds(2)).clickCount, 1)
        XCTAssertEqual(counter.count(MouseEvent(.press, x: 4, y: 4), at: start + .milliseconds(2100)).clickCount, 1)
        XCTAssertEqual(counter.count(MouseEvent(.press, button: 2, x: 4, y: 4), at: start + .milliseconds(2200)).clickCount, 1)
    }
}
