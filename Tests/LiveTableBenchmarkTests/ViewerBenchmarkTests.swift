import Foundation
import XCTest
@testable import LiveTableBenchmark
import LiveTableCore
import LiveTableTestSupport

/// The viewer's benchmark table: the rows it holds, an index on score and
/// none on name, as the viewer sees them.
final class ViewerBenchmarkTests: XCTestCase {
    func testMeasuresTheTableItMade() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("bench.sqlite").path
        try ViewerBenchmark.makeTable(atPath: path, rows: 2_000)
        XCTAssertEqual(try ForeignFile.sqlite3(path, "SELECT COUNT(*), COUNT(note) FROM item;"), "2000|1800\n")
        let sha256 = try ForeignFile.sha256(path)

        // Opened as the viewer opens it: an index on score, none on name.
        let database = try SQLiteDataSource.open(path: path)
        let byScore = try database.read { db in
            try ViewedSource.open(.table("item"), sortColumn: "score", descending: false, in: db)
        }
        XCTAssertEqual(try database.read { db in try byScore.source.exactRowCount(db) }, 2_000)
        XCTAssertEqual(byScore.cost, .indexSearch)

        let byName = try database.read { db in
            try ViewedSource.open(.table("item"), sortColumn: "name", descending: true, in: db)
        }
        XCTAssertEqual(byName.cost, .scan)
        XCTAssertEqual(try ForeignFile.sha256(path), sha256)
    }
}
