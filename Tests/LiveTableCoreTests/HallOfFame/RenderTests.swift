import XCTest
@testable import LiveTableCore

final class RenderTests: XCTestCase {
    // MARK: - Main screen

    func testMainScreen() {
        var state = makeLoadedState(width: 80, height: 24)
        _ = press(.down, in: &state)
        XCTAssertEqual(hallOfFameRender(state).text, """
             Hall of Fame — by score                                             row 2 of 8
            ┌──────────────────────────────────────────────────────────┐┌ Players ─────────┐
            │ Arthur                                              1200 ││        8         │
            │ Barbara                                             1100 │└──────────────────┘
            │ Craig                                                950 │┌ Max score ───────┐
            │ David                                                800 ││       1200       │
            │ Elena                                                640 │└──────────────────┘
            │ Frida                                                500 │
            │ Gilbert                                              230 │
            │ Henriette                                             15 │
            │                                                          │
            │                                                          │
            │                                                          │
            │                                                          │
            │                                                          │
            │                                                          │
            │                                                          │
            │                                                          │
            │                                                          │
            │                                                          │
            │                                                          │
            └──────────────────────────────────────────────────────────┘
             n new  e edit  d del  D del all  r refresh  s stress  o order  ? help  q quit

            """)
    }

    func testSelectedRowAndTitleAreHighlighted() {
        var state = makeLoadedState(width: 80, height: 24)
        _ = press(.down, in: &state)
        let screen = hallOfFameRender(state)
        // The whole inside of Barbara's row (y 3), and nothing else of the list.
        for x in 1...58 {
            XCTAssertEqual(screen.style(x: x, y: 3), CellStyle(color: .selection, bold: true, reverse: true), "x \(x)")
            XCTAssertEqual(screen.style(x: x, y: 2), .plain, "x \(x)")
            XCTAssertEqual(screen.style(x: x, y: 4), .plain, "x \(x)")
        }
        XCTAssertEqual(screen.style(x: 0, y: 3), CellStyle(color: .border))
        XCTAssertEqual(screen.style(x: 59, y: 3), CellStyle(color: .border))
        for x in 0..<80 {
            XCTAssertEqual(screen.style(x: x, y: 0)?.reverse, true, "x \(x)")
        }
        // Footer: keys stand out from their descriptions.
        XCTAssertEqual(screen.style(x: 1, y: 22), CellStyle(color: .accent, bold: true))  // "n"
        XCTAssertEqual(screen.style(x: 3, y: 22), CellStyle(color: .dim))  // "new"
        XCTAssertNil(screen.cursor)
    }

    func testMonochromeKeepsTheSelectionReversed() {
        var state = makeLoadedState(width: 80, height: 24)
        state.useColor = false
        _ = press(.down, in: &state)
        let screen = hallOfFameRender(state)
        XCTAssertTrue(screen.cells.allSatisfy { $0.style.color == .normal })
        XCTAssertEqual(screen.style(x: 10, y: 3), CellStyle(bold: true, reverse: true))
        XCTAssertEqual(screen.style(x: 10, y: 2), .plain)
        XCTAssertEqual(screen.style(x: 10, y: 0), CellStyle(bold: true, reverse: true))
        // Same text as in colour.
        state.useColor = true
        XCTAssertEqual(hallOfFameRender(state).text, screen.text)
    }

    func testNarrowLayoutPutsThePanesSideBySideAboveTheList() {
        var state = makeLoadedState(makePlayers(12), width: 40, height: 12)
        _ = press(.down, .down, .down, .down, .down, in: &state)
        XCTAssertEqual(hallOfFameRender(state).text, """
             Hall of Fame — by score    row 6 of 12
            ┌ Players ─────────┐┌ Max score ───────┐
            │        12        ││       1000       │
            └──────────────────┘└──────────────────┘
            ┌──────────────────────────────────────┐
            │ P03                              980 │
            │ P04                              970 │
            │ P05                              960 │
            │ P06                              950 │
            └──────────────────────────────────────┘
             n new  e edit  d del  ? help  q quit

            """)
        XCTAssertEqual(hallOfFameRender(state).style(x: 2, y: 8)?.reverse, true)  // P06, on the last row
    }

