import Foundation
import LiveTableTestSupport
import PostgresServer
import ReactiveGRDB
import XCTest
@testable import LiveTableCore

/// The exact counts on PostgreSQL are paced by their own cost
/// (`PostgresCountPacing`): commits that come after a count (a busy
/// writer, autovacuum moving the token after the launch count) do not
/// make the server count again before its pause; the count meanwhile is
/// the last one moved by the table's inserts and deletes, `~`. Counted in
/// the server's log of statements.
final class PostgresCountPacingTests: XCTestCase {
    private static let name = "countPacingTests"
    private static let sql = """
        CREATE TABLE pacing_track(id int PRIMARY KEY, title text, plays int);
        INSERT INTO pacing_track SELECT i, 't' || i, i FROM generate_series(1, 100) i;
        """

    private func open(minimumPause: TimeInterval) throws -> PostgresDataSource {
        var settings = PostgresDataSource.Settings()
        settings.countMinimumPause = minimumPause
        _ = try PostgresTestDatabase.open(Self.name, sql: Self.sql, settings: settings)
        try PostgresTestDatabase.once("countPacingTests.log") {
            try PostgresServer.shared.psql("ALTER DATABASE \"\(Self.name)\" SET log_statement = 'all';")
        }
        // Opened after the setting: sessions take it when they connect.
        return try PostgresTestDatabase.open(Self.name, sql: Self.sql, settings: settings)
    }

    private func viewed(_ database: PostgresDataSource) throws -> ViewedSource {
        try database.open(.table("pacing_track"), sortColumn: nil, descending: false, ticket: ReadTicket())
    }

    func testCommitsAfterACountMakeNoSecondCountBeforeItsPause() throws {
        let database = try open(minimumPause: 600)
        let viewed = try viewed(database)
        try PostgresTestDatabase.write(Self.name, "DELETE FROM pacing_track WHERE id > 100 OR id < 1;")
        let logStart = try serverLogSize()

        XCTAssertEqual(try database.countRows(of: viewed.source, ticket: ReadTicket()), .exact(100))
        for id in 101...105 {
            try PostgresTestDatabase.write(Self.name, "INSERT INTO pacing_track VALUES (\(id), 'new', 0);")
        }
        let again = try database.countRows(of: viewed.source, ticket: ReadTicket())
        guard case let .estimated(estimate) = again else { return XCTFail("counted again at once: \(again)") }
        XCTAssertTrue((100...105).contains(estimate), "\(estimate)")
        XCTAssertEqual(try countStatements(since: logStart), 1, "one exact count for the launch and the burst")
    }

    func testTheRowsBeforeTheSelectionAreNotCountedAgainBeforeTheirPause() throws {
        let database = try open(minimumPause: 600)
        let viewed = try viewed(database)
        let position = RowPosition(key: [50.databaseValue])
        try PostgresTestDatabase.write(Self.name, "DELETE FROM pacing_track WHERE id > 100 OR id < 1;")
        let logStart = try serverLogSize()

        XCTAssertEqual(try database.countRows(of: viewed, before: position, ticket: ReadTicket()), .exact(49))
        try PostgresTestDatabase.write(Self.name, "INSERT INTO pacing_track VALUES (-1, 'new', 0), (-2, 'new', 0);")
        XCTAssertEqual(try database.countRows(of: viewed, before: position, ticket: ReadTicket()), .estimated(49))
        XCTAssertEqual(try countStatements(since: logStart), 1, "one exact count of the rows before")
    }

    func testTheCountIsExactAgainAfterItsPause() throws {
        let database = try open(minimumPause: 0)
        let viewed = try viewed(database)
        try PostgresTestDatabase.write(Self.name, "DELETE FROM pacing_track WHERE id > 100 OR id < 1;")
        XCTAssertEqual(try database.countRows(of: viewed.source, ticket: ReadTicket()), .exact(100))
        try PostgresTestDatabase.write(Self.name, "INSERT INTO pacing_track VALUES (106, 'new', 0);")
        var last: RowCount?
        waitUntil("an exact count after the pause") {
            last = try? database.countRows(of: viewed.source, ticket: ReadTicket())
            return last == .exact(101)
        }
        XCTAssertEqual(last, .exact(101))
    }

    /// A window that takes the server long to read (a sort on a column
    /// without an index, 0.2 s) is read again, during a burst of commits,
    /// after 24 times as long: 4% of a core (it was 10%, as for SQLite).
    /// The pause itself: a measure of it would be a timed assertion.
    func testASlowWindowIsReadAgainAfterTwentyFourTimesItsTime() {
        XCTAssertGreaterThanOrEqual(PostgresDataSource.windowPacing.pause(afterReadingFor: 0.2), 4.8 - 1e-9)
        XCTAssertGreaterThanOrEqual(PostgresDataSource.windowPacing.pause(afterReadingFor: 0.001, burstReads: 10), 0.1)
        // A lone commit after a quiet spell is still read at once.
        var pacer = RefreshPacer(pacing: PostgresDataSource.windowPacing)
        XCTAssertTrue(pacer.change())
    }

    // MARK: - The server's log

    private func serverLogURL() throws -> URL {
        try PostgresServer.shared.directory.appendingPathComponent("server.log")
    }

    private func serverLogSize() throws -> UInt64 {
        try XCTUnwrap(FileManager.default.attributesOfItem(atPath: serverLogURL().path)[.size] as? NSNumber).uint64Value
    }

    private func logged(since offset: UInt64) throws -> String {
        let handle = try FileHandle(forReadingFrom: serverLogURL())
        defer { try? handle.close() }
        try handle.seek(toOffset: offset)
        return String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
    }

    /// How many exact counts of the table the server ran since `offset`.
    private func countStatements(since offset: UInt64) throws -> Int {
        try logged(since: offset).split(separator: "\n").filter {
            $0.lowercased().contains("count(*)") && $0.contains("pacing_track")
        }.count
    }
}

