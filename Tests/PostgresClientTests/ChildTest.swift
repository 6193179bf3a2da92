import Foundation
import XCTest

/// One test of this bundle run again in a child process, for what a test
/// process can go through only once: its exit, its load of libpq.
enum ChildTest {
    /// Runs the test `name` ("PostgresClientTests.Class/testMethod") in a
    /// child, this same test bundle, with `environment` added to this
    /// process's; checks that it passed and exited cleanly within 2
    /// minutes.
    static func run(
        _ name: String, environment: [String: String],
        file: StaticString = #filePath, line: UInt = #line) throws
    {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = [name]
        // A crash ends the child at once rather than after a backtrace.
        child.environment = ProcessInfo.processInfo.environment
            .merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
            .merging(environment) { $1 }
        let output = Pipe()
        child.standardOutput = output
        child.standardError = output
        let ended = DispatchSemaphore(value: 0)
        child.terminationHandler = { _ in ended.signal() }
        try child.run()
        // Read while it runs: a full pipe would block the child.
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard ended.wait(timeout: .now() + 120) == .success else {
            child.terminate()
            return XCTFail("the child did not end within 2 minutes:\n\(text)", file: file, line: line)
        }
        XCTAssertTrue(text.contains("Executed 1 test, with 0 failures"), text, file: file, line: line)
        XCTAssertEqual(
            child.terminationReason, .exit, "the child died of signal \(child.terminationStatus):\n\(text)",
            file: file, line: line)
        XCTAssertEqual(child.terminationStatus, 0, text, file: file, line: line)
    }
}
