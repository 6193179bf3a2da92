import Foundation
import GRDB
import OpenCombine
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// What the viewer screen reads, through `any ViewerDataSource` only, on a
/// file made by the sqlite3 CLI: the contract that every data source
/// (SQLite today, PostgreSQL next) keeps.
final class ViewerDataSourceTests: XCTestCase {
    private func itemsSource(count: Int = 30) throws -> any ViewerDataSource {
        let path = try makeItemsFile(count: count, extra: """
            CREATE VIEW cheap AS SELECT * FROM item WHERE price < 100;
            """)
        return try ViewerDatabase.open(path: path)
    }

    func testNameTablesCountsAndOpening() throws {
        let dataSource = try itemsSource()
        XCTAssertEqual(dataSource.name, "items.sqlite")
        let tables = try dataSource.listTables(ticket: ReadTicket())
        XCTAssertEqual(tables.map(\.name), ["cheap", "item"])
        XCTAssertEqual(tables.map(\.kind), [.view, .table])
        XCTAssertEqual(try dataSource.quickRowCount(ofTable: "item", kind: .table, ticket: ReadTicket()), .exact(30))

        let viewed = try dataSource.open(.table("item"), sortColumn: "price", descending: true, ticket: ReadTicket())
        XCTAssertEqual(viewed.source.name, "item")
        let count = try dataSource.countRows(of: viewed.source, ticket: ReadTicket())
        XCTAssertEqual(count.value, 30)
        XCTAssertTrue(count.isExact)
    }

    func testSearchFilterMissingRowsAndExport() throws {
        let dataSource = try itemsSource(count: 12)
        let viewed = try dataSource.open(.table("item"), sortColumn: nil, descending: false, ticket: ReadTicket())

        let search = RowSearch(text: "item 11", column: 1, forward: true, from: nil)
        let found = try dataSource.search(search, in: viewed, ticket: ReadTicket())
        XCTAssertNotNil(found.match)

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
        // The connection is free for the next read.
        XCTAssertEqual(try dataSource.listTables(ticket: ReadTicket()).count, 2)
    }

    func testWindowsArriveOnTheMainQueue() throws {
        let dataSource = try itemsSource()
        let viewed = try dataSource.open(.table("item"), sortColumn: nil, descending: false, ticket: ReadTicket())
        let request = RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 5)
        var windows: [ViewerWindow] = []
        var onMain: [Bool] = []
        let cancellable = dataSource.windows(of: viewed, request).sink(
            receiveCompletion: { XCTFail("\($0)") },
            receiveValue: { read in
                onMain.append(Thread.isMainThread)
                if case let .window(window) = read { windows.append(window) }
            })
        defer { cancellable.cancel() }
        XCTAssertTrue(waitUntil("a window") { !windows.isEmpty })
        XCTAssertEqual(windows.first?.window.rows.count, 5)
        XCTAssertTrue(onMain.allSatisfy { $0 })
    }

    func testLivenessSaysThePollingAskedFor() throws {
        let path = try makeItemsFile(count: 1)
        let dataSource: any ViewerDataSource = try ViewerDatabase.open(path: path, polling: CommitPolling(interval: 0.5))
        var notes: [ViewerLiveness] = []
        let cancellable = dataSource.liveness().sink { notes.append($0) }
        defer { cancellable.cancel() }
        XCTAssertEqual(notes, [ViewerLiveness(note: "polled every 0.5 s", reason: nil)])
        var silent: [ViewerLiveness] = []
        let quiet = try itemsSource().liveness().sink { silent.append($0) }
        quiet.cancel()
        XCTAssertEqual(silent, [])
    }
}
