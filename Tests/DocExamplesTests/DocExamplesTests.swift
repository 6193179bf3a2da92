import Foundation
import XCTest

/// The documents' Swift code blocks are compiled from DocExamples.swift,
/// which scripts/doc-examples.py extracts from them: this test fails when
/// the documents changed and the extraction was not run again.
final class DocExamplesTests: XCTestCase {
    func testExtractedExamplesMatchTheDocuments() throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()
            .deletingLastPathComponent()
            .deletingLastPathComponent()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root.appendingPathComponent("scripts/doc-examples.py").path, "--check"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, message)
    }
}
