import Foundation
import GRDB
import PostgresServer
import XCTest
@testable import LiveTableCore

/// The role's and the database's own settings (issue 24, item 2): the
/// values read are bound back as keys and find their rows again, whatever
/// DateStyle, IntervalStyle, extra_float_digits or TimeZone they set.
final class PostgresSessionSettingsTests: XCTestCase {
    private static let name = "sessionSettingsTests"

    private func database() throws -> PostgresDataSource {
        _ = try PostgresTestDatabase.open(Self.name, sql: """
            CREATE TABLE moments(
                id int PRIMARY KEY, atz timestamptz, at timestamp, d date, span interval, f float8, r real, m money);
            INSERT INTO moments
              SELECT i, timestamptz '2024-03-01 00:00:00+00' + i * interval '97 minutes 13.25 seconds',
                timestamp '2024-01-12 08:00' + i * interval '1 day 3 hours', date '2024-01-05' + i,
                i * interval '1 day 2 hours 3 minutes' - interval '3 days', 1.0 / (i + 7), (i + 1) / 3.0, i * 1.25
              FROM generate_series(1, 40) i;
            """)
        try PostgresTestDatabase.once(Self.name + "-settings") {
            let server = try PostgresServer.shared
            // The viewer role's own settings, in this database only; the
            // database's for every role.
            try server.psql("""
                ALTER ROLE viewer IN DATABASE "\(Self.name)" SET DateStyle = 'SQL, DMY';
                ALTER ROLE viewer IN DATABASE "\(Self.name)" SET TimeZone = 'Asia/Kolkata';
                ALTER DATABASE "\(Self.name)" SET IntervalStyle = 'sql_standard';
                ALTER DATABASE "\(Self.name)" SET extra_float_digits = -3;
                """)
        }
        // Connected after the settings are made.
        let server = try PostgresServer.shared
        return try PostgresDataSource(server.url(role: server.viewer, database: Self.name))
    }

    /// From the position of every row, in a sort on every column: the row
    /// itself first.
    func testEveryKeyFindsItsRowAgainWhateverTheRoleSets() throws {
        let database = try database()
        for column in ["atz", "at", "d", "span", "f", "r", "m"] {
            for descending in [false, true] {
                let viewed = try database.open(.table("moments"), sortColumn: column, descending: descending, ticket: ReadTicket())
                try assertEachRowIsFoundFromItsPosition(database, viewed, limit: 50, count: 40, "\(column) \(descending)")
            }
        }
    }

    /// PGOPTIONS is the user's (its time zone shown), but for the output
    /// formats that keys are bound back in.
    func testPGOPTIONSIsKeptButForTheOutputFormats() throws {
        _ = try database()
        setenv("PGOPTIONS", "-c DateStyle=German -c IntervalStyle=iso_8601 -c extra_float_digits=-2 -c TimeZone=America/St_Johns", 1)
        defer { unsetenv("PGOPTIONS") }
        let server = try PostgresServer.shared
        let database = try PostgresDataSource(server.url(role: server.viewer, database: Self.name))
        let query = try database.open(
            .query("SELECT current_setting('TimeZone') AS zone, current_setting('DateStyle') AS style"),
            sortColumn: nil, descending: false, ticket: ReadTicket())
        let settings = try database.fetchWindow(
            query, RowWindowRequest(ordering: query.ordering, anchor: .first, before: 0, after: 1), ticket: ReadTicket())
        XCTAssertEqual(texts(settings).first?.first, "America/St_Johns")
        XCTAssertEqual(texts(settings).first?.last?.hasPrefix("ISO,"), true)
        for column in ["atz", "span", "f"] {
            let viewed = try database.open(.table("moments"), sortColumn: column, descending: true, ticket: ReadTicket())
            try assertEachRowIsFoundFromItsPosition(database, viewed, limit: 50, after: 1, column)
        }
    }

    /// Timestamps keep the role's time zone, with a numeric offset.
    func testTimestampsShowTheRolesTimeZone() throws {
        let database = try database()
        let viewed = try database.open(.table("moments"), sortColumn: nil, descending: false, ticket: ReadTicket())
        let window = try database.fetchWindow(
            viewed, RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 1), ticket: ReadTicket())
        XCTAssertEqual(window.window.rows.first?[1], "2024-03-01 07:07:13.25+05:30".databaseValue)
    }
}
