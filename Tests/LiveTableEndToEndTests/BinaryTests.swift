import Foundation
import XCTest

final class BinaryTests: XCTestCase {
    func testBinaryIsBuilt() throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let binary = root.appendingPathComponent(".build/debug/livetable")
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: binary.path), binary.path)
    }
}
