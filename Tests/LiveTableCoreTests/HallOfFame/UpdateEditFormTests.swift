import XCTest
@testable import LiveTableCore

final class UpdateEditFormTests: XCTestCase {
    /// A loaded state with the form open on Barbara (id 2, 1100).
    private func makeEditingState() -> HallOfFameState {
        var state = makeLoadedState()
        _ = press(.down, in: &state)
        XCTAssertEqual(press(.character("e"), in: &state), [[]])
        return state
    }

    private func form(_ state: HallOfFameState) -> EditForm? {
        if case let .editing(form) = state.mode { return form }
        return nil
    }

    func testEditKeysOpenTheFormOnTheSelectedPlayer() {
        for key in [Key.character("e"), .enter] {
            var state = makeLoadedState()
            _ = press(.down, in: &state)
            XCTAssertEqual(press(key, in: &state), [[]])
            XCTAssertEqual(form(state), EditForm(player: samplePlayers[1]))
            XCTAssertEqual(form(state)?.focus, .name)
            XCTAssertEqual(form(state)?.score, "1100")
            XCTAssertEqual(form(state)?.cursor, 7)
        }
    }

    func testEditKeyWithoutSelectionDoesNothing() {
        var state = makeLoadedState([])
        XCTAssertEqual(press(.character("e"), .enter, in: &state), [[], []])
        XCTAssertEqual(state.mode, .browsing)
    }

    func testEnterSavesTheEditedPlayer() {
        var state = makeEditingState()
        XCTAssertEqual(type("a", in: &state), [])
        XCTAssertEqual(press(.tab, .backspace, .backspace, .backspace, .backspace, in: &state), [[], [], [], [], []])
        XCTAssertEqual(type("-42", in: &state), [])
        let saved = Player(id: 2, name: "Barbaraa", score: -42)
        XCTAssertEqual(press(.enter, in: &state), [[.updatePlayer(saved)]])
        // The form waits for the save, and says so.
        XCTAssertEqual(form(state)?.isSaving, true)
        XCTAssertTrue(hallOfFameRender(state).text.contains("saving…"))
        XCTAssertEqual(hallOfFameUpdate(&state, .writeFinished(.updatePlayer(saved), error: nil)), [])
        XCTAssertEqual(state.mode, .browsing)
        XCTAssertEqual(state.status.pendingWrites, 0)
        // The list changes when the observation delivers, not before.
        XCTAssertEqual(state.hallOfFame?.players, samplePlayers)
    }

    func testFailedSaveKeepsTheFormOpenWithTheEditAndTheError() {
        var state = makeEditingState()
        _ = type("x", in: &state)
        let saved = Player(id: 2, name: "Barbarax", score: 1100)
        XCTAssertEqual(press(.enter, in: &state), [[.updatePlayer(saved)]])
        // No edit while the save runs.
        XCTAssertEqual(type("yz", in: &state), [])
        XCTAssertEqual(form(state)?.name, "Barbarax")
        _ = hallOfFameUpdate(&state, .writeFinished(.updatePlayer(saved), error: "database is locked"))
        XCTAssertEqual(form(state)?.isSaving, false)
        XCTAssertEqual(form(state)?.name, "Barbarax")
        XCTAssertEqual(form(state)?.error, "Save failed: database is locked")
        XCTAssertNil(state.status.error)
        XCTAssertTrue(hallOfFameRender(state).text.contains("Save failed: database is locked"))
        // Enter tries again.
        XCTAssertEqual(press(.enter, in: &state), [[.updatePlayer(saved)]])
        XCTAssertNil(form(state)?.error)
    }

    func testEscapeWhileSavingClosesTheFormAndAFailureShowsInTheStatusLine() {
        var state = makeEditingState()
        let saved = Player(id: 2, name: "Barbara", score: 1100)
        XCTAssertEqual(press(.enter, .escape, in: &state), [[.updatePlayer(saved)], []])
        XCTAssertEqual(state.mode, .browsing)
        _ = hallOfFameUpdate(&state, .writeFinished(.updatePlayer(saved), error: "Key not found in table player"))
        XCTAssertEqual(state.mode, .browsing)
        XCTAssertEqual(state.status.error, "Write failed: Key not found in table player")
    }

    func testAnotherWriteEndingDoesNotCloseTheForm() {
        var state = makeEditingState()
        _ = press(.enter, in: &state)
        _ = hallOfFameUpdate(&state, .writeFinished(.insertRandomPlayer, error: nil))
        XCTAssertEqual(form(state)?.isSaving, true)
    }

    func testTypedLettersAreTextNotCommands() {
        var state = makeEditingState()
        _ = press(.control("u"), in: &state)
        XCTAssertEqual(type("qdDnr?o", in: &state), [])
        XCTAssertEqual(form(state)?.name, "qdDnr?o")
        XCTAssertFalse(state.isQuitting)
    }

