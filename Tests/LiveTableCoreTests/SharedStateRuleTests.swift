import Foundation
import XCTest

/// Shared state has one idiom (issue 26): a `Mutex` holds what it guards,
/// read and written with `withLock`. No `NSLock`, `NSRecursiveLock` or
/// `LockedValue` in `Sources`; `NSCondition` only where a thread waits.
final class SharedStateRuleTests: XCTestCase {
    /// Files where a thread waits on an `NSCondition` until a deadline.
    static let conditionFiles: Set<String> = [
        "LineSession/LineBuffer.swift",
        "PostgresClient/ProcessExitGate.swift",
        "livetable/Runtime.swift",
        "LiveTableBenchmark/AsyncValuesBenchmark.swift",
        "LiveTableBenchmark/FrameLog.swift",
        "LiveTableBenchmark/OtherProcessBenchmark.swift",
        "LiveTableBenchmark/RemoteFileBenchmark.swift",
        "LiveTableBenchmark/RollbackJournalBenchmark.swift",
        "LiveTableBenchmark/ScaleBenchmark.swift",
    ]

    func testSharedStateIsInAMutex() throws {
        let sources = try SwiftSource.files()
        XCTAssertGreaterThan(sources.count, 50)
        for path in Self.conditionFiles {
            XCTAssertNotNil(sources[path], "\(path) is listed but gone: remove it from the list")
        }
        let violations = Self.violations(sources)
        XCTAssertEqual(violations, [], "\n" + violations.joined(separator: "\n"))
    }

    /// The check itself finds each bare lock and an `NSCondition` off the
    /// list, and lets comments, strings and the listed conditions through.
    func testTheCheckFindsBareLocks() {
        let sources = [
            "A/A.swift": "let a = NSLock()\n// NSLock\nlet s = \"NSRecursiveLock\"\n",
            "A/B.swift": "let b = NSRecursiveLock()\nlet c = LockedValue(0)\n",
            "A/C.swift": "private let condition = NSCondition()\n",
            "LineSession/LineBuffer.swift": "private let condition = NSCondition()\nlet b = NSLock()\n",
            "A/D.swift": "private let state = Mutex(0)\n",
        ]
        XCTAssertEqual(Self.violations(sources), [
            "A/A.swift:1: NSLock",
            "A/B.swift:1: NSRecursiveLock",
            "A/B.swift:2: LockedValue",
            "A/C.swift:1: NSCondition",
            "LineSession/LineBuffer.swift:2: NSLock",
        ])
    }

    /// "path:line: Name" for each bare lock, and each `NSCondition` off
    /// its list, sorted.
    static func violations(_ sources: [String: String]) -> [String] {
        let word = try! NSRegularExpression(pattern: "\\b(NSLock|NSRecursiveLock|LockedValue|NSCondition)\\b")
        var found: [String] = []
        for (path, text) in sources {
            for (index, line) in FolderRuleTests.code(text).enumerated() {
                for match in word.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
                    let name = String(line[Range(match.range, in: line)!])
                    if name != "NSCondition" || !conditionFiles.contains(path) {
                        found.append("\(path):\(index + 1): \(name)")
                    }
                }
            }
        }
        return found.sorted()
    }
}
