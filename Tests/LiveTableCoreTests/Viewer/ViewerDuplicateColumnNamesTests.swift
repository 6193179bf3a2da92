import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// A query whose columns share a name (`SELECT a.id, b.id …`): the sheet
/// names them `id` and `id 2` (its header keeps `id` twice), and `#`,
/// Enter on a group, the sort and `I` act on the column under the cursor,
/// not on the first of that name.
final class ViewerDuplicateColumnNamesTests: XCTestCase {
    /// Its rows: (1, 30), (1, 20), (2, 10).
    static let tables = """
        CREATE TABLE a(id integer PRIMARY KEY, label text);
        CREATE TABLE b(id integer PRIMARY KEY, a_id integer);
        INSERT INTO a VALUES (1, 'x'), (2, 'y');
        INSERT INTO b VALUES (10, 2), (20, 1), (30, 1);
        """
    static let query = ViewerTarget.query("SELECT a.id, b.id FROM a JOIN b ON b.a_id = a.id")

    func testSQLite() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("shop.sqlite").path
        try ForeignFile.sqlite3(path, Self.tables)
        try check(try ViewerDriver(path: path, target: Self.query, width: 100, height: 12))
    }

    func testPostgres() throws {
        let dataSource = try PostgresTestDatabase.open("viewerDuplicateNames", sql: Self.tables)
        try check(try ViewerDriver(dataSource: dataSource, target: Self.query, width: 100, height: 12) { _ in })
    }

    private func check(_ driver: ViewerDriver) throws {
        XCTAssertEqual(driver.state.table?.viewed.source.columnNames, ["id", "id 2"])
        // The header keeps the query's names.
        XCTAssertEqual(driver.lines[1].split(separator: " "), ["id", "id"], driver.lines.joined(separator: "\n"))
        // `]` on the second id: b's ids, descending.
        try driver.type("l]")
        XCTAssertEqual(driver.state.table?.currentColumnName, "id 2")
        XCTAssertEqual(column(driver, 1), [30, 20, 10])
        // `#`: b's ids, one each.
        try driver.type("#")
        XCTAssertEqual(column(driver, 0), [10, 20, 30])
        XCTAssertEqual(column(driver, 1), [1, 1, 1])
        // Enter on 10: the query's rows whose second id is 10.
        try driver.send(.key(.enter))
        XCTAssertEqual(driver.state.table?.viewed.target, Self.query)
        XCTAssertEqual(driver.state.table?.window?.rows.map { $0.map(Self.integer) }, [[2, 10]])
        // `I` on the whole query: b's ids are three distinct values.
        try driver.type("qqI")
        let describe = try XCTUnwrap(driver.state.table)
        let names = describe.viewed.source.columnNames
        let distinct = try XCTUnwrap(names.firstIndex(of: "distinct"))
        let column = try XCTUnwrap(names.firstIndex(of: "column"))
        XCTAssertEqual(describe.window?.rows.map { [ViewerFrequencyTests.text($0[column]), ViewerFrequencyTests.text($0[distinct])] },
                       [["id", "2"], ["id 2", "3"]])
    }

    private func column(_ driver: ViewerDriver, _ index: Int) -> [Int64?] {
        driver.state.table?.window?.rows.map { Self.integer($0[index]) } ?? []
    }

    private static func integer(_ value: DatabaseValue) -> Int64? {
        Int64.fromDatabaseValue(value) ?? String.fromDatabaseValue(value).flatMap { Int64($0) }
    }
}
