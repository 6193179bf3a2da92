import Foundation
import PostgresServer
import XCTest
@testable import LiveTableCore

/// SQL the user typed (a query, a filter) may take a session-level
/// advisory lock, which ROLLBACK keeps: no read leaves one behind.
final class PostgresAdvisoryLockTests: XCTestCase {
    private static let name = "advisoryLockTests"
    private static let sql = PostgresTestDatabase.twelveItems

    /// The advisory locks held in the test's database, as the superuser
    /// sees them from a session of its own.
    private func heldLocks() throws -> String {
        try PostgresServer.shared.psql(
            """
            SELECT count(*) FROM pg_locks
            WHERE locktype = 'advisory'
              AND database = (SELECT oid FROM pg_database WHERE datname = '\(Self.name)');
            """,
            database: Self.name, timeout: 10)
    }

    /// Reads a window of `viewed` and counts its rows (`count`): neither
    /// leaves an advisory lock.
    private func assertAWindowAndACountLeaveNoLock(
        _ database: PostgresDataSource, _ viewed: ViewedSource, count: Int, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let request = RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 5)
        _ = try database.fetchWindow(viewed, request, ticket: ReadTicket())
        XCTAssertEqual(try heldLocks(), "0", "after a window", file: file, line: line)
        XCTAssertEqual(try database.countRows(of: viewed.source, ticket: ReadTicket()), .exact(count), file: file, line: line)
        XCTAssertEqual(try heldLocks(), "0", "after the count", file: file, line: line)
    }

    func testAQueryThatTakesAnAdvisoryLockLeavesNoneAfterItsReads() throws {
        let database = try PostgresTestDatabase.open(Self.name, sql: Self.sql)
        let viewed = try database.open(
            .query("SELECT id, pg_advisory_lock(4242) IS NOT NULL AS locked FROM item"),
            sortColumn: nil, descending: false, ticket: ReadTicket())
        XCTAssertEqual(try heldLocks(), "0", "after the query's open")
        try assertAWindowAndACountLeaveNoLock(database, viewed, count: 12)
    }

    func testAFilterAndASearchThatTakeAnAdvisoryLockLeaveNoneAfterTheirReads() throws {
        let database = try PostgresTestDatabase.open(Self.name, sql: Self.sql)
        let table = try database.open(.table("item"), sortColumn: nil, descending: false, ticket: ReadTicket())
        let filtered = try database.filter(
            table, by: "pg_advisory_lock(4243) IS NOT NULL AND id > 2", ticket: ReadTicket()).viewed
        XCTAssertEqual(try heldLocks(), "0", "after the filter's check")
        try assertAWindowAndACountLeaveNoLock(database, filtered, count: 10)
        let found = try database.search(
            RowSearch(text: "item 7", column: 1, forward: true, from: nil), in: filtered, ticket: ReadTicket())
        XCTAssertEqual(found.match?.key, [7.databaseValue])
        XCTAssertEqual(try heldLocks(), "0", "after the search")
    }

    /// A read that fails after the lock was taken releases it too.
    func testAFailedReadOfAFilterLeavesNoLock() throws {
        let database = try PostgresTestDatabase.open(Self.name, sql: Self.sql)
        let table = try database.open(.table("item"), sortColumn: nil, descending: false, ticket: ReadTicket())
        XCTAssertThrowsError(try database.filter(
            table, by: "pg_advisory_lock(4244) IS NOT NULL AND 1 / (id - 1) > 0", ticket: ReadTicket()))
        XCTAssertEqual(try heldLocks(), "0")
    }
}
