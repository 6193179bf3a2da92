import Foundation
import XCTest
@testable import LiveTableBenchmark

/// The async form's part of `livetable bench`: its target, its JSON, and a
/// real run against the `sqlite3` command. Figures are never asserted
/// against time limits here: `livetable bench` checks those.
final class AsyncValuesBenchmarkTests: XCTestCase {
    func testTargetIsTheAsyncMedianWithinATenthOfThePublishers() {
        XCTAssertEqual(figures(publisherP50: 1, asyncP50: 1.1).targets.map(\.met), [true])
        XCTAssertEqual(figures(publisherP50: 1, asyncP50: 1.11).targets.map(\.met), [false])
        XCTAssertEqual(figures(publisherP50: 0, asyncP50: 1).targets.map(\.met), [false])
        let target = figures(publisherP50: 2, asyncP50: 1.5).targets[0]
        XCTAssertEqual(target.name, "async sequence p50 ≤ 1.1x the publisher's (WAL)")
        XCTAssertEqual(target.measured, "1.50 ms vs 2.00 ms (0.75x)")
    }

    func testReportEncodesAsyncValuesBesideTheExistingKeys() throws {
        var report = BenchmarkReport(sizes: [])
        report.async_values = [figures(publisherP50: 1, asyncP50: 1)]
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as! [String: Any]
        XCTAssertEqual(Set(object.keys), ["sizes", "peak_rss_mb", "targets", "async_values"])
        let entry = try XCTUnwrap((object["async_values"] as? [[String: Any]])?.first)
        for key in ["publisher_p50_ms", "publisher_p99_ms", "async_p50_ms", "async_p99_ms", "publisher_cpu_ms", "async_cpu_ms"] {
            XCTAssertNotNil(entry[key] as? Double, key)
        }
        XCTAssertEqual(entry["samples"] as? Int, 300)
        XCTAssertTrue(report.table.contains("→ publisher, and → for try await"), report.table)
    }

    func testBenchmarkMeasuresBothFormsInBothJournalModes() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("livetable-async-values-benchmark-test-\(UUID().uuidString)")
        let figures = try AsyncValuesBenchmark(directory: directory, samples: 10, block: 5).run()
        XCTAssertEqual(figures.map(\.journal_mode), ["wal", "delete"])
        for figure in figures {
            XCTAssertEqual(figure.samples, 10, figure.journal_mode)
            XCTAssertGreaterThanOrEqual(figure.publisher_p99_ms, figure.publisher_p50_ms, figure.journal_mode)
            XCTAssertGreaterThanOrEqual(figure.async_p99_ms, figure.async_p50_ms, figure.journal_mode)
            XCTAssertGreaterThan(figure.publisher_p50_ms, 0, figure.journal_mode)
            XCTAssertGreaterThan(figure.async_p50_ms, 0, figure.journal_mode)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path), "the databases are removed")
    }

    private func figures(publisherP50: Double, asyncP50: Double) -> AsyncValuesFigures {
        AsyncValuesFigures(
            journal_mode: "wal", publisher_p50_ms: publisherP50, publisher_p99_ms: 3, async_p50_ms: asyncP50,
            async_p99_ms: 3, publisher_cpu_ms: 0.2, async_cpu_ms: 0.2, samples: 300)
    }
}
