import Foundation
import XCTest
@testable import LiveTableBenchmark

/// The PostgreSQL section of `livetable bench`: its targets, its place in
/// the report and the JSON, and a real run of the viewer's program on a
/// small table of a throwaway server, with psql writing. Figures are never
/// asserted against time limits here: `livetable bench` checks those.
final class PostgresBenchmarkTests: XCTestCase {
    // MARK: - Targets

    func testPostgresTargetsAreCheckedAtTwoMillionRows() {
        let measured = figures(rows: 2_000_000)
        XCTAssertEqual(measured.targets.map(\.name), [
            "postgres: first rows on screen ≤ 100 ms at 2,000,000 rows",
            "postgres: End ≤ 30 ms at 2,000,000 rows (p50)",
            "postgres: another session's commit on screen p50 ≤ 45 ms at 2,000,000 rows",
            "postgres: peak RSS ≤ 64 MB at 2,000,000 rows",
            "postgres: commit on screen p50 ≤ half the poll + 10 ms at 2,000,000 rows (51 ms before issue 25)",
            "postgres: the viewer's CPU while nothing is written, polling every 50 ms, ≤ 5 ms a second",
        ])
        XCTAssertEqual(measured.targets.map(\.met), [true, true, true, true, true, true])
        XCTAssertEqual(
            measured.targets.map(\.measured), ["40.00 ms", "5.00 ms", "30.00 ms", "30.00 MB", "30.00 ms", "2.00 ms"])

        // Other sizes: only the idle CPU's target.
        XCTAssertEqual(figures(rows: 2_000).targets.count, 1)
    }

    func testBusyWriterFiguresAreCheckedBesideTheirTargets() {
        var measured = figures(rows: 2_000)
        measured.busy = [PostgresFigures.BusyWriterFigures(
            commits_per_s: 500, writer_ms_alone: 1, writer_ms_with_viewers: 2.5,
            viewer_server_cpu_percent: [1, 4, 2])]
        let targets = measured.targets.filter { $0.name.contains("500 commits/s") }
        XCTAssertEqual(targets.map(\.measured), ["4.00%", "2.50x"])
        XCTAssertEqual(targets.map(\.met), [true, false])
        XCTAssertTrue(PostgresFigures.table([measured]).contains {
            $0.contains("a writer of 500 commits/s (pgbench): 1.00 ms a commit alone, 2.50 ms with three viewers")
        })
    }

    func testMissedPostgresTargetsAreReported() {
        let slow = figures(rows: 2_000_000, firstRows: 101, end: 31, commit: 46, idle: 5.5, rss: 65)
        XCTAssertEqual(slow.targets.map(\.met), [false, false, false, false, false, false])
        var report = BenchmarkReport(sizes: [])
        report.postgres = slow
        report.targets += slow.targets
        XCTAssertTrue(
            report.table.contains("MISSED  postgres: End ≤ 30 ms at 2,000,000 rows (p50): 31.00 ms"), report.table)
    }

    // MARK: - Report

    func testReportShowsPostgresAfterTheViewer() throws {
        var report = BenchmarkReport(sizes: [])
        report.postgres = figures(rows: 2_000_000)
        let lines = report.table.components(separatedBy: "\n")
        XCTAssertTrue(lines[0].hasPrefix("the viewer (livetable view postgres://…)"), report.table)
        XCTAssertEqual(
            lines[2].split(separator: " "), ["2,000,000", "40.0", "5.00", "4.00", "30.00", "60.00", "100", "30.0"])
        XCTAssertEqual(lines[5].split(separator: " "), ["2,000,000", "50", "2.00", "3.00", "20.0", "0.200", "0"])
        XCTAssertEqual(lines[6], "  the poll: SELECT pg_current_snapshot()")
    }

