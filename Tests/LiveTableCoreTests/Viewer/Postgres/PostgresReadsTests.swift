import Foundation
import GRDB
import PostgresClient
import PostgresServer
import XCTest
@testable import LiveTableCore

/// The reads of `PostgresDataSource` beside the windows: search, filter,
/// count, deleted rows, queries, and what the server refuses.
final class PostgresReadsTests: XCTestCase {
    private static let name = "readsTests"
    private static let sql = """
        CREATE TABLE item(id int PRIMARY KEY, name text, price numeric);
        INSERT INTO item SELECT i, 'Item ' || i, i * 10 FROM generate_series(1, 12) i;
        CREATE SEQUENCE counter;
        GRANT SELECT, USAGE ON counter TO viewer;
        """

    private func database(_ settings: PostgresDataSource.Settings = .init()) throws -> PostgresDataSource {
        try PostgresTestDatabase.open(Self.name, sql: Self.sql, settings: settings)
    }

    private func item(_ database: PostgresDataSource) throws -> ViewedSource {
        try database.open(.table("item"), sortColumn: nil, descending: false, ticket: ReadTicket())
    }

    func testSearchFindsTheNextMatchIgnoringCaseAndWraps() throws {
        let database = try database()
        let viewed = try item(database)
        let first = try database.search(RowSearch(text: "item 1", column: 1, forward: true, from: nil), in: viewed, ticket: ReadTicket())
        XCTAssertEqual(first.match?.key, [1.databaseValue])
        let next = try database.search(RowSearch(text: "ITEM 1", column: 1, forward: true, from: first.match), in: viewed, ticket: ReadTicket())
        XCTAssertEqual(next.match?.key, [10.databaseValue])
        let wrapped = try database.search(
            RowSearch(text: "item 1", column: 1, forward: true, from: RowPosition(key: [12.databaseValue])), in: viewed, ticket: ReadTicket())
        XCTAssertEqual(wrapped.match?.key, [1.databaseValue])
        XCTAssertTrue(wrapped.wrapped)
        // On a number's text, and with LIKE's % as a plain character.
        let price = try database.search(RowSearch(text: "20", column: 2, forward: true, from: nil), in: viewed, ticket: ReadTicket())
        XCTAssertEqual(price.match?.key, [2.databaseValue])
        XCTAssertNil(try database.search(RowSearch(text: "%", column: 1, forward: true, from: nil), in: viewed, ticket: ReadTicket()).match)
    }

    /// `lower($1)` needs no cast: PostgreSQL resolves a parameter of
    /// unknown type to text, lower's preferred type (lower also takes
    /// ranges).
    func testLowerOfAParameterIsLowerOfText() throws {
        let server = try PostgresServer.shared
        let connection = try PostgresConnection(server.url(role: server.viewer, database: Self.name))
        XCTAssertEqual(try connection.execute("SELECT lower($1), strpos(lower('ABC'), lower($1))", ["B"]).rows, [["b", "2"]])
    }

    func testFilterIsCheckedByTheServerAndCounted() throws {
        let database = try database()
        let viewed = try item(database)
        let filtered = try database.filter(viewed, by: "price > 100", ticket: ReadTicket())
        XCTAssertEqual(try database.countRows(of: filtered.viewed.source, ticket: ReadTicket()), .exact(2))
        XCTAssertEqual(filtered.viewed.cost, .scan)
        let window = try database.fetchWindow(
            filtered.viewed, RowWindowRequest(ordering: filtered.viewed.ordering, anchor: .first, before: 0, after: 5),
            ticket: ReadTicket())
        XCTAssertEqual(texts(window).map { $0[0] }, ["11", "12"])

        XCTAssertThrowsError(try database.filter(viewed, by: "no_such_column = 1", ticket: ReadTicket())) { error in
            XCTAssertEqual(database.describe(error), "invalid filter: column \"no_such_column\" does not exist")
        }
        XCTAssertThrowsError(try database.filter(viewed, by: "id = $1", ticket: ReadTicket())) { error in
            XCTAssertTrue(database.describe(error).contains("parameters"), database.describe(error))
        }
        XCTAssertThrowsError(try database.filter(viewed, by: "1 = 1) OR (true", ticket: ReadTicket()))
        // Cleared: all rows again.
        let cleared = try database.filter(filtered.viewed, by: nil, ticket: ReadTicket())
        XCTAssertEqual(try database.countRows(of: cleared.viewed.source, ticket: ReadTicket()), .exact(12))
    }

