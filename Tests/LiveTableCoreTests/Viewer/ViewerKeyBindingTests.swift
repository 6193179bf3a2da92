import Foundation
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// The viewer's key table: what each key does, and the README's copy of it.
final class ViewerKeyBindingTests: XCTestCase {
    func testKeysOfTheIssue() {
        let expected: [(Key, ViewerAction)] = [
            (.up, .moveUp), (.character("k"), .moveUp), (.down, .moveDown), (.character("j"), .moveDown),
            (.pageUp, .pageUp), (.pageDown, .pageDown), (.home, .jumpToFirst), (.character("g"), .jumpToFirst),
            (.end, .jumpToLast), (.character("G"), .jumpToLast), (.enter, .open), (.character("t"), .tables),
            (.character("?"), .help), (.character("q"), .quit), (.escape, .close), (.control("c"), .quit),
            (.control("z"), .suspend), (.left, .columnLeft), (.character("h"), .columnLeft),
            (.right, .columnRight), (.character("l"), .columnRight),
            (.character("["), .sortAscending), (.character("]"), .sortDescending),
            (.character("/"), .search), (.character("n"), .searchNext), (.character("N"), .searchPrevious),
            (.character("f"), .filter),
            (.character("y"), .copyCell), (.character("Y"), .copyRow), (.character("s"), .save),
        ]
        for (key, action) in expected {
            XCTAssertEqual(KeyBinding.action(for: key, in: viewerKeyBindings), action, "\(key)")
        }
        XCTAssertNil(KeyBinding.action(for: .character("x"), in: viewerKeyBindings))
        let bound = viewerKeyBindings.flatMap(\.actions.keys)
        XCTAssertEqual(bound.count, Set(bound).count, "a key is bound twice")
    }

    func testTheRowsOfSlashAndEscSayWhatTheyDoOnThePicker() {
        for action in [ViewerAction.search, .close] {
            let binding = viewerKeyBindings.first { $0.actions.values.contains(action) }
            XCTAssertTrue(binding?.description.contains("picker") == true, "\(action): \(binding?.description ?? "none")")
        }
    }

    func testReadmeKeyTableIsTheViewerKeyBindings() throws {
        let readme = packageDirectory.appendingPathComponent("README.md")
        let lines = try String(contentsOf: readme, encoding: .utf8).components(separatedBy: "\n")
        let header = try XCTUnwrap(lines.firstIndex(of: "| viewer key | action |"), "README has no viewer key table")
        let rows = lines[(header + 2)...].prefix { $0.hasPrefix("|") }
        XCTAssertEqual(Array(rows), viewerKeyBindings.map { "| \($0.keys) | \($0.description) |" })
    }
}