    func testEmptyTableShowsNoPlayer() {
        XCTAssertEqual(hallOfFameRender(makeLoadedState([], width: 40, height: 12)).text, """
             Hall of Fame — by score
            ┌ Players ─────────┐┌ Max score ───────┐
            │        0         ││        -         │
            └──────────────────┘└──────────────────┘
            ┌──────────────────────────────────────┐
            │                                      │
            │              No Player               │
            │                                      │
            │                                      │
            └──────────────────────────────────────┘
             n new  e edit  d del  ? help  q quit

            """)
    }

    func testLoadingBeforeTheFirstValue() {
        var state = HallOfFameState.initial(width: 40, height: 12)
        _ = hallOfFameUpdate(&state, .resize(width: 40, height: 12))
        XCTAssertEqual(hallOfFameRender(state).text, """
             Hall of Fame — by score
            ┌ Players ─────────┐┌ Max score ───────┐
            │        …         ││        …         │
            └──────────────────┘└──────────────────┘
            ┌──────────────────────────────────────┐
            │                                      │
            │               Loading…               │
            │                                      │
            │                                      │
            └──────────────────────────────────────┘
             n new  e edit  d del  ? help  q quit

            """)
    }

    func testOrderingByName() {
        var state = makeLoadedState(width: 40, height: 12)
        _ = press(.character("o"), in: &state)
        _ = hallOfFameUpdate(&state, .hallOfFame(makeHallOfFame(
            samplePlayers.sorted { $0.name > $1.name }, request: state.observedRequest!), now: .now))
        XCTAssertEqual(hallOfFameRender(state).lines[0], " Hall of Fame — by name      row 8 of 8 ")
    }

    // MARK: - Position indicator

    func testApproximatePositionSaysSo() {
        let state = makeLoadedState(makePlayers(3), width: 60, height: 10) { hallOfFame in
            hallOfFame.playerCount = 10_000
            hallOfFame.firstRank = 1233
            hallOfFame.rankIsExact = false
            hallOfFame.reachesStart = false
            hallOfFame.reachesEnd = false
        }
        XCTAssertEqual(hallOfFameRender(state).text, """
             Hall of Fame — by score               row ~1,234 of 10,000
            ┌──────────────────────────────────────┐┌ Players ─────────┐
            │ P01                             1000 ││      10,000      │
            │ P02                              990 │└──────────────────┘
            │ P03                              980 │┌ Max score ───────┐
            │                                      ││       1000       │
            │                                      │└──────────────────┘
            └──────────────────────────────────────┘
             n new  e edit  d del  D del all  r refresh  ? help  q quit

            """)
    }

    func testExactPositionGroupsThousands() {
        var state = makeLoadedState(makePlayers(3), width: 60, height: 10) { hallOfFame in
            hallOfFame.playerCount = 10_000_000
            hallOfFame.firstRank = 1_234_566
            hallOfFame.reachesStart = false
            hallOfFame.reachesEnd = false
        }
        _ = press(.down, in: &state)
        let lines = hallOfFameRender(state).lines
        XCTAssertEqual(lines[0], " Hall of Fame — by score        row 1,234,568 of 10,000,000 ")
        XCTAssertEqual(lines[2], "│ P01                             1000 ││    10,000,000    │")
    }

    func testPositionIsShortenedOnNarrowScreens() {
        XCTAssertEqual(hallOfFameRender(makeLoadedState(width: 30, height: 9)).text, """
             Hall of Fame — by score  1/8
            ┌ Players ────┐┌ Max score ──┐
            │      8      ││    1200     │
            └─────────────┘└─────────────┘
            ┌────────────────────────────┐
            │ Arthur                1200 │
            └────────────────────────────┘
             n new  e edit  ? help  q quit

            """)
    }

    // MARK: - Wide characters