    /// A filter that writes is refused by the read-only transaction, with
    /// PostgreSQL's own message.
    func testAWritingFilterIsRefusedWithTheServersMessage() throws {
        let database = try database()
        let viewed = try item(database)
        XCTAssertThrowsError(try database.filter(viewed, by: "nextval('counter') > 0", ticket: ReadTicket())) { error in
            XCTAssertEqual(database.describe(error), "invalid filter: cannot execute nextval() in a read-only transaction")
        }
        let server = try PostgresServer.shared
        XCTAssertEqual(try server.psql("SELECT last_value FROM counter;", database: Self.name), "1")
        XCTAssertEqual(try server.psql("SELECT is_called FROM counter;", database: Self.name), "f")
    }

    func testQueriesAreValidatedByTheServer() throws {
        let database = try database()
        let viewed = try database.open(
            .query("SELECT name, price * 2 AS double, price FROM item WHERE id <= 3;"), sortColumn: "double", descending: true,
            ticket: ReadTicket())
        XCTAssertEqual(viewed.source.columnNames, ["name", "double", "price"])
        let window = try database.fetchWindow(
            viewed, RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 5), ticket: ReadTicket())
        XCTAssertEqual(texts(window).map { $0[1] }, ["60", "40", "20"])

        // Filtered by the names of its own columns, the view and the
        // query alike.
        let filtered = try database.filter(viewed, by: "double > 20 AND name <> 'x'", ticket: ReadTicket())
        XCTAssertEqual(try database.countRows(of: filtered.viewed.source, ticket: ReadTicket()), .exact(2))
        XCTAssertNil(filtered.scannedRows)
        let filteredWindow = try database.fetchWindow(
            filtered.viewed, RowWindowRequest(ordering: filtered.viewed.ordering, anchor: .first, before: 0, after: 5),
            ticket: ReadTicket())
        XCTAssertEqual(texts(filteredWindow).map { $0[1] }, ["60", "40"])

