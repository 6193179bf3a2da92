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
    private static let sql = PostgresTestDatabase.twelveItems + """
        ALTER DATABASE "\(name)" SET standard_conforming_strings = off;
        """

    private func database() throws -> PostgresDataSource {
        try PostgresTestDatabase.open(Self.name, sql: Self.sql)
    }

    private func item(_ database: PostgresDataSource) throws -> ViewedSource {
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

    /// A filter that switches standard_conforming_strings off for its
    /// read transaction: the window's first statement reads `'a\'` as a
    /// backslash, the next one (the same text) as an open string, and
    /// the `OR TRUE` after it keeps every row. Refused before it runs.
    func testAFilterThatSwitchesBackslashEscapesOnIsRefused() throws {
        let database = try database()
        let server = try PostgresServer.shared
        let connection = try PostgresConnection(server.url(role: server.viewer, database: Self.name))
        let filter = #"set_config('standard_conforming_strings','off',true) <> 'a\' OR name <> ' ) OR TRUE OR (TRUE /* ' -- */"#
        let statement = "SELECT count(*) FROM item WHERE (\n\(filter)\n) AND (\nid > 10\n)"
        _ = try connection.execute("SET standard_conforming_strings = on")
        _ = try connection.execute("BEGIN READ ONLY")
        XCTAssertEqual(try connection.execute(statement).rows, [["2"]], "read as the scan reads it")
        XCTAssertEqual(try connection.execute(statement).rows, [["12"]], "the window's condition binds: no test")
        _ = try connection.execute("ROLLBACK")
        let viewed = try item(database)
        XCTAssertThrowsError(try database.filter(viewed, by: filter, ticket: ReadTicket())) { error in
            XCTAssertEqual(database.describe(error), "invalid filter: unbalanced parentheses: a filter is one expression")
        }
    }

    /// A string goes on after a newline and a quote, in its first part's
    /// mode (scan.l's `quotecontinue`): `E'a'\n'\' '` is one string, and
    /// `) OR TRUE OR (` after it SQL. Refused as a filter and in a query.
    func testAStringThatGoesOnAfterANewlineIsReadWhole() throws {
        let database = try database()
        let server = try PostgresServer.shared
        let connection = try PostgresConnection(server.url(role: server.viewer, database: Self.name))
        _ = try connection.execute("SET standard_conforming_strings = on")
        let filter = "name = E'a'\n'\\' ' ) OR TRUE OR (TRUE /* ' */"
        let statement = "SELECT count(*) FROM item WHERE (\n\(filter)\n) AND (\nid > 10\n)"
        XCTAssertEqual(try connection.execute(statement).rows, [["12"]], "the window's condition binds: no test")
        let viewed = try item(database)
        XCTAssertThrowsError(try database.filter(viewed, by: filter, ticket: ReadTicket())) { error in
            XCTAssertEqual(database.describe(error), "invalid filter: unbalanced parentheses: a filter is one expression")
        }
        let query = "SELECT * FROM item WHERE \(filter)"
        XCTAssertThrowsError(try database.open(.query(query), sortColumn: nil, descending: false, ticket: ReadTicket())) { error in
            XCTAssertEqual(database.describe(error), "invalid query: unbalanced parentheses")
        }
    }

    /// The `; -- '` after a query is trimmed by the reading with
    /// standard_conforming_strings on; to the other, `'a\' ; -- '` was one
    /// string, which the trim cuts open. The trimmed query is checked too.
    func testAQueryThatTheTrimLeavesOpenIsRefused() throws {
        let database = try database()
        XCTAssertThrowsError(
            try database.open(.query(#"SELECT 'a\' ; -- '"#), sortColumn: nil, descending: false, ticket: ReadTicket()))
        { error in
            XCTAssertEqual(database.describe(error), "invalid query: unterminated '")
        }
        XCTAssertNoThrow(try database.open(.query(#"SELECT 'a\b' AS a; -- x'"#), sortColumn: nil, descending: false, ticket: ReadTicket()))
    }
}