    func testWideCharacterNamesKeepTheScoresAligned() {
        let players = [
            makePlayer(1, "王小明", 900),
            makePlayer(2, "😀 Smiley", 850),
            makePlayer(3, "Zoe\u{308}", 800),
            makePlayer(4, "東京都渋谷区神宮前一丁目", 700),
            makePlayer(5, "🎮🎮🎮🎮🎮🎮🎮🎮🎮🎮🎮🎮", -5),
        ]
        let screen = hallOfFameRender(makeLoadedState(players, width: 30, height: 13))
        XCTAssertEqual(screen.text, """
             Hall of Fame — by score  1/5
            ┌ Players ────┐┌ Max score ──┐
            │      5      ││     900     │
            └─────────────┘└─────────────┘
            ┌────────────────────────────┐
            │ 王小明                 900 │
            │ 😀 Smiley              850 │
            │ Zoë                    800 │
            │ 東京都渋谷区神宮前一…  700 │
            │ 🎮🎮🎮🎮🎮🎮🎮🎮🎮🎮…   -5 │
            └────────────────────────────┘
             n new  e edit  ? help  q quit

            """)
        // In cells, not in characters: every score ends in column 27, and
        // the right border is in column 29.
        for y in 5...9 {
            XCTAssertEqual(screen[29, y].text, "│", "row \(y)")
            XCTAssertEqual(screen[27, y].text, y == 9 ? "5" : "0", "row \(y)")
        }
        XCTAssertEqual(screen[2, 5], Cell(text: "王", style: CellStyle(color: .selection, bold: true, reverse: true)))
        XCTAssertTrue(screen[3, 5].isContinuation)
    }

    func testNamesStartingWithAZeroWidthCharacterKeepTheScoresAligned() {
        let players = [
            makePlayer(1, "\u{301}Accent", 900),
            makePlayer(2, "\u{200B}Hidden", 850),
            makePlayer(3, "\u{FEFF}Marked", 800),
            makePlayer(4, "Plain", 700),
        ]
        let screen = hallOfFameRender(makeLoadedState(players, width: 30, height: 12))
        for y in 5...8 {
            XCTAssertEqual(screen[27, y].text, "0", "row \(y): \(screen.lines[y])")
            XCTAssertEqual(screen[28, y].text, " ", "row \(y): \(screen.lines[y])")
            XCTAssertEqual(screen[29, y].text, "│", "row \(y): \(screen.lines[y])")
        }
        // The accent has the space before the name to itself; the invisible
        // characters show as replacement characters.
        XCTAssertEqual(screen[2, 5].text, " \u{301}")
        XCTAssertEqual(screen[3, 5].text, "A")
        XCTAssertEqual(screen[2, 6].text, "\u{FFFD}")
        XCTAssertEqual(screen[2, 7].text, "\u{FFFD}")
    }

    func testBidirectionalControlsInNamesAreNeutralized() {
        let players = [makePlayer(1, "\u{202E}evil\u{202C}", 900), makePlayer(2, "a\u{2067}b\u{2069}", 800)]
        let screen = hallOfFameRender(makeLoadedState(players, width: 30, height: 12))
        XCTAssertEqual(screen.lines[5], "│ �evil�                 900 │")
        XCTAssertEqual(screen.lines[6], "│ a�b�                   800 │")
        for y in 0..<screen.height {
            for x in 0..<screen.width {
                XCTAssertFalse(screen[x, y].text.unicodeScalars.contains { $0.isNeutralized }, "\(x), \(y)")
            }
        }
    }

    // MARK: - Overlays

    func testHelpOverlayListsTheKeyTable() {
        var state = makeLoadedState(width: 80, height: 24)
        _ = press(.character("?"), in: &state)
        XCTAssertEqual(hallOfFameRender(state).text, """
             Hall of Fame — by score                                             row 1 of 8
            ┌──────────────────────────────────────────────────────────┐┌ Players ─────────┐
            │ Arthur                                              1200 ││        8         │
            │ ┌ Keys ───────────────────────────────────────────────────────────────────┐──┘
            │ │ ↑ ↓ / k j                  move the selection                           │──┐
            │ │ PgUp PgDn, Home End / g G  page, jump to first / last                   │  │
            │ │ n or +                     insert a random player                       │──┘
            │ │ e or Enter                 edit the selected player                     │
            │ │ d or Delete                delete the selected player                   │
            │ │ D                          delete all players (asks y/n)                │
            │ │ r                          refresh: new scores, may add/delete a player │
            │ │ s                          stress test: 50 refreshes at once            │
            │ │ o                          order by score / by name                     │
            │ │ H                          highlight changes on / off                   │
            │ │ ?                          show this help                               │
            │ │ Ctrl-Z                     suspend (fg resumes)                         │
            │ │ q, Ctrl-C                  quit                                         │
            │ │                                                                         │
            │ │ Press any key to close                                                  │
            │ └─────────────────────────────────────────────────────────────────────────┘
            │                                                          │
            └──────────────────────────────────────────────────────────┘
             any key closes the help

            """)
    }

