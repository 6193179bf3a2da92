import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// A caption over any screen: the viewer's program runs unchanged under it.
final class CaptionedProgramTests: XCTestCase {
    private func makeProgram() throws -> CaptionedProgram<ViewerProgram> {
        let path = try makeTemporaryDirectory().appendingPathComponent("shop.sqlite").path
        _ = try ForeignFile.sqlite3(path, "CREATE TABLE t(a); INSERT INTO t VALUES (1);")
        let database = try ViewerDatabase.open(path: path)
        return MainActor.assumeIsolated { CaptionedProgram(ViewerProgram(database: database)) }
    }

    func testCaptionIsDrawnOverTheBottomLineOnly() throws {
        try MainActor.assumeIsolated {
            let program = try makeProgram()
            var state = Captioned(ViewerState.initial(fileName: "shop.sqlite", opened: nil, width: 40, height: 8))
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
            var state = Captioned(ViewerState.initial(fileName: "shop.sqlite", opened: nil, width: 20, height: 6))
            _ = program.update(&state, .caption(String(repeating: "caption ", count: 10)))
            XCTAssertEqual(program.render(state).text.components(separatedBy: "\n").last, " caption caption c…")
            for (width, height) in [(0, 0), (1, 1), (2, 1), (3, 1)] {
                _ = program.update(&state, .base(.resize(width: width, height: height)))
                _ = program.render(state)
            }
        }
    }

    func testBaseMessagesGoThroughTheBaseUpdate() throws {
        try MainActor.assumeIsolated {
            let program = try makeProgram()
            var state = Captioned(ViewerState.initial(fileName: "shop.sqlite", opened: nil, width: 40, height: 8))
            var base = state.base
            XCTAssertEqual(program.update(&state, .resize(width: 40, height: 8)), viewerUpdate(&base, .resize(width: 40, height: 8)))
            XCTAssertEqual(state.base, base)
            XCTAssertEqual(CaptionedMessage<ViewerMessage>.key(.down), .base(.key(.down)))
        }
    }
}
