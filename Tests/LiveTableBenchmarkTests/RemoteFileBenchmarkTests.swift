import Foundation
import LiveTableBenchmark
import XCTest

/// `livetable bench`'s figures of a file that another machine writes: the
/// measure runs on a real FUSE mount, the targets are checked, and the
/// FUSE part is skipped with its reason where no mount can be made.
final class RemoteFileBenchmarkTests: XCTestCase {
    private var directory: URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("RemoteFileBenchmarkTests-\(UUID().uuidString)")
    }

    func testWritesBehindAFuseMountAreMeasuredToTheSubscriberAndTheScreen() throws {
        let figures = try MainActor.assumeIsolated {
            try RemoteFileBenchmark(directory: directory, samples: 5).run()
        }
        XCTAssertNil(figures.fuse_skipped)
        XCTAssertEqual(figures.samples, 5)
        XCTAssertEqual(figures.interval_ms, 100)
        // No bound on the latencies here (the machine is shared): that they
        // were measured, in order.
        let subscriber = try XCTUnwrap(figures.subscriber_p50_ms)
        XCTAssertGreaterThan(subscriber, 0)
        XCTAssertLessThanOrEqual(subscriber, try XCTUnwrap(figures.subscriber_p90_ms))
        let screen = try XCTUnwrap(figures.screen_p50_ms)
        XCTAssertGreaterThan(screen, 0)
        XCTAssertLessThanOrEqual(screen, try XCTUnwrap(figures.screen_p90_ms))
        XCTAssertNotNil(figures.fuse_idle_cpu_ms)
        XCTAssertEqual(figures.targets.count, 3)
        XCTAssertTrue(figures.table.contains { $0.hasPrefix("  subscriber p50 ") }, "\(figures.table)")
    }

    func testFusePartIsSkippedWithItsReasonWithoutBindfs() throws {
        // A PATH with sqlite3, the other process, but neither bindfs nor
        // fusermount.
        let bin = directory
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: bin) }
        try FileManager.default.createSymbolicLink(
            atPath: bin.appendingPathComponent("sqlite3").path, withDestinationPath: "/usr/bin/sqlite3")
        let path = ProcessInfo.processInfo.environment["PATH"]
        setenv("PATH", bin.path, 1)
        defer { _ = path.map { setenv("PATH", $0, 1) } ?? unsetenv("PATH") }
        let figures = try MainActor.assumeIsolated {
            try RemoteFileBenchmark(directory: directory, samples: 5).run()
        }
        XCTAssertEqual(figures.fuse_skipped, "bindfs is not installed (apt-get install bindfs)")
        XCTAssertNil(figures.screen_p90_ms)
        XCTAssertNil(figures.fuse_idle_cpu_ms)
        XCTAssertEqual(figures.targets.map(\.name), ["a local file costs no CPU while nothing is written (≤ 1 ms in 1 s)"])
        XCTAssertTrue(figures.table.contains("  skipped: bindfs is not installed (apt-get install bindfs)"), "\(figures.table)")
    }

    func testRemoteFileTargets() {
        var figures = RemoteFileFigures(
            fuse_skipped: nil, interval_ms: 100, subscriber_p50_ms: 50, subscriber_p90_ms: 90,
            screen_p50_ms: 55, screen_p90_ms: 119, samples: 40, fuse_idle_cpu_ms: 3, local_idle_cpu_ms: 0.01)
        XCTAssertEqual(figures.targets.map(\.met), [true, true, true])
        figures.screen_p90_ms = 121
        figures.fuse_idle_cpu_ms = 5.5
        figures.local_idle_cpu_ms = 2
        XCTAssertEqual(figures.targets.map(\.met), [false, false, false])
    }
}
