import Foundation
@testable import LiveTableCore
import XCTest

/// `--poll SECONDS`, and the note that says the file is polled.
final class CommitPollingTests: XCTestCase {
    func testIntervalsFrom20MillisecondsToAMinuteAreAccepted() throws {
        XCTAssertEqual(try CommitPolling.interval(parsing: "0.02"), 0.02)
        XCTAssertEqual(try CommitPolling.interval(parsing: "0.5"), 0.5)
        XCTAssertEqual(try CommitPolling.interval(parsing: "1"), 1)
        XCTAssertEqual(try CommitPolling.interval(parsing: "60"), 60)
    }

    func testIntervalsOutOfRangeOrNotNumbersAreRefused() {
        for text in ["0.019", "0", "-1", "60.5", "abc", "", "nan", "inf", "1e400", "0x10", "0x1p4", "infinity", "1 0"] {
            XCTAssertThrowsError(try CommitPolling.interval(parsing: text), text) { error in
                XCTAssertEqual("\(error)", "the interval must be a number of seconds from 0.02 to 60", text)
            }
        }
    }

    func testNoteSaysTheIntervalAndWhy() {
        let path = FileManager.default.temporaryDirectory.path
        XCTAssertEqual(CommitPolling(interval: 0.5).note(path: path, reason: nil), "polled every 0.5 s")
        XCTAssertEqual(CommitPolling(interval: 0.02).note(path: path, reason: nil), "polled every 0.02 s")
        XCTAssertEqual(CommitPolling(interval: 60).note(path: path, reason: nil), "polled every 60 s")
        XCTAssertEqual(
            CommitPolling().note(path: path, reason: "cannot watch \"/tmp\": the limit of inotify watches is reached"),
            "polled every 0.1 s: no inotify")
    }
}
