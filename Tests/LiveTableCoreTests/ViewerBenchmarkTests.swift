import Foundation
import XCTest
@testable import LiveTableBenchmark
import LiveTableCore

/// The viewer's benchmark drives the real window path: its figures are
/// about the table it made, with the cost the schema gives.
final class ViewerBenchmarkTests: XCTestCase {
    func testMeasuresTheTableItMade() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("bench.sqlite").path
        try ViewerBenchmark.makeTable(atPath: path, rows: 2_000)
        XCTAssertEqual(try ForeignFile.sqlite3(path, "SELECT COUNT(*), COUNT(note) FROM item;"), "2000|1800\n")
        let sha256 = try ForeignFile.sha256(path)

        let byScore = try ViewerBenchmark.measure(path: path, table: "item", sortColumn: "score", repetitions: 3)
        XCTAssertEqual(byScore.rowCount, 2_000)
        XCTAssertEqual(byScore.cost, .indexSearch)
        XCTAssertEqual(byScore.end.count, 3)

        let byName = try ViewerBenchmark.measure(path: path, table: "item", sortColumn: "name", descending: true, repetitions: 3)
        XCTAssertEqual(byName.cost, .scan)
        XCTAssertEqual(try ForeignFile.sha256(path), sha256)
    }
}