        func refusal(_ sql: String, _ kind: ViewerFailureKind = .missingSource) -> String {
            do {
                _ = try database.open(.query(sql), sortColumn: nil, descending: false, ticket: ReadTicket())
                return "opened"
            } catch {
                XCTAssertEqual(database.failureKind(of: error), kind, sql)
                return database.describe(error)
            }
        }
        // A write, as SQLite refuses it (the read-only transaction said no).
        XCTAssertEqual(refusal("DELETE FROM item", .other), "\(SourceError.notReadOnly)")
        XCTAssertEqual(
            refusal("WITH gone AS (DELETE FROM item RETURNING *) SELECT * FROM gone", .other), "\(SourceError.notReadOnly)")
        XCTAssertEqual(refusal("SELECT * FROM item WHERE id = $1"), "invalid query: parameters ($1, $2…) have no value here: write the values in the SQL")
        XCTAssertEqual(refusal("SELECT 1; SELECT 2", .other), "\(SourceError.multipleStatements)")
        XCTAssertEqual(refusal("SELECT ';' AS x; -- ; SELECT 2", .other), "opened")
        XCTAssertEqual(refusal("SELECT nope FROM item"), "invalid query: column \"nope\" does not exist")
        // Refused before the server sees them, in the same words as on
        // SQLite: it would say "syntax error at or near ")"" of the
        // statement around the query.
        XCTAssertEqual(refusal("SELECT name FROM item WHERE (price > 1"), "invalid query: unbalanced parentheses")
        XCTAssertEqual(refusal("SELECT name FROM item WHERE price > 1)"), "invalid query: unbalanced parentheses")
        XCTAssertEqual(refusal("SELECT $$)$$ AS a, 'x"), "invalid query: unterminated '")
        XCTAssertEqual(refusal("SELECT 1 AS a /* a /* b */"), "invalid query: unterminated comment")
        XCTAssertEqual(try PostgresTestDatabase.write(Self.name, "SELECT count(*) FROM item;"), "12")
    }

    /// A query as an editor or psql's history has it, its `;` followed
    /// by a comment, opens: it was "syntax error at or near ";"".
    func testAQueryMayEndWithSemicolonsAndComments() throws {
        let database = try database()
        for sql in [
            "SELECT name FROM item WHERE id = 1; -- the first\n", "SELECT name FROM item WHERE id = 1 /* a */ ; /* b */ ;\r\n",
            "SELECT name FROM item WHERE id = 1; -- one; /* two",
        ] {
            let viewed = try database.open(.query(sql), sortColumn: nil, descending: false, ticket: ReadTicket())
            XCTAssertEqual(viewed.source.columnNames, ["name"], sql)
        }
        let quoted = try database.open(
            .query("SELECT '--;' AS \"a;--\", '/*' AS b;"), sortColumn: nil, descending: false, ticket: ReadTicket())
        XCTAssertEqual(quoted.source.columnNames, ["a;--", "b"])
        XCTAssertEqual(
            PostgresDataSource.trimmingTrailingSemicolonsAndComments("SELECT 'it''s' -- c\n;  "), "SELECT 'it''s'")
        // A `--` or `;` in a dollar-quoted string is text: it was cut there.
        XCTAssertEqual(
            PostgresDataSource.trimmingTrailingSemicolonsAndComments("SELECT $$--;$$ AS a; /* b */ ;"), "SELECT $$--;$$ AS a")
        let dollars = try database.open(
            .query("SELECT $$--;$$ AS a, $q$/*$q$ AS \"b;\"; -- done"), sortColumn: nil, descending: false, ticket: ReadTicket())
        XCTAssertEqual(dollars.source.columnNames, ["a", "b;"])
    }

    /// A query whose columns have no B-tree order is read in the order of
    /// their text: it was "could not identify an ordering operator for
    /// type void" (`SELECT pg_sleep(0)`), jsonpath, refcursor, pg_snapshot.
    func testAQueryOfTypesWithoutOrderIsRead() throws {
        let database = try database()
        let viewed = try database.open(
            .query("SELECT pg_sleep(0) AS s, '$.a'::jsonpath AS p, 'c'::refcursor AS c, pg_current_snapshot() AS snap"),
            sortColumn: nil, descending: false, ticket: ReadTicket())
        let window = try database.fetchWindow(
            viewed, RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 5), ticket: ReadTicket())
        XCTAssertEqual(texts(window).map { Array($0.prefix(3)) }, [["", "$.\"a\"", "c"]])
    }

    /// A statement that ends or changes a transaction is refused without
    /// being run: `COMMIT` would end the viewer's own read (the refusal
    /// was "ROLLBACK TO SAVEPOINT can only be used in transaction
    /// blocks"), and the session stays usable.
    func testATransactionStatementAsAQueryIsRefusedWithoutBeingRun() throws {
        let database = try database()
        for sql in ["COMMIT", "ROLLBACK", "END", "RELEASE SAVEPOINT \"query\"", "ROLLBACK TO SAVEPOINT \"query\""] {
            XCTAssertThrowsError(try database.open(.query(sql), sortColumn: nil, descending: false, ticket: ReadTicket())) { error in
                XCTAssertEqual(database.failureKind(of: error), .missingSource, sql)
                XCTAssertTrue(database.describe(error).hasPrefix("invalid query: syntax error at or near \""), database.describe(error))
            }
        }
        XCTAssertEqual(try item(database).source.columnNames, ["id", "name", "price"])
    }

    func testDeletedRowsAreFoundByIdentity() throws {
        let database = try database()
        let viewed = try item(database)
        let keys = [StoredKey([3.databaseValue]), StoredKey([99.databaseValue])]
        XCTAssertEqual(try database.missingRows(of: viewed.source, among: keys, ticket: ReadTicket()), [keys[1]])
    }

    func testTheSessionIsReadOnly() throws {
        let database = try database()
        XCTAssertThrowsError(try database.screen.read(ticket: ReadTicket()) { reader in
            _ = try reader.execute("SELECT 1")
            return try reader.execute("CREATE TEMPORARY TABLE t(x int)")
        }) { error in
            XCTAssertEqual(database.describe(error), "cannot execute CREATE TABLE in a read-only transaction")
        }
        // Even outside the viewer's transactions: the session's default.
        let server = try PostgresServer.shared
        let settings = PostgresDataSource.Settings().connectionSettings(for: server.url(role: server.viewer, database: Self.name))
        let connection = try PostgresConnection(server.url(role: server.viewer, database: Self.name), settings: settings)
        XCTAssertThrowsError(try connection.execute("CREATE TEMPORARY TABLE t(x int)"))
        XCTAssertEqual(try connection.execute("SHOW statement_timeout").rows, [["5s"]])
        XCTAssertEqual(try connection.execute("SHOW application_name").rows, [["livetable"]])
    }

    /// What PostgreSQL 15 lets a function write in a read-only
    /// transaction (a large object: `lo_create`) is not kept: each read
    /// ends with ROLLBACK.
    func testAReadKeepsNothingAFunctionWroteDespiteReadOnly() throws {
        let database = try database()
        let viewed = try database.open(
            .query("SELECT lo_create(0) AS lo, name FROM item"), sortColumn: nil, descending: false, ticket: ReadTicket())
        let window = try database.fetchWindow(
            viewed, RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 5), ticket: ReadTicket())
        XCTAssertEqual(texts(window).count, 5)
        XCTAssertEqual(try database.countRows(of: viewed.source, ticket: ReadTicket()), .exact(12))
        XCTAssertEqual(try PostgresTestDatabase.write(Self.name, "SELECT count(*) FROM pg_largeobject_metadata;"), "0")
    }

    func testAStatementTimeoutSaysSo() throws {
        let database = try database(.init(statementTimeout: 0.2))
        let viewed = try database.open(
            .query("SELECT id FROM item WHERE pg_sleep(0.1) IS NOT NULL"), sortColumn: nil, descending: false, ticket: ReadTicket())
        XCTAssertThrowsError(try database.countRows(of: viewed.source, ticket: ReadTicket())) { error in
            XCTAssertEqual(database.describe(error), "timed out after 0.2 s (statement_timeout)")
            XCTAssertEqual(database.failureKind(of: error), .other)
        }
    }

    func testAnAbandonedTicketCancelsTheStatementOnTheServer() throws {
        let database = try database(.init(statementTimeout: 30))
        let ticket = ReadTicket()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { ticket.abandon() }
        let start = Date()
        XCTAssertThrowsError(try database.background.read(ticket: ticket) { reader in
            try reader.execute("SELECT pg_sleep(20)")
        })
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
        // The connection is free at once.
        XCTAssertEqual(try database.listTables(ticket: ReadTicket()).map(\.name), ["item"])
        // A ticket's time limit stops the read on the server too.
        XCTAssertThrowsError(try database.background.read(ticket: ReadTicket(timeLimit: 0.3)) { reader in
            try reader.execute("SELECT pg_sleep(20)")
        })
    }

    /// A session that the server ended is opened again on the next read.
    func testAConnectionEndedByTheServerIsOpenedAgainOnUse() throws {
        let database = try database()
        let viewed = try item(database)
        let server = try PostgresServer.shared
        try server.psql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(Self.name)' AND usename = 'viewer';",
            database: Self.name)
        let window = try database.fetchWindow(
            viewed, RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 2), ticket: ReadTicket())
        XCTAssertEqual(texts(window).map { $0[0] }, ["1", "2"])
    }

    /// The server stopped: a read fails at once with a transient error,
    /// said in one line; started again, the next read reconnects.
    func testAStoppedServerIsTransientAndTheNextReadReconnects() throws {
        let database = try database()
        let viewed = try item(database)
        let request = RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 2)
        _ = try database.fetchWindow(viewed, request, ticket: ReadTicket())
        let server = try PostgresServer.shared
        try server.stop()
        var started = false
        defer { if !started { try? server.start() } }
        XCTAssertThrowsError(try database.fetchWindow(viewed, request, ticket: ReadTicket())) { error in
            XCTAssertEqual(database.failureKind(of: error), .transient)
            let text = database.describe(error)
            XCTAssertTrue(text.hasPrefix(database.name + ": "), text)
            XCTAssertFalse(text.contains("\n"), text)
            XCTAssertFalse(text.contains(server.viewer.password), text)
        }
        try server.start()
        started = true
        XCTAssertEqual(texts(try database.fetchWindow(viewed, request, ticket: ReadTicket())).map { $0[0] }, ["1", "2"])
        XCTAssertEqual(try database.countRows(of: viewed.source, ticket: ReadTicket()), .exact(12))
    }

    func testAWrongPasswordIsOneLineWithoutThePassword() throws {
        let server = try PostgresServer.shared
        let url = server.url(role: PostgresServer.Role(name: "viewer", password: "Wrong-Secret-42"), database: Self.name)
        XCTAssertThrowsError(try PostgresDataSource(url)) { error in
            let database = try? self.database()
            let text = database?.describe(error) ?? "\(error)"
            XCTAssertFalse(text.contains("Wrong-Secret-42"))
            XCTAssertFalse(text.contains("\n"))
            XCTAssertTrue(text.contains("password authentication failed"), "a wrong password is said")
        }
    }

    func testTheNameIsTheDatabaseAndWhereItIsWithoutThePassword() throws {
        let database = try database()
        let server = try PostgresServer.shared
        XCTAssertTrue(database.name.hasPrefix("\(Self.name) on "), database.name)
        XCTAssertFalse(database.name.contains(server.viewer.password))
    }
}
