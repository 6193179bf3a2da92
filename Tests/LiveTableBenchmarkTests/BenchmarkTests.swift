import Foundation
import GRDB
import XCTest
import LiveTableCore
import LiveTableTestSupport
@testable import LiveTableBenchmark

/// The benchmark's machinery: percentiles, targets, and a real run of both
/// modes on a small database. Figures are never asserted against time
/// limits here: `livetable bench` checks those.
final class BenchmarkTests: XCTestCase {
    // MARK: - Percentiles

    func testLatencySummaryUsesNearestRankPercentiles() throws {
        let samples = (1...200).map { Double($0) / 1000 }.shuffled()
        let summary = try XCTUnwrap(LatencySummary(seconds: samples))
        XCTAssertEqual(summary.count, 200)
        XCTAssertEqual(summary.p50, 100, accuracy: 1e-9)
        XCTAssertEqual(summary.p99, 198, accuracy: 1e-9)
    }

    func testLatencySummaryOfOneSample() throws {
        let summary = try XCTUnwrap(LatencySummary(seconds: [0.004]))
        XCTAssertEqual(summary.p50, 4, accuracy: 1e-9)
        XCTAssertEqual(summary.p99, 4, accuracy: 1e-9)
    }

    func testLatencySummaryOfNoSampleIsNil() {
        XCTAssertNil(LatencySummary(seconds: []))
    }

    // MARK: - Process figures

    func testCPUOfAnotherProcessIsReadFromProc() throws {
        let busy = Process()
        busy.executableURL = URL(fileURLWithPath: "/bin/sh")
        busy.arguments = ["-c", "while :; do :; done"]
        try busy.run()
        defer {
            busy.terminate()
            busy.waitUntilExit()
        }
        waitUntil("the busy shell used 50 ms of CPU") {
            (ProcessMetrics.cpuSeconds(ofProcess: busy.processIdentifier) ?? 0) >= 0.05
        }
        XCTAssertNil(ProcessMetrics.cpuSeconds(ofProcess: -1))
    }

    // MARK: - Targets

    func testTargetOfAFigureWritesItWithItsUnitAndMeetsItsLimitInclusive() {
        XCTAssertEqual(
            BenchmarkTarget("End ≤ 30 ms", 30, " ms", atMost: 30),
            BenchmarkTarget(name: "End ≤ 30 ms", measured: "30.00 ms", met: true))
        XCTAssertEqual(BenchmarkTarget("End ≤ 30 ms", 30.004, " ms", atMost: 30).met, false)
        XCTAssertEqual(
            BenchmarkTarget("≥ 100x", 99.996, "x", atLeast: 100),
            BenchmarkTarget(name: "≥ 100x", measured: "100.00x", met: false))
        XCTAssertEqual(BenchmarkTarget("≥ 100x", 100, "x", atLeast: 100).met, true)
    }

    func testTargetsAreCheckedForTheMeasuredSizes() {
        let report = BenchmarkReport(sizes: [
            BenchmarkSizeReport(rows: 100_000, pipeline: figures(p50: 1), naive: figures(p50: 150)),
            BenchmarkSizeReport(rows: 1_000_000, pipeline: figures(p50: 1, p99: 4, firstFrame: 20), naive: nil),
            BenchmarkSizeReport(rows: 10_000_000, pipeline: figures(p50: 1, rss: 40), naive: nil),
        ])
        XCTAssertEqual(report.targets.map(\.met), [true, true, true, true, true])
        XCTAssertEqual(report.targets.map(\.measured), ["4.00 ms", "20.00 ms", "150.00x", "40.00 MB", "0.00 ms"])
        XCTAssertEqual(report.peak_rss_mb, 40)
        XCTAssertTrue(report.table.contains("met     pipeline p99 ≤ 5 ms at 1,000,000 rows: 4.00 ms"), report.table)
    }

