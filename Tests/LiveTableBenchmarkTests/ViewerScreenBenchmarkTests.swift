import Foundation
import GRDB
import XCTest
import LiveTableCore
@testable import LiveTableBenchmark

/// The viewer's section of `livetable bench`: its targets, its place in the
/// report and the JSON, and a real run of the viewer's program on the app
/// loop, with the sqlite3 command writing. Figures are never asserted
/// against time limits here: `livetable bench` checks those.
final class ViewerScreenBenchmarkTests: XCTestCase {
    // MARK: - Targets

    func testViewerTargetsAreCheckedAtTheirSizes() {
        let small = figures(rows: 2_000_000)
        XCTAssertEqual(small.targets.map(\.met), [true, true, true, true, true])
        XCTAssertEqual(small.targets.map(\.measured), [
            "40.00 ms", "2.00 ms", "3.00 ms", "1.50 ms", "90% (90.0 of 100.0 commits/s)",
        ])
        XCTAssertEqual(small.targets[0].name, "viewer: first rows on screen ≤ 100 ms at 2,000,000 rows")

        let large = figures(rows: 10_000_000)
        XCTAssertEqual(large.targets.map(\.name), [
            "viewer: peak RSS ≤ 64 MB at 10,000,000 rows",
            "viewer: a writer keeps ≥ 50% of its commits/s with the viewer open at 10,000,000 rows",
        ])
        XCTAssertEqual(large.targets.map(\.met), [true, true])

        // Other sizes: only the writer's target.
        XCTAssertEqual(figures(rows: 5_000).targets.count, 1)
    }

    func testMissedViewerTargetsAreReported() {
        let slow = figures(rows: 2_000_000, firstRows: 101, end: 21, home: 20.5, update: 5.5, viewing: 49)
        XCTAssertEqual(slow.targets.map(\.met), [false, false, false, false, false])
        let heavy = figures(rows: 10_000_000, rss: 65)
        XCTAssertEqual(heavy.targets.map(\.met), [false, true])

        var report = BenchmarkReport(sizes: [])
        report.viewer = [slow]
        report.targets += slow.targets
        XCTAssertTrue(
            report.table.contains("MISSED  viewer: End ≤ 20 ms at 2,000,000 rows (p50): 21.00 ms"), report.table)
    }

    // MARK: - Report