    func testInvalidScoreIsShownAndNotSaved() {
        for score in ["12x", "", "-", "+5", "1.5", "1 2", "٣"] {
            var state = makeEditingState()
            _ = press(.tab, .control("u"), in: &state)
            _ = type(score, in: &state)
            XCTAssertEqual(press(.enter, in: &state), [[]], score)
            XCTAssertEqual(form(state)?.error, "Score must be an integer", score)
            XCTAssertEqual(form(state)?.score, score)
        }
    }

    func testOutOfRangeScoreIsShownAndNotSaved() {
        var state = makeEditingState()
        _ = press(.tab, .control("u"), in: &state)
        _ = type("99999999999999999999", in: &state)
        XCTAssertEqual(press(.enter, in: &state), [[]])
        XCTAssertEqual(form(state)?.error, "Score is out of range")
    }

    func testEmptyNameIsShownAndNotSaved() {
        var state = makeEditingState()
        _ = press(.control("u"), in: &state)
        _ = type("   ", in: &state)
        XCTAssertEqual(press(.enter, in: &state), [[]])
        XCTAssertEqual(form(state)?.error, "Name must not be empty")
    }

    func testNameAndScoreAreTrimmed() {
        var state = makeEditingState()
        _ = press(.control("u"), in: &state)
        _ = type(" Zoë ", in: &state)
        _ = press(.tab, .control("u"), in: &state)
        _ = type(" 7 ", in: &state)
        XCTAssertEqual(press(.enter, in: &state), [[.updatePlayer(Player(id: 2, name: "Zoë", score: 7))]])
    }

    func testEditingClearsTheErrorAndASecondEnterSaves() {
        var state = makeEditingState()
        _ = press(.tab, in: &state)
        _ = type("x", in: &state)
        _ = press(.enter, in: &state)
        XCTAssertNotNil(form(state)?.error)
        _ = press(.backspace, in: &state)
        XCTAssertNil(form(state)?.error)
        XCTAssertEqual(press(.enter, in: &state), [[.updatePlayer(samplePlayers[1])]])
    }

    func testEscapeCancelsTheForm() {
        var state = makeEditingState()
        _ = type("zzz", in: &state)
        XCTAssertEqual(press(.escape, in: &state), [[]])
        XCTAssertEqual(state.mode, .browsing)
        XCTAssertFalse(state.isQuitting)
        XCTAssertEqual(state.selectedPlayer, samplePlayers[1])
    }

    func testTabAndArrowsSwitchFields() {
        var state = makeEditingState()
        var focus: [EditForm.Field?] = []
        for key in [Key.tab, .tab, .down, .down, .up, .up] {
            _ = press(key, in: &state)
            focus.append(form(state)?.focus)
        }
        XCTAssertEqual(focus, [.score, .name, .score, .score, .name, .name])
        _ = press(.down, in: &state)
        XCTAssertEqual(form(state)?.cursor, 4)  // at the end of "1100"
    }

    func testCursorKeysEditInTheMiddle() {
        var state = makeEditingState()
        // "Barbara|" → "Barb|ara" → "BarbXara" → "BarXara" → "BarXra" → "Bar"
        _ = press(.left, .left, .left, in: &state)
        _ = type("X", in: &state)
        _ = press(.left, .backspace, in: &state)
        XCTAssertEqual(form(state)?.name, "BarXara")
        XCTAssertEqual(form(state)?.cursor, 3)
        _ = press(.right, .delete, in: &state)
        XCTAssertEqual(form(state)?.name, "BarXra")
        _ = press(.home, .backspace, .delete, in: &state)
        XCTAssertEqual(form(state)?.name, "arXra")
        XCTAssertEqual(form(state)?.cursor, 0)
        _ = press(.end, .delete, .right, in: &state)
        XCTAssertEqual(form(state)?.name, "arXra")
        XCTAssertEqual(form(state)?.cursor, 5)
        _ = press(.control("u"), in: &state)
        XCTAssertEqual(form(state)?.name, "")
        XCTAssertEqual(form(state)?.cursor, 0)
        _ = press(.left, .backspace, in: &state)
        XCTAssertEqual(form(state)?.cursor, 0)
    }

    func testWideCharactersAreEditedWhole() {
        var state = makeEditingState()
        _ = press(.control("u"), in: &state)
        _ = type("中😀", in: &state)
        _ = press(.backspace, in: &state)
        XCTAssertEqual(form(state)?.name, "中")
        XCTAssertEqual(press(.enter, in: &state), [[.updatePlayer(Player(id: 2, name: "中", score: 1100))]])
    }
}
