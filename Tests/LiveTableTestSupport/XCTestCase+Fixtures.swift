import Foundation
import XCTest

/// The fixtures that the test targets share: a temporary directory per
/// test, and a wait on a condition (never a fixed sleep).
extension XCTestCase {
    /// A new empty directory, removed when the test ends.
    public func makeTemporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("LiveTable-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock {
            // Restore permissions that a test may have removed, then delete.
            chmod(directory.path, 0o755)
            if let files = try? FileManager.default.contentsOfDirectory(atPath: directory.path) {
                for file in files {
                    chmod(directory.appendingPathComponent(file).path, 0o644)
                }
            }
            try? FileManager.default.removeItem(at: directory)
        }
        return directory
    }

    /// Spins the main run loop until `condition` is true, and fails after
    /// `timeout` seconds. Values published on the main queue arrive while
    /// it spins.
    @discardableResult
    public func waitUntil(
        _ description: String,
        timeout: TimeInterval = 10,
        file: StaticString = #filePath, line: UInt = #line,
        _ condition: () throws -> Bool) rethrows -> Bool
    {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while try !condition() {
            if Date() > deadline {
                XCTFail("Timeout: \(description)", file: file, line: line)
                return false
            }
            _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.005))
        }
        return true
    }
}
