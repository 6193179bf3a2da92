import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// A caption over any screen: the viewer's and the Hall of Fame's programs
/// run unchanged under it.
final class CaptionedProgramTests: XCTestCase {
    private func makeProgram() throws -> CaptionedProgram<ViewerProgram> {
        let path = try makeTemporaryDirectory().appendingPathComponent("shop.sqlite").path
        _ = try ForeignFile.sqlite3(path, "CREATE TABLE t(a); INSERT INTO t VALUES (1);")
        let database = try SQLiteDataSource.open(path: path)
        return MainActor.assumeIsolated { CaptionedProgram(ViewerProgram(dataSource: database)) }
    }

    func testCaptionIsDrawnOverTheBottomLineOnly() throws {
        try MainActor.assumeIsolated {
            let program = try makeProgram()
            var state = Captioned(ViewerState.initial(databaseName: "shop.sqlite", opened: nil, width: 40, height: 8))
            _ = program.update(&state, .base(.tablesListed([PickerEntry(name: "t", kind: .table, count: .exact(1))])))
            let plain = program.render(state).text.components(separatedBy: "\n")

            XCTAssertEqual(program.update(&state, .caption("Another program writes")), [])
            let captioned = program.render(state).text.components(separatedBy: "\n")
            XCTAssertEqual(captioned.count, 8)
            XCTAssertEqual(Array(captioned.dropLast()), Array(plain.dropLast()))
            XCTAssertEqual(captioned.last, " Another program writes")

            _ = program.update(&state, .caption(nil))
            XCTAssertEqual(program.render(state).text.components(separatedBy: "\n"), plain)
        }
    }

    func testLongCaptionIsCutAndTinyScreensDoNotCrash() throws {
        try MainActor.assumeIsolated {
            let program = try makeProgram()
            var state = Captioned(ViewerState.initial(databaseName: "shop.sqlite", opened: nil, width: 20, height: 6))
            _ = program.update(&state, .caption(String(repeating: "caption ", count: 10)))
            XCTAssertEqual(program.render(state).text.components(separatedBy: "\n").last, " caption caption c…")
            for (width, height) in [(0, 0), (1, 1), (2, 1), (3, 1)] {
                _ = program.update(&state, .base(.resize(width: width, height: height)))
                _ = program.render(state)
            }
        }
    }

    func testHallOfFameCaptionSharesItsStatusLine() throws {
        let database = try AppDatabase.inMemory()
        MainActor.assumeIsolated {
            let program = CaptionedProgram(HallOfFameProgram(database: database))
            var state = Captioned(makeLoadedState(makePlayers(3), width: 60, height: 10))
            let plain = program.render(state).lines

            XCTAssertEqual(program.update(&state, .caption("Stress test (s): 50 concurrent refreshes")), [])
            XCTAssertEqual(program.update(&state, .key(.character("s"))), [.stressTest])
            _ = program.update(&state, .base(.stressProgress(completed: 12, total: 50)))
            let lines = program.render(state).lines
            XCTAssertEqual(Array(lines.dropLast()), Array(plain.dropLast()))
            // The caption on the left, the stress test's progress kept on
            // the right, in the status line's style.
            XCTAssertEqual(lines[9], " Stress test (s): 50 concurrent refresh… stress test 12/50… ")
            XCTAssertEqual(program.render(state).style(x: 1, y: 9), CellStyle(color: .status))

            // An error comes first.
            _ = program.update(&state, .base(.writeFinished(.insertRandomPlayer, error: "database is locked")))
            XCTAssertTrue(program.render(state).lines[9].hasPrefix(" Write failed: database is locked"))
            XCTAssertEqual(program.render(state).style(x: 1, y: 9), CellStyle(color: .error, bold: true))

            _ = program.update(&state, .caption(nil))
            XCTAssertEqual(program.render(state), hallOfFameRender(state.base))
            XCTAssertNil(state.base.status.caption, "the caption is drawn, never kept in the Hall of Fame's state")
        }
    }

    func testBaseMessagesGoThroughTheBaseUpdate() throws {
        try MainActor.assumeIsolated {
            let program = try makeProgram()
            var state = Captioned(ViewerState.initial(databaseName: "shop.sqlite", opened: nil, width: 40, height: 8))
            var base = state.base
            XCTAssertEqual(program.update(&state, .resize(width: 40, height: 8)), viewerUpdate(&base, .resize(width: 40, height: 8)))
            XCTAssertEqual(state.base, base)
            XCTAssertEqual(CaptionedMessage<ViewerMessage>.key(.down), .base(.key(.down)))
        }
    }
}