    func testJSONAddsPostgresBesideTheExistingKeys() throws {
        var report = BenchmarkReport(sizes: [])
        report.postgres = figures(rows: 2_000_000)
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as! [String: Any]
        XCTAssertEqual(Set(object.keys), ["sizes", "peak_rss_mb", "targets", "postgres"])
        let postgres = try XCTUnwrap(object["postgres"] as? [String: Any])
        XCTAssertEqual(Set(postgres.keys), [
            "rows", "first_rows_ms", "end_ms", "home_ms", "jumps", "poll_interval_ms",
            "commit_p50_ms", "commit_p99_ms", "commit_samples", "idle_cpu_ms_per_s", "idle_seconds", "idle_screens",
            "server_cpu_ms_per_s", "server_backends", "server_statements_per_s", "server_exec_ms_per_s",
            "poll_statement", "peak_rss_mb",
        ])
        XCTAssertEqual(postgres["commit_p50_ms"] as? Double, 30)
        XCTAssertEqual(try JSONDecoder().decode(BenchmarkReport.self, from: JSONEncoder().encode(report)), report)
    }

    // MARK: - A real run

    func testBenchmarkMeasuresTheViewerOnAPostgresTable() throws {
        var samples = PostgresBenchmark.Samples()
        samples.rows = 2_000
        samples.jumps = 2
        samples.commits = 5
        samples.idleSeconds = 1
        samples.quietSeconds = 1
        // The busy writer runs viewers of the livetable binary: `livetable bench` only.
        samples.busySeconds = 0
        samples.sideBySideRuns = 0
        let benchmark = PostgresBenchmark(samples: samples, frameTimeout: 20)
        let done = expectation(description: "the viewer on PostgreSQL measured")
        nonisolated(unsafe) var result: Result<PostgresFigures, Error>?  // written before `done` is fulfilled
        DispatchQueue.global().async {
            result = Result { try benchmark.run() }
            done.fulfill()
        }
        // The viewer's windows are delivered on the main queue, which
        // waiting drains.
        wait(for: [done], timeout: 180)
        let figures = try XCTUnwrap(result).get()
        XCTAssertEqual(figures.rows, 2_000)
        XCTAssertEqual(figures.jumps, 2)
        XCTAssertEqual(figures.poll_interval_ms, 50)
        XCTAssertGreaterThan(figures.first_rows_ms, 0)
        XCTAssertGreaterThan(figures.end_ms, 0)
        XCTAssertGreaterThan(figures.home_ms, 0)
        // Each commit reached the screen (the run waits for it).
        XCTAssertEqual(figures.commit_samples, 5)
        XCTAssertGreaterThan(figures.commit_p50_ms, 0)
        XCTAssertGreaterThanOrEqual(figures.commit_p99_ms, figures.commit_p50_ms)
        XCTAssertGreaterThanOrEqual(figures.idle_seconds, 1)
        XCTAssertGreaterThan(figures.idle_cpu_ms_per_s, 0)
        XCTAssertGreaterThan(figures.peak_rss_mb, 0)
        // The server saw the viewer's backends, and its poll while nothing
        // was written (20 a second at 50 ms; fewer on a loaded machine).
        XCTAssertGreaterThanOrEqual(figures.server_backends, 1)
        XCTAssertGreaterThan(figures.server_cpu_ms_per_s, 0)
        XCTAssertGreaterThan(figures.server_statements_per_s, 5)
        XCTAssertGreaterThan(figures.server_exec_ms_per_s, 0)
        XCTAssertEqual(figures.poll_statement, "SELECT pg_current_snapshot()")
        // The launch's count, once, though the token moved while it ran.
        XCTAssertGreaterThan(try XCTUnwrap(figures.launch_count_ms), 0)
        XCTAssertEqual(figures.launch_count_statements, 1)
        XCTAssertEqual(figures.targets.count, 2)
    }

    // MARK: - Support

    private func figures(
        rows: Int, firstRows: Double = 40, end: Double = 5, commit: Double = 30, idle: Double = 2,
        rss: Double = 30) -> PostgresFigures
    {
        PostgresFigures(
            rows: rows, first_rows_ms: firstRows, end_ms: end, home_ms: 4, jumps: 10, poll_interval_ms: 50,
            commit_p50_ms: commit, commit_p99_ms: 60, commit_samples: 100,
            idle_cpu_ms_per_s: idle, idle_seconds: 5, idle_screens: 0,
            server_cpu_ms_per_s: 3, server_backends: 2, server_statements_per_s: 20,
            server_exec_ms_per_s: 0.2, poll_statement: "SELECT pg_current_snapshot()", peak_rss_mb: rss)
    }
}
