import Foundation
import XCTest
@testable import LiveTableCore

/// The README's key table is `keyBindings`, the table behind the help
/// overlay.
final class KeyBindingReadmeTests: XCTestCase {
    func testReadmeKeyTableIsTheKeyBindings() throws {
        let readme = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        let header = try XCTUnwrap(lines.firstIndex(of: "| key | action |"), "README has no key table")
        let rows = lines[(header + 2)...].prefix { $0.hasPrefix("|") }
        XCTAssertEqual(Array(rows), keyBindings.map { "| \($0.keys) | \($0.description) |" })
    }
}
