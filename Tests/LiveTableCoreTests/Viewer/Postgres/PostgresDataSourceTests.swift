import Foundation
import GRDB
import OpenCombine
import PostgresServer
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// `ViewerDataSourceTests`' contract, kept by `PostgresDatabase` through
/// `any ViewerDataSource` only; and what another session's ALTER or DROP
/// does to the source on screen.
final class PostgresDataSourceTests: XCTestCase {
    private static let name = "dataSourceTests"
    private static let sql = """
        CREATE TABLE item(id int PRIMARY KEY, name text, price int);
        INSERT INTO item SELECT i, 'item ' || lpad(i::text, 2, '0'), i * 10 FROM generate_series(1, 12) i;
        CREATE VIEW cheap AS SELECT * FROM item WHERE price < 100;
        """

    private func itemsSource() throws -> any ViewerDataSource {
        try PostgresTestDatabase.open(Self.name, sql: Self.sql)
    }

    func testNameTablesCountsAndOpening() throws {
        let dataSource = try itemsSource()
        XCTAssertTrue(dataSource.name.hasPrefix("\(Self.name) on "))
        let tables = try dataSource.listTables(ticket: ReadTicket())
        XCTAssertEqual(tables.map(\.name), ["cheap", "item"])
        XCTAssertEqual(tables.map(\.kind), [.view, .table])
        XCTAssertEqual(try dataSource.quickRowCount(ofTable: "item", kind: .table, ticket: ReadTicket()), .exact(12))

        let viewed = try dataSource.open(.table("item"), sortColumn: "price", descending: true, ticket: ReadTicket())
        XCTAssertEqual(viewed.source.name, "item")
        let count = try dataSource.countRows(of: viewed.source, ticket: ReadTicket())
        XCTAssertEqual(count, .exact(12))
    }

    func testSearchFilterMissingRowsAndExport() throws {
        let dataSource = try itemsSource()
        let viewed = try dataSource.open(.table("item"), sortColumn: nil, descending: false, ticket: ReadTicket())

        let found = try dataSource.search(RowSearch(text: "item 11", column: 1, forward: true, from: nil), in: viewed, ticket: ReadTicket())
        XCTAssertEqual(found.match?.key, [11.databaseValue])

        let filtered = try dataSource.filter(viewed, by: "price > 100", ticket: ReadTicket())
        XCTAssertEqual(try dataSource.countRows(of: filtered.viewed.source, ticket: ReadTicket()).value, 2)
        XCTAssertThrowsError(try dataSource.filter(viewed, by: "no_such_column = 1", ticket: ReadTicket())) { error in
            XCTAssertTrue(dataSource.describe(error).contains("no_such_column"), dataSource.describe(error))
            XCTAssertFalse(dataSource.describe(error).contains("\n"))
        }

        let keys = [StoredKey([3.databaseValue]), StoredKey([99.databaseValue])]
        XCTAssertEqual(try dataSource.missingRows(of: viewed.source, among: keys, ticket: ReadTicket()), [keys[1]])

        var csv = Data()
        let summary = try dataSource.export(viewed.source, format: .csv) { csv.append(contentsOf: $0) }
        XCTAssertEqual(summary.rowCount, 12)
        XCTAssertTrue(String(decoding: csv, as: UTF8.self).hasPrefix("id,name,price\r\n1,item 01,10\r\n"))
    }

    func testAMissingTableIsAMissingSource() throws {
        let dataSource = try itemsSource()
        XCTAssertThrowsError(
            try dataSource.open(.table("gone"), sortColumn: nil, descending: false, ticket: ReadTicket())) { error in
            XCTAssertEqual(dataSource.failureKind(of: error), .missingSource)
            XCTAssertTrue(dataSource.describe(error).contains("gone"), dataSource.describe(error))
        }
    }

    func testAnAbandonedTicketStopsTheReadBeforeItStarts() throws {
        let dataSource = try itemsSource()
        let ticket = ReadTicket()
        ticket.abandon()
        XCTAssertThrowsError(try dataSource.listTables(ticket: ticket))
        XCTAssertEqual(try dataSource.listTables(ticket: ReadTicket()).count, 2)
    }

    func testWindowsArriveOnTheMainQueue() throws {
        let dataSource = try itemsSource()
        let viewed = try dataSource.open(.table("item"), sortColumn: nil, descending: false, ticket: ReadTicket())
        let request = RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 5)
        var windows: [ViewerWindow] = []
        var onMain: [Bool] = []
        let cancellable = dataSource.windows(of: viewed, request).sink(
            receiveCompletion: { completion in
                if case let .failure(error) = completion { XCTFail("\(error)") }
            },
            receiveValue: { read in
                onMain.append(Thread.isMainThread)
                if case let .window(window) = read { windows.append(window) }
            })
        defer { cancellable.cancel() }
        XCTAssertTrue(waitUntil("a window") { !windows.isEmpty })
        XCTAssertEqual(windows.first?.window.rows.count, 5)
        XCTAssertTrue(onMain.allSatisfy { $0 })
    }

    /// Another session adds a column, then drops the table: the next
    /// window has the column; then the source is missing.
    func testAnAlteredTableIsReadAgainAndADroppedOneIsMissing() throws {
        let name = "dataSourceSchemaChanges"
        let database = try PostgresTestDatabase.open(name, sql: """
            CREATE TABLE t(id int PRIMARY KEY, a text);
            INSERT INTO t VALUES (1, 'one'), (2, 'two');
            """)
        let viewed = try database.open(.table("t"), sortColumn: "a", descending: false, ticket: ReadTicket())
        let request = RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 5)
        XCTAssertEqual(texts(try database.fetchWindow(viewed, request, ticket: ReadTicket())), [["1", "one"], ["2", "two"]])

        try PostgresTestDatabase.write(name, "ALTER TABLE t ADD COLUMN b int DEFAULT 7; CREATE INDEX t_a ON t(a);")
        let altered = try database.fetchWindow(viewed, request, ticket: ReadTicket())
        XCTAssertEqual(altered.viewed.source.columnNames, ["id", "a", "b"])
        XCTAssertEqual(altered.viewed.cost, .indexSearch)
        XCTAssertEqual(texts(altered), [["1", "one", "7"], ["2", "two", "7"]])

        try PostgresTestDatabase.write(name, "ALTER TABLE t DROP COLUMN a;")
        XCTAssertThrowsError(try database.fetchWindow(altered.viewed, request, ticket: ReadTicket())) { error in
            XCTAssertEqual(database.failureKind(of: error), .missingSource)
            XCTAssertTrue(database.describe(error).contains("\"a\""), database.describe(error))
        }

        try PostgresTestDatabase.write(name, "DROP TABLE t;")
        XCTAssertThrowsError(try database.fetchWindow(altered.viewed, request, ticket: ReadTicket())) { error in
            XCTAssertEqual(database.failureKind(of: error), .missingSource)
            XCTAssertEqual(database.describe(error), "no table or view \"t\": the database has none that the role may read")
        }
    }
}
