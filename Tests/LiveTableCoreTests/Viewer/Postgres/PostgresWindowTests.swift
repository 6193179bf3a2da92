import Foundation
import GRDB
import PostgresServer
import XCTest
@testable import LiveTableCore

/// Windows of PostgreSQL tables through `PostgresDatabase`: first, last,
/// around a position, both ways, with NULLs and duplicates, compared with
/// the server's own `ORDER BY`.
final class PostgresWindowTests: XCTestCase {
    private static let name = "windowTests"
    private static let sql = """
        CREATE TABLE item(id int PRIMARY KEY, name text, price numeric);
        CREATE INDEX item_price ON item(price);
        INSERT INTO item SELECT i, 'item ' || lpad(i::text, 3, '0'),
            CASE WHEN i % 7 = 0 THEN NULL ELSE (i % 5) * 10 + 0.5 END
            FROM generate_series(1, 120) i;
        """

    private func database() throws -> PostgresDatabase {
        try PostgresTestDatabase.open(Self.name, sql: Self.sql)
    }

    func testFirstWindowOfTheNaturalOrder() throws {
        let database = try database()
        let viewed = try database.open(.table("item"), sortColumn: nil, descending: false, ticket: ReadTicket())
        XCTAssertEqual(viewed.source.identity, .primaryKey(["id"]))
        XCTAssertEqual(viewed.cost, .indexSearch)
        let request = RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 3)
        let window = try database.fetchWindow(viewed, request, ticket: ReadTicket())
        XCTAssertEqual(texts(window), [["1", "item 001", "10.5"], ["2", "item 002", "20.5"], ["3", "item 003", "30.5"]])
        XCTAssertEqual(window.rowsBefore, 0)
    }
}