    func testHelpOverlayOnSmallScreensSaysHowManyKeysAreLeftOut() {
        var state = makeLoadedState(width: 30, height: 9)
        _ = press(.character("?"), in: &state)
        XCTAssertEqual(hallOfFameRender(state).text, """
            ┌ Keys ──────────────────────┐
            │ ↑ ↓ / k j                  │
            │ PgUp PgDn, Home End / g G  │
            │ n or +                     │
            │ e or Enter                 │
            │ … 9 more: ↓ shows them     │
            │                            │
            │ ↑ ↓ scroll, any other key… │
            └────────────────────────────┘
            """)
    }

    func testEditFormShowsAnInvalidScore() {
        var state = makeLoadedState(width: 40, height: 12)
        _ = press(.character("e"), .tab, in: &state)
        _ = type("x", in: &state)
        _ = press(.enter, in: &state)
        let screen = hallOfFameRender(state)
        XCTAssertEqual(screen.text, """
             Hall of Fame — by score     row 1 of 8
            ┌ Players ─────────┐┌ Max score ───────┐
            ┌ Edit player ─────────────────────────┐
            │                                      │
            │  Name   Arthur                       │
            │› Score  1200x                        │
            │ Score must be an integer             │
            │                                      │
            └──────────────────────────────────────┘
            └──────────────────────────────────────┘
             Enter save  Esc cancel  Tab field

            """)
        XCTAssertEqual(screen.style(x: 2, y: 6), CellStyle(color: .error, bold: true))
        XCTAssertEqual(screen.style(x: 10, y: 5), CellStyle(color: .accent, reverse: true))  // focused field
        XCTAssertEqual(screen.style(x: 10, y: 4), CellStyle(color: .dim, reverse: true))
        // The cursor stands after "1200x".
        XCTAssertEqual(screen.cursor?.x, 15)
        XCTAssertEqual(screen.cursor?.y, 5)
    }

    func testEditFormScrollsWideCharactersWhole() {
        var state = makeLoadedState(width: 40, height: 12)
        _ = press(.character("e"), .control("u"), in: &state)
        _ = type("一二三四五六七八九十一二三四五六七八九十", in: &state)
        var screen = hallOfFameRender(state)
        // 28 cells of field: 13 whole characters and the cursor's cell.
        XCTAssertEqual(screen.lines[4], "│› Name   八九十一二三四五六七八九十   │")
        XCTAssertEqual(screen.cursor?.x, 36)
        _ = press(.home, in: &state)
        screen = hallOfFameRender(state)
        XCTAssertEqual(screen.lines[4], "│› Name   一二三四五六七八九十一二三四 │")
        XCTAssertEqual(screen.cursor?.x, 10)
    }

    func testEditFormShowsTheEndOfAVeryLongName() {
        let players = [makePlayer(1, String(repeating: "ab", count: 50_000) + "END", 900)]
        var state = makeLoadedState(players, width: 40, height: 12)
        _ = press(.character("e"), in: &state)
        let screen = hallOfFameRender(state)
        XCTAssertEqual(screen.lines[4], "│› Name   ababababababababababababEND  │")
        XCTAssertEqual(screen.cursor?.x, 37)
    }

    func testEditFormScrollsALongNameToKeepTheCursorVisible() {
        var state = makeLoadedState(width: 40, height: 12)
        _ = press(.character("e"), .control("u"), in: &state)
        _ = type("Alexandria Ocasio-Cortez the Great", in: &state)
        _ = press(.left, .left, in: &state)
        let screen = hallOfFameRender(state)
        XCTAssertEqual(screen.lines[4], "│› Name   ndria Ocasio-Cortez the Grea │")
        // On the "a" of "Great": between "Gre" and "at".
        XCTAssertEqual(screen.cursor?.x, 37)
        XCTAssertEqual(screen[37, 4].text, "a")
    }

    func testDeleteAllConfirmationPrompt() {
        var state = makeLoadedState(width: 40, height: 12)
        _ = press(.character("D"), in: &state)
        XCTAssertEqual(hallOfFameRender(state).text, """
             Hall of Fame — by score     row 1 of 8
            ┌ Players ─────────┐┌ Max score ───────┐
            │        8         ││       1200       │
            └────┌ Delete all ────────────────┐────┘
            ┌────│ Delete all 8 players?      │────┐
            │ Art│                            │200 │
            │ Bar│ y yes   n no               │100 │
            │ Cra└────────────────────────────┘950 │
            │ David                            800 │
            └──────────────────────────────────────┘
             y delete all  n cancel

            """)
    }

