import Foundation
import PostgresClient
import PostgresServer
import XCTest
@testable import LiveTableCore

/// A filter is put inside `WHERE (…)` only when the viewer's scan of it
/// (`SQLToken`) finds its parentheses balanced: these tests hold the
/// server to the same reading, for texts where the two once differed.
final class PostgresFilterScanTests: XCTestCase {
    private static let name = "filterScanTests"
    /// The database reads strings as PostgreSQL did before 9.1: `\'` is a
    /// quote inside `'…'` (`standard_conforming_strings = off`).
    private static let sql = """
        CREATE TABLE item(id int PRIMARY KEY, name text);
        INSERT INTO item SELECT i, 'Item ' || i FROM generate_series(1, 12) i;
        ALTER DATABASE "\(name)" SET standard_conforming_strings = off;
        """

    private func database() throws -> PostgresDatabase {
        try PostgresTestDatabase.open(Self.name, sql: Self.sql)
    }

    private func item(_ database: PostgresDatabase) throws -> ViewedSource {
        try database.open(.table("item"), sortColumn: nil, descending: false, ticket: ReadTicket())
    }

    /// To the server, each filter ends the `WHERE (` around it, and its
    /// `OR true` keeps the rows that the window's own condition leaves
    /// out; the viewer refuses them before the server reads them.
    func testAFilterThatClosesItsWhereUnseenIsRefused() throws {
        let database = try database()
        let viewed = try item(database)
        let server = try PostgresServer.shared
        let connection = try PostgresConnection(server.url(role: server.viewer, database: Self.name))
        let escaping = [
            "false -- x\r) OR TRUE OR (TRUE",
            "id IN (SELECT 1 \u{A0}$$)) OR true OR ((SELECT true y$$)",
        ]
        for filter in escaping {
            let statement = "SELECT count(*) FROM item WHERE (\n\(filter)\n) AND (\nid > 10\n)"
            XCTAssertEqual(try connection.execute(statement).rows, [["12"]], "the window's condition binds: no test")
        }
        // PostgreSQL 14 reads `1x$$` as `1 x$$` (15 refuses the `1x`).
        for filter in escaping + ["id IN (SELECT 1x$$)) OR true OR ((SELECT true y$$)"] {
            XCTAssertThrowsError(try database.filter(viewed, by: filter, ticket: ReadTicket()), filter) { error in
                XCTAssertEqual(database.describe(error), "invalid filter: unbalanced parentheses: a filter is one expression")
            }
        }
    }

    /// `'\'` is a backslash to the scan; to a session with
    /// `standard_conforming_strings = off`, `'\' OR TRUE -- '` would be one
    /// string. The viewer's sessions set it on, whatever the database says.
    func testStringsAreReadAsTheScanReadsThemWhateverTheDatabaseSets() throws {
        let database = try database()
        let server = try PostgresServer.shared
        let plain = try PostgresConnection(server.url(role: server.viewer, database: Self.name))
        XCTAssertEqual(try plain.execute("SHOW standard_conforming_strings").rows, [["off"]], "the database's own setting")
        let viewed = try item(database)
        let filtered = try database.filter(viewed, by: "name = '\\' OR TRUE -- '", ticket: ReadTicket())
        XCTAssertEqual(try database.countRows(of: filtered.viewed.source, ticket: ReadTicket()), .exact(12))
    }
}