    func testMissedTargetsAreReported() {
        let report = BenchmarkReport(sizes: [
            BenchmarkSizeReport(rows: 100_000, pipeline: figures(p50: 10), naive: figures(p50: 150)),
            BenchmarkSizeReport(rows: 1_000_000, pipeline: figures(p50: 1, p99: 6, firstFrame: 250), naive: nil),
            BenchmarkSizeReport(rows: 10_000_000, pipeline: figures(p50: 1, rss: 65, idle: 30), naive: nil),
        ])
        XCTAssertEqual(report.targets.map(\.met), [false, false, false, false, false])
        XCTAssertTrue(report.table.contains("MISSED  peak RSS ≤ 64 MB at 10,000,000 rows: 65.00 MB"), report.table)
    }

    func testOnlyTheIdleTargetAppliesToSmallSizes() {
        let report = BenchmarkReport(sizes: [
            BenchmarkSizeReport(rows: 1_000, pipeline: figures(p50: 1), naive: figures(p50: 2)),
        ])
        XCTAssertEqual(report.targets.count, 1)
        XCTAssertTrue(report.targets[0].name.hasPrefix("no CPU"))
    }

    func testReportEncodesTheDocumentedJSONKeys() throws {
        let report = BenchmarkReport(sizes: [
            BenchmarkSizeReport(rows: 1_000, pipeline: figures(p50: 1), naive: figures(p50: 2)),
        ])
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as! [String: Any]
        XCTAssertNotNil(object["peak_rss_mb"] as? Double)
        let size = try XCTUnwrap((object["sizes"] as? [[String: Any]])?.first)
        XCTAssertEqual(size["rows"] as? Int, 1_000)
        for mode in ["pipeline", "naive"] {
            let figures = try XCTUnwrap(size[mode] as? [String: Any], mode)
            for key in ["p50_ms", "p99_ms", "updates_per_s", "first_frame_ms"] {
                XCTAssertNotNil(figures[key] as? Double, "\(mode).\(key)")
            }
        }
    }

    // MARK: - A real run

    func testBenchmarkMeasuresBothModesOnAGeneratedDatabase() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("livetable-benchmark-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("players.sqlite").path
        try BenchmarkSuite.generateDatabase(at: path, rows: 2_000)
        XCTAssertEqual(try DatabaseQueue(path: path).read(AppDatabase.playerCount), 2_000)

        for mode in BenchmarkMode.allCases {
            let benchmark = HallOfFameBenchmark(
                path: path, mode: mode, latencySamples: 10, burstSeconds: 0.2, idleSeconds: 0.1, frameTimeout: 20,
                sampleBudgetSeconds: 100)
            let done = expectation(description: "\(mode) measured")
            nonisolated(unsafe) var result: Result<BenchmarkFigures, Error>?  // written before `done` is fulfilled
            DispatchQueue.global().async {
                result = Result { try benchmark.run() }
                done.fulfill()
            }
            // The observation delivers on the main queue, which waiting drains.
            wait(for: [done], timeout: 120)
            let figures = try XCTUnwrap(result).get()
            XCTAssertEqual(figures.samples, 10, "\(mode)")
            XCTAssertGreaterThan(figures.p50_ms, 0, "\(mode)")
            XCTAssertGreaterThanOrEqual(figures.p99_ms, figures.p50_ms, "\(mode)")
            XCTAssertGreaterThan(figures.updates_per_s, 0, "\(mode)")
            XCTAssertGreaterThan(figures.first_frame_ms, 0, "\(mode)")
            XCTAssertGreaterThan(figures.peak_rss_mb, 0, "\(mode)")
            XCTAssertEqual(figures.navigation_p50_ms != nil, mode == .pipeline, "\(mode)")
        }
        // The benchmark removes the players it inserts.
        XCTAssertEqual(try DatabaseQueue(path: path).read(AppDatabase.playerCount), 2_000)
    }

    private func figures(
        p50: Double, p99: Double? = nil, firstFrame: Double = 5,
        rss: Double = 30, idle: Double = 0) -> BenchmarkFigures
    {
        BenchmarkFigures(
            p50_ms: p50, p99_ms: p99 ?? p50, samples: 200, updates_per_s: 100,
            first_frame_ms: firstFrame, navigation_p50_ms: 1, idle_cpu_ms: idle, peak_rss_mb: rss)
    }
}