    // MARK: - Status line

    func testStatusLineShowsTheCaptionAndTheStressTest() {
        var state = makeLoadedState(makePlayers(3), width: 60, height: 10)
        state.status.caption = "Stress test (s): 50 concurrent refreshes"
        _ = press(.character("s"), in: &state)
        _ = hallOfFameUpdate(&state, .stressProgress(completed: 12, total: 50))
        XCTAssertEqual(hallOfFameRender(state).lines[9], " Stress test (s): 50 concurrent refresh… stress test 12/50… ")
        _ = hallOfFameUpdate(&state, .stressFinished(total: 50, failed: 0, seconds: 1.234))
        state.status.caption = nil
        XCTAssertEqual(hallOfFameRender(state).lines[9], "                       stress test: 50 ok, 0 failed, 1.23 s ")
        _ = press(.character("s"), in: &state)
        _ = hallOfFameUpdate(&state, .stressFinished(total: 50, failed: 2, seconds: 1.234, firstError: "locked"))
        XCTAssertEqual(hallOfFameRender(state).lines[9], " Stress test refresh failed:…  stress test: 48 ok, 2 faile… ")
    }

    func testStatusLineShowsErrorsFirst() {
        var state = makeLoadedState(makePlayers(3), width: 60, height: 10)
        state.status.caption = "Insert a random player (n)"
        _ = hallOfFameUpdate(&state, .writeFinished(.insertRandomPlayer, error: "database is locked"))
        let screen = hallOfFameRender(state)
        XCTAssertEqual(screen.lines[9], " Write failed: database is locked                           ")
        XCTAssertEqual(screen.style(x: 1, y: 9), CellStyle(color: .error, bold: true))
    }

    // MARK: - Sizes

    func testTooSmallTerminalSaysSo() {
        func text(_ width: Int, _ height: Int) -> String {
            hallOfFameRender(makeLoadedState(width: width, height: height)).text
        }
        XCTAssertEqual(text(0, 0), "")
        XCTAssertEqual(text(1, 1), "…")
        XCTAssertEqual(text(4, 1), "30x9")
        XCTAssertEqual(text(10, 3), "\nneed 30x9\n")
        XCTAssertEqual(text(29, 9), "\n\n\n\n    Too small: need 30x9\n\n\n\n")
        XCTAssertEqual(text(30, 8), "\n\n\nTerminal too small (need 30x9)\n\n\n\n")
        XCTAssertEqual(text(80, 8), "\n\n\n                         Terminal too small (need 30x9)\n\n\n\n")
        XCTAssertEqual(text(29, 50).split(separator: "\n", omittingEmptySubsequences: false).count, 50)
    }

    func testEverySizeRendersAFullGrid() {
        var states: [HallOfFameState] = []
        for mode in 0..<6 {
            var state = makeLoadedState(makePlayers(40), width: 80, height: 24)
            switch mode {
            case 0: break
            case 1: _ = press(.character("?"), in: &state)
            case 2: _ = press(.character("e"), in: &state)
            case 3: _ = press(.character("D"), in: &state)
            case 4: state = HallOfFameState.initial(width: 80, height: 24)
            default: _ = hallOfFameUpdate(&state, .hallOfFame(makeHallOfFame([], request: state.observedRequest!), now: .now))
            }
            states.append(state)
        }
        // Every size around the layout thresholds (30x9, 60 columns), and
        // some beyond.
        let widths = Array(0...12) + Array(27...33) + Array(42...46) + Array(57...63) + [80, 120]
        let heights = Array(0...14) + [20, 24, 40]
        for var state in states {
            for width in widths {
                for height in heights {
                    _ = hallOfFameUpdate(&state, .resize(width: width, height: height))
                    let screen = hallOfFameRender(state)
                    XCTAssertEqual(screen.lines.count, height)
                    for line in screen.lines {
                        XCTAssertEqual(TextWidth.width(of: line), width, "\(width)x\(height)")
                    }
                    if let cursor = screen.cursor {
                        XCTAssertTrue(screen.contains(x: cursor.x, y: cursor.y), "\(width)x\(height)")
                    }
                }
            }
        }
    }
}