    func testReportShowsTheViewerAfterTheOtherSections() throws {
        var report = BenchmarkReport(sizes: [
            BenchmarkSizeReport(rows: 1_000, pipeline: hallOfFame(), naive: nil),
        ])
        report.viewer = [figures(rows: 2_000_000)]
        let lines = report.table.components(separatedBy: "\n")
        let title = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("the viewer (livetable view)") }, report.table)
        XCTAssertLessThan(try XCTUnwrap(lines.firstIndex { $0.hasPrefix("peak RSS of the app's path") }), title)
        XCTAssertEqual(lines[title + 1].split(separator: " ").prefix(3), ["rows", "first", "rows"])
        XCTAssertEqual(
            lines[title + 2].split(separator: " "),
            ["2,000,000", "40.0", "2.00", "3.00", "1.50", "4.00", "200", "100.0", "90.0", "30.0"])
    }

    func testViewerOnlyReportHasNoHallOfFameSection() {
        var report = BenchmarkReport(sizes: [])
        report.viewer = [figures(rows: 2_000_000)]
        XCTAssertTrue(report.targets.isEmpty, "no idle target without a Hall of Fame size")
        XCTAssertTrue(report.table.hasPrefix("the viewer (livetable view)"), report.table)
        XCTAssertFalse(report.table.contains("naive / pipeline"), report.table)
    }

    func testJSONAddsTheViewerBesideTheExistingKeys() throws {
        var report = BenchmarkReport(sizes: [
            BenchmarkSizeReport(rows: 1_000, pipeline: hallOfFame(), naive: nil),
        ])
        let without = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as! [String: Any]
        XCTAssertEqual(Set(without.keys), ["sizes", "peak_rss_mb", "targets"])

        report.viewer = [figures(rows: 2_000_000)]
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as! [String: Any]
        XCTAssertEqual(Set(object.keys), ["sizes", "peak_rss_mb", "targets", "viewer"])
        let viewer = try XCTUnwrap((object["viewer"] as? [[String: Any]])?.first)
        XCTAssertEqual(Set(viewer.keys), [
            "rows", "first_rows_ms", "end_ms", "home_ms", "jumps", "update_p50_ms", "update_p99_ms",
            "update_samples", "writer_commits_per_s", "writer_commits_per_s_viewing",
            "viewer_screens_while_writing", "peak_rss_mb",
            "sort_indexed_ms", "sort_unindexed_ms", "sort_samples",
            "update_sorted_unindexed_p50_ms", "update_sorted_unindexed_p99_ms", "update_sorted_unindexed_samples",
            "search_ms", "search_next_ms", "filter_first_rows_ms", "filter_count_ms", "filter_rows",
        ])
        XCTAssertEqual(viewer["rows"] as? Int, 2_000_000)
        XCTAssertEqual(viewer["first_rows_ms"] as? Double, 40)
        XCTAssertEqual(try JSONDecoder().decode(BenchmarkReport.self, from: JSONEncoder().encode(report)), report)
    }

    // MARK: - A real run

    func testBenchmarkMeasuresTheViewerOnAGeneratedTable() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("livetable-viewer-benchmark-test-\(UUID().uuidString)")
        let suite = ViewerScreenSuite(sizes: [3_000], directory: directory)
        var generated: String?
        let results = try suite.run { path in
            generated = path
            var samples = ViewerScreenBenchmark.Samples()
            samples.jumps = 2
            samples.updates = 5
            samples.sorts = 2
            samples.sortedUpdates = 3
            samples.writerSeconds = 0.3
            let benchmark = ViewerScreenBenchmark(path: path, samples: samples, frameTimeout: 20)
            let done = expectation(description: "viewer measured")
            nonisolated(unsafe) var result: Result<ViewerScreenFigures, Error>?  // written before `done` is fulfilled
            DispatchQueue.global().async {
                result = Result { try benchmark.run() }
                done.fulfill()
            }
            // The viewer's observation delivers on the main queue, which
            // waiting drains.
            wait(for: [done], timeout: 120)
            // The viewer left no -wal behind on a rollback-journal file,
            // and the other process wrote what it says.
            XCTAssertFalse(FileManager.default.fileExists(atPath: path + "-wal"))
            let notes = try DatabaseQueue(path: path).read { db in
                try String.fetchAll(db, sql: "SELECT note FROM item WHERE note LIKE 'live %' ORDER BY note")
            }
            XCTAssertEqual(Set(notes), ["live 0", "live 1", "live 2", "live 3", "live 4"])
            // While sorted by name, the other process updated rows that
            // were on screen, the first rows by name, descending.
            let sorted = try DatabaseQueue(path: path).read { db in
                try String.fetchAll(db, sql: "SELECT name FROM item WHERE note LIKE 'sorted %' ORDER BY name DESC")
            }
            let last = try DatabaseQueue(path: path).read { db in
                try String.fetchAll(db, sql: "SELECT name FROM item ORDER BY name DESC LIMIT 3")
            }
            XCTAssertEqual(sorted, last)
            let figures = try XCTUnwrap(result).get()
            // The filter's count is the count of its rows.
            XCTAssertEqual(figures.filter_rows, try DatabaseQueue(path: path).read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item WHERE note LIKE '%77777%'")
            })
            return figures
        }
        let figures = try XCTUnwrap(results.first)
        XCTAssertEqual(results.count, 1)
        XCTAssertEqual(figures.rows, 3_000)
        XCTAssertEqual(figures.jumps, 2)
        XCTAssertEqual(figures.update_samples, 5)
        XCTAssertGreaterThan(figures.first_rows_ms, 0)
        XCTAssertGreaterThan(figures.end_ms, 0)
        XCTAssertGreaterThan(figures.home_ms, 0)
        XCTAssertGreaterThanOrEqual(figures.update_p99_ms, figures.update_p50_ms)
        XCTAssertGreaterThan(figures.writer_commits_per_s, 0)
        XCTAssertGreaterThan(figures.writer_commits_per_s_viewing, 0)
        XCTAssertGreaterThan(figures.viewer_screens_while_writing, 0, "the viewer followed the writer")
        XCTAssertGreaterThan(figures.peak_rss_mb, 0)
        XCTAssertEqual(figures.sort_samples, 2)
        XCTAssertGreaterThan(figures.sort_indexed_ms, 0)
        XCTAssertGreaterThan(figures.sort_unindexed_ms, 0)
        XCTAssertEqual(figures.update_sorted_unindexed_samples, 3)
        XCTAssertGreaterThanOrEqual(figures.update_sorted_unindexed_p99_ms, figures.update_sorted_unindexed_p50_ms)
        XCTAssertGreaterThan(figures.search_ms, 0)
        XCTAssertGreaterThan(figures.search_next_ms, 0)
        XCTAssertGreaterThan(figures.filter_first_rows_ms, 0)
        XCTAssertGreaterThanOrEqual(figures.filter_count_ms, figures.filter_first_rows_ms)
        XCTAssertEqual(figures.targets.count, 1)
        // The suite removes what it generated.
        XCTAssertFalse(FileManager.default.fileExists(atPath: try XCTUnwrap(generated)))
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path))
    }

    // MARK: - Support

    private func figures(
        rows: Int, firstRows: Double = 40, end: Double = 2, home: Double = 3, update: Double = 1.5,
        viewing: Double = 90, rss: Double = 30) -> ViewerScreenFigures
    {
        ViewerScreenFigures(
            rows: rows, first_rows_ms: firstRows, end_ms: end, home_ms: home, jumps: 10,
            update_p50_ms: update, update_p99_ms: 4, update_samples: 200,
            writer_commits_per_s: 100, writer_commits_per_s_viewing: viewing,
            viewer_screens_while_writing: 150, peak_rss_mb: rss,
            sort_indexed_ms: 2, sort_unindexed_ms: 800, sort_samples: 3,
            update_sorted_unindexed_p50_ms: 700, update_sorted_unindexed_p99_ms: 900,
            update_sorted_unindexed_samples: 10)
    }

    private func hallOfFame() -> BenchmarkFigures {
        BenchmarkFigures(
            p50_ms: 1, p99_ms: 2, samples: 200, updates_per_s: 100,
            first_frame_ms: 5, navigation_p50_ms: 1, idle_cpu_ms: 0, peak_rss_mb: 30)
    }
}
