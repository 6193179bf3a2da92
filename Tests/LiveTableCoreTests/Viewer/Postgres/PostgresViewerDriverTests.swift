import Foundation
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// The update driver of the viewer's tests on PostgreSQL: the same keys,
/// sheets and commits of another session as on a SQLite file.
final class PostgresViewerDriverTests: XCTestCase {
    private func makeDriver(_ name: String) throws -> ViewerDriver {
        let dataSource = try PostgresTestDatabase.open(name, sql: """
            CREATE TABLE item(id int PRIMARY KEY, name text, price int);
            INSERT INTO item SELECT i, 'item ' || lpad(i::text, 3, '0'), i * 10 FROM generate_series(1, 100) i;
            """)
        return try ViewerDriver(dataSource: dataSource, target: .table("item"), anotherCommit: { sql in
            _ = try PostgresTestDatabase.write(name, sql)
        })
    }

    private func name(_ driver: ViewerDriver) -> String? {
        driver.selected(1).map { "\($0.storage.value ?? "NULL")" }
    }

    func testKeysSheetsAndAnotherSessionsCommitsDriveTheViewerOnPostgres() throws {
        let driver = try makeDriver("viewerDriverKeys")
        XCTAssertEqual(name(driver), "item 001")
        try driver.type("ll]jj")  // price ↓, third row
        XCTAssertEqual(name(driver), "item 098")

        try driver.type(":")
        XCTAssertEqual(driver.state.prompt?.kind, .query)
        XCTAssertTrue(driver.state.prompt?.text.contains("ORDER BY") == true, driver.state.prompt?.text ?? "")
        try driver.send(.key(.control("u")))
        try driver.send(.key(.paste("SELECT name, price FROM item WHERE price > 950")))
        try driver.send(.key(.enter))
        XCTAssertEqual(driver.state.sheets, [.table("item")])
        XCTAssertEqual(driver.state.table?.window?.rows.count, 5)

        // Another session's commit: the query sheet's window is read again.
        try driver.commit("UPDATE item SET price = 2000 WHERE id = 1;")
        XCTAssertEqual(driver.state.table?.window?.rows.count, 6)

        // A query that writes is refused, and stays on its prompt.
        try driver.type(":")
        try driver.send(.key(.control("u")))
        try driver.send(.key(.paste("DELETE FROM item")))
        try driver.send(.key(.enter))
        XCTAssertEqual(driver.state.prompt?.text, "DELETE FROM item")
        try driver.send(.key(.escape))

        // q: the table, sorted and selected as it was.
        try driver.type("q")
        XCTAssertEqual(driver.state.table?.viewed.target, .table("item"))
        XCTAssertEqual(driver.state.table?.viewed.ordering.sortColumn, "price")
        XCTAssertEqual(name(driver), "item 098")
        XCTAssertEqual(try driver.type("q"), [.quit])
    }
}
