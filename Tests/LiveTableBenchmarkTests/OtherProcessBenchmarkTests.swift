import Foundation
import XCTest
@testable import LiveTableBenchmark
import LiveTableCore

/// The other-process section of `livetable bench`: its targets, its JSON,
/// and a real run against the `sqlite3` command. Figures are never asserted
/// against time limits here: `livetable bench` checks those.
final class OtherProcessBenchmarkTests: XCTestCase {
    func testTargetsAreMetWithinTheLimitsOnly() {
        let met = figures(p50: 2, p99: 10, idle: 5, burstValues: 9_999, burstFinal: 1000)
        XCTAssertEqual(met.targets.map(\.met), [true, true, true, true])
        XCTAssertEqual(met.targets.map(\.measured), ["2.00 ms", "10.00 ms", "5.00 ms", "9999 values, last after 1000.00 ms"])
        XCTAssertEqual(met.targets.first?.name, "another process's commit p50 ≤ 2 ms (WAL)")

        let missed = figures(p50: 2.01, p99: 10.01, idle: 5.01, burstValues: 10_000, burstFinal: 1)
        XCTAssertEqual(missed.targets.map(\.met), [false, false, false, false])
        let late = figures(p50: 1, p99: 1, idle: 0, burstValues: 10, burstFinal: 1000.01)
        XCTAssertEqual(late.targets.map(\.met), [true, true, true, false])
    }

    func testReportEncodesOtherProcessesBesideTheExistingKeys() throws {
        var report = BenchmarkReport(sizes: [])
        report.other_processes = [figures(p50: 1, p99: 2, idle: 0, burstValues: 10, burstFinal: 1)]
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as! [String: Any]
        XCTAssertEqual(Set(object.keys), ["sizes", "peak_rss_mb", "targets", "other_processes"])
        let entry = try XCTUnwrap((object["other_processes"] as? [[String: Any]])?.first)
        XCTAssertEqual(entry["journal_mode"] as? String, "wal")
        for key in ["p50_ms", "p99_ms", "idle_cpu_ms", "burst_final_ms"] {
            XCTAssertNotNil(entry[key] as? Double, key)
        }
        for key in ["rows", "samples", "burst_commits", "burst_values"] {
            XCTAssertNotNil(entry[key] as? Int, key)
        }
        // Without the section, the report is what it was.
        let plain = try JSONSerialization.jsonObject(with: JSONEncoder().encode(BenchmarkReport(sizes: []))) as! [String: Any]
        XCTAssertEqual(Set(plain.keys), ["sizes", "peak_rss_mb", "targets"])
    }

    func testBenchmarkMeasuresBothJournalModesWithTheSqlite3Command() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("livetable-other-process-benchmark-test-\(UUID().uuidString)")
        let benchmark = OtherProcessBenchmark(directory: directory, rows: 500, samples: 10, burstCommits: 200)
        let figures = try benchmark.run()
        XCTAssertEqual(figures.map(\.journal_mode), ["wal", "delete"])
        for figure in figures {
            XCTAssertEqual(figure.rows, 500, figure.journal_mode)
            XCTAssertEqual(figure.samples, 10, figure.journal_mode)
            XCTAssertGreaterThanOrEqual(figure.p99_ms, figure.p50_ms, figure.journal_mode)
            XCTAssertEqual(figure.burst_commits, 200, figure.journal_mode)
            XCTAssertGreaterThan(figure.burst_values, 0, figure.journal_mode)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path), "the databases are removed")
    }

    private func figures(p50: Double, p99: Double, idle: Double, burstValues: Int, burstFinal: Double) -> OtherProcessFigures {
        OtherProcessFigures(
            journal_mode: "wal", rows: 100_000, p50_ms: p50, p99_ms: p99, samples: 300, idle_cpu_ms: idle,
            burst_commits: 10_000, burst_values: burstValues, burst_final_ms: burstFinal)
    }
}
