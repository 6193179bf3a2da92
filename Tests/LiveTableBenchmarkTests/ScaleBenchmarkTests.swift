import Foundation
import XCTest
@testable import LiveTableBenchmark

/// The `scale` section of `livetable bench` (issue 25): its targets, and its
/// place in the report. The measurements themselves run in `livetable bench
/// --only scale`; ReactiveGRDB's tests check the behaviours.
final class ScaleBenchmarkTests: XCTestCase {
    func testTargetsAreMetWithinTheirLimits() {
        let figures = self.figures()
        XCTAssertEqual(figures.targets.map(\.met), Array(repeating: true, count: 9))
        XCTAssertEqual(figures.targets[1].name, "shared observation, 10 consumers: ≤ 1 fetch per commit")
        XCTAssertEqual(figures.targets[1].measured, "100 fetches / 100 commits")
    }

    func testMissedTargetsAreReported() {
        var figures = self.figures()
        figures.shared[3].fetches = 101
        figures.bystander_values = 12
        figures.pool_values = 101
        figures.feed_states = 13
        XCTAssertEqual(figures.targets.map(\.met), [true, true, true, false, true, true, false, false, false])
        var report = BenchmarkReport(sizes: [])
        report.scale = figures
        report.targets += figures.targets
        XCTAssertTrue(report.table.contains(
            "MISSED  an observation that did not ask is not refreshed (2 values: a pool's first, twice): 12 values / 10 commits"),
            report.table)
        XCTAssertTrue(report.table.contains("  async feed beside a 1 s sink: 13 of 15 states, p50 1.50 ms, max 9.00 ms"), report.table)
    }

    private func figures() -> ScaleFigures {
        ScaleFigures(
            commits: 100,
            shared: [1, 10, 50, 200].map { ScaleFigures.SharedFetches(consumers: $0, fetches: 100) },
            publisher_50_fetches: 100, notifications_50: 100, crosstalk_commits: 10, bystander_values: 2,
            pool_values: 100, pool_fetches: 100, feed_commits: 15, feed_states: 15, feed_p50_ms: 1.5, feed_max_ms: 9)
    }
}
