import Foundation
import XCTest

/// The documents' Swift code blocks are compiled from DocExamples.swift,
/// which scripts/doc-examples.py extracts from them, and the DocC catalog's
/// articles are made from the guide by scripts/docc-catalog.py: these tests
/// fail when the documents changed and the scripts were not run again.
final class DocExamplesTests: XCTestCase {
    func testExtractedExamplesMatchTheDocuments() throws {
        try assertScriptSucceeds("scripts/doc-examples.py", "--check")
    }

    func testDocCArticlesMatchTheGuide() throws {
        try assertScriptSucceeds("scripts/docc-catalog.py", "--check")
    }

    private func assertScriptSucceeds(_ script: String, _ arguments: String..., file: StaticString = #filePath, line: UInt = #line) throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()
            .deletingLastPathComponent()
            .deletingLastPathComponent()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root.appendingPathComponent(script).path] + arguments
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, message, file: file, line: line)
    }
}
