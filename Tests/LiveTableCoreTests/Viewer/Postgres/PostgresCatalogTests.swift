import Foundation
import GRDB
import PostgresServer
import XCTest
@testable import LiveTableCore

/// What the picker lists of a PostgreSQL database, how names open, and
/// how each relation's rows are identified.
final class PostgresCatalogTests: XCTestCase {
    private static let name = "catalogTests"
    private static let sql = """
        CREATE TABLE tracks(id int PRIMARY KEY, title text NOT NULL);
        INSERT INTO tracks SELECT i, 'track ' || i FROM generate_series(1, 5) i;
        CREATE TABLE nokey(a int, doc json, spot point);
        INSERT INTO nokey VALUES (1, '{"b": 2}', '(1,2)'), (1, '{"a": 1}', '(0,0)'), (NULL, NULL, NULL);
        CREATE TABLE coded(code text NOT NULL, region text NOT NULL, note text, UNIQUE (region, code));
        CREATE TABLE nullable_unique(code text UNIQUE, note text);
        CREATE VIEW short_tracks AS SELECT id, title FROM tracks WHERE id < 3;
        CREATE MATERIALIZED VIEW track_totals AS SELECT count(*) AS n FROM tracks;
        CREATE TABLE secret(id int PRIMARY KEY);
        REVOKE SELECT ON secret FROM viewer;
        CREATE TABLE "Mixed.Case"(id int PRIMARY KEY);
        INSERT INTO "Mixed.Case" VALUES (1), (2);
        """

    private func database() throws -> PostgresDataSource {
        let server = try PostgresServer.shared
        let database = try PostgresTestDatabase.open(Self.name, sql: Self.sql)
        // A schema of the superuser's, readable by the viewer.
        try PostgresTestDatabase.once(Self.name + ".sales") {
            try server.psql("""
                CREATE SCHEMA sales;
                GRANT USAGE ON SCHEMA sales TO viewer;
                CREATE TABLE sales.orders(id bigint PRIMARY KEY, total numeric);
                INSERT INTO sales.orders VALUES (1, 9.99), (2, 20);
                CREATE TABLE sales.hidden(id int);
                GRANT SELECT ON sales.orders TO viewer;
                GRANT SELECT ON track_totals TO viewer;
                CREATE SCHEMA private;
                CREATE TABLE private.t(id int);
                GRANT SELECT ON private.t TO viewer;
                """, database: Self.name)
        }
        return database
    }

    func testListsWhatTheRoleMayReadInEverySchema() throws {
        let database = try database()
        let tables = try database.listTables(ticket: ReadTicket())
        XCTAssertEqual(tables.map(\.name), [
            "coded", "\"Mixed.Case\"", "nokey", "nullable_unique", "sales.orders", "short_tracks", "track_totals", "tracks",
        ])
        XCTAssertEqual(tables.map(\.kind), [.table, .table, .table, .table, .table, .view, .materializedView, .table])
        XCTAssertEqual(TableSchema.Kind.materializedView.word, "materialized view")
    }

    /// The picker lists names as SQLite's does (`TableSchema.listsBefore`):
    /// ignoring case and quotes, then by the exact name; byte order put
    /// `Zebra` before `apple`.
    func testNamesAreListedIgnoringCase() throws {
        let database = try PostgresTestDatabase.open("catalogOrderTests", sql: """
            CREATE TABLE "Zebra"(x int); CREATE TABLE apple(x int); CREATE TABLE "Banana"(x int);
            CREATE TABLE banana(x int); CREATE VIEW "Cherry.Pie" AS SELECT 1 AS x; CREATE TABLE "cherry"(x int);
            CREATE SCHEMA "Sales"; GRANT USAGE ON SCHEMA "Sales" TO viewer;
            CREATE TABLE "Sales".orders(x int); GRANT SELECT ON ALL TABLES IN SCHEMA "Sales", public TO viewer;
            """)
        XCTAssertEqual(try database.listTables(ticket: ReadTicket()).map(\.name), [
            "apple", "Banana", "banana", "cherry", "\"Cherry.Pie\"", "Sales.orders", "Zebra",
        ])
    }

    func testNamesOpenBareQualifiedAndQuoted() throws {
        let database = try database()
        for name in ["tracks", "public.tracks", "TRACKS", "\"tracks\"", "public.\"tracks\""] {
            let viewed = try database.open(.table(name), sortColumn: nil, descending: false, ticket: ReadTicket())
            XCTAssertEqual(viewed.source.name, "tracks", name)
        }
        let orders = try database.open(.table("sales.orders"), sortColumn: nil, descending: false, ticket: ReadTicket())
        XCTAssertEqual(orders.source.name, "sales.orders")
        XCTAssertEqual(try database.countRows(of: orders.source, ticket: ReadTicket()), .exact(2))
        let mixed = try database.open(.table("\"Mixed.Case\""), sortColumn: nil, descending: false, ticket: ReadTicket())
        XCTAssertEqual(try database.countRows(of: mixed.source, ticket: ReadTicket()), .exact(2))
        XCTAssertEqual(
            try database.open(.table("Mixed.Case"), sortColumn: nil, descending: false, ticket: ReadTicket()).source.name,
            "\"Mixed.Case\"")
    }

    /// Two relations whose names read alike once joined by a dot (the
    /// public table `Two.Parts` and the table `Parts` of the schema
    /// `Two`; the table `x` of the schema `Two.Parts`) are listed apart,
    /// and each opens itself: the picker opened the public one for all.
    func testNamesThatReadAlikeWithADotAreListedApartAndOpenThemselves() throws {
        let server = try PostgresServer.shared
        let database = try database()
        try PostgresTestDatabase.once(Self.name + ".dots") {
            try server.psql("""
                CREATE TABLE "Two.Parts"(id int PRIMARY KEY, v text); INSERT INTO "Two.Parts" VALUES (1, 'public');
                CREATE SCHEMA "Two"; GRANT USAGE ON SCHEMA "Two" TO viewer;
                CREATE TABLE "Two"."Parts"(id int PRIMARY KEY, v text); INSERT INTO "Two"."Parts" VALUES (1, 'schema');
                CREATE SCHEMA "Two.Parts"; GRANT USAGE ON SCHEMA "Two.Parts" TO viewer;
                CREATE TABLE "Two.Parts".x(id int PRIMARY KEY, v text); INSERT INTO "Two.Parts".x VALUES (1, 'dotted schema');
                GRANT SELECT ON "Two.Parts", "Two"."Parts", "Two.Parts".x TO viewer;
                """, database: Self.name)
        }
        let names = try database.listTables(ticket: ReadTicket()).map(\.name).filter { $0.contains("Two") }
        XCTAssertEqual(names.sorted(), ["\"Two.Parts\"", "\"Two.Parts\".x", "Two.Parts"])
        var values: [String] = []
        for name in names.sorted() {
            let viewed = try database.open(.table(name), sortColumn: nil, descending: false, ticket: ReadTicket())
            XCTAssertEqual(viewed.source.name, name)
            let window = try database.fetchWindow(
                viewed, RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 2), ticket: ReadTicket())
            values += texts(window).map { $0[1] }
        }
        XCTAssertEqual(values, ["public", "dotted schema", "schema"])
    }

    func testAMissingTableListsTheNearestNames() throws {
        let database = try database()
        XCTAssertThrowsError(try database.open(.table("trakcs"), sortColumn: nil, descending: false, ticket: ReadTicket())) { error in
            XCTAssertEqual(database.failureKind(of: error), .missingSource)
            let text = database.describe(error)
            XCTAssertTrue(text.hasPrefix("no table or view \"trakcs\": the database has "), text)
            XCTAssertTrue(text.contains("\"tracks\""), text)
        }
    }

    func testIdentityIsThePrimaryKeyElseAUniqueNotNullIndexElseNone() throws {
        let database = try database()
        func identity(_ name: String) throws -> RowIdentity {
            try database.open(.table(name), sortColumn: nil, descending: false, ticket: ReadTicket()).source.identity
        }
        XCTAssertEqual(try identity("tracks"), .primaryKey(["id"]))
        XCTAssertEqual(try identity("coded"), .primaryKey(["region", "code"]))
        XCTAssertEqual(try identity("nullable_unique"), .none)
        XCTAssertEqual(try identity("nokey"), .none)
        XCTAssertEqual(try identity("short_tracks"), .none)
        let tracks = try database.open(.table("tracks"), sortColumn: nil, descending: false, ticket: ReadTicket())
        XCTAssertEqual(tracks.source.columns.map(\.declaredType), ["integer", "text"])
        XCTAssertEqual(tracks.source.columns.map(\.isIndexed), [true, false])
    }

    /// json and point have no ordering: a table without key orders them
    /// by their text.
    func testUnorderableColumnsAreOrderedByTheirText() throws {
        let database = try database()
        let viewed = try database.open(.table("nokey"), sortColumn: nil, descending: false, ticket: ReadTicket())
        XCTAssertEqual(viewed.ordering.keyColumns.map(\.expression), ["\"a\"", "\"doc\"::text", "\"spot\"::text"])
        let window = try database.fetchWindow(
            viewed, RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 10), ticket: ReadTicket())
        XCTAssertEqual(texts(window), [["1", "{\"a\": 1}", "(0,0)"], ["1", "{\"b\": 2}", "(1,2)"], ["NULL", "NULL", "NULL"]])
        let second = try XCTUnwrap(window.window.positions.dropFirst().first)
        let from = try database.fetchWindow(
            viewed, RowWindowRequest(ordering: viewed.ordering, anchor: .position(second), before: 0, after: 10), ticket: ReadTicket())
        XCTAssertEqual(texts(from).map { $0[2] }, ["(1,2)", "NULL"])
        let sorted = try database.open(.table("nokey"), sortColumn: "doc", descending: true, ticket: ReadTicket())
        XCTAssertEqual(sorted.ordering.keyColumns.first?.expression, "\"doc\"::text")
    }

    func testAnUnreadableTableIsNotListedAndRefusedInOneLine() throws {
        let database = try database()
        let viewed = try database.open(.table("secret"), sortColumn: nil, descending: false, ticket: ReadTicket())
        XCTAssertThrowsError(try database.fetchWindow(
            viewed, RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 5), ticket: ReadTicket())
        ) { error in
            XCTAssertEqual(database.describe(error), "permission denied for table secret")
            XCTAssertEqual(database.failureKind(of: error), .transient)
        }
        // The picker still works.
        XCTAssertFalse(try database.listTables(ticket: ReadTicket()).map(\.name).contains("secret"))
    }

    func testPickerCountsSmallTablesExactlyAndBigOnesByTheEstimate() throws {
        let database = try database()
        XCTAssertEqual(try database.quickRowCount(ofTable: "tracks", kind: .table, ticket: ReadTicket()), .exact(5))
        XCTAssertEqual(try database.quickRowCount(ofTable: "short_tracks", kind: .view, ticket: ReadTicket()), .exact(2))
        try PostgresTestDatabase.once(Self.name + ".big") {
            try PostgresTestDatabase.write(Self.name, """
                CREATE TABLE big(id int PRIMARY KEY);
                INSERT INTO big SELECT generate_series(1, 150000);
                ANALYZE big;
                """)
        }
        let count = try database.quickRowCount(ofTable: "big", kind: .table, ticket: ReadTicket())
        XCTAssertFalse(count.isExact)
        XCTAssertEqual(Double(count.value), 150_000, accuracy: 15_000)
    }

    /// A table never analysed has no estimate (`reltuples` is -1 from
    /// PostgreSQL 14 on): the picker counts it, up to the limit, rather
    /// than show "~0" or a guess; "100,000+" beyond.
    func testPickerCountsATableNeverAnalysedUpToTheLimit() throws {
        let database = try database()
        try PostgresTestDatabase.once(Self.name + ".unanalysed") {
            // Autovacuum off: its ANALYZE would give the table an estimate.
            try PostgresTestDatabase.write(Self.name, """
                CREATE TABLE unanalysed(id int PRIMARY KEY) WITH (autovacuum_enabled = false);
                INSERT INTO unanalysed SELECT generate_series(1, 120000);
                CREATE TABLE unanalysed_small(id int PRIMARY KEY) WITH (autovacuum_enabled = false);
                INSERT INTO unanalysed_small SELECT generate_series(1, 7);
                """)
        }
        let estimates = try PostgresTestDatabase.write(Self.name, """
            SELECT reltuples FROM pg_class WHERE oid IN ('unanalysed'::regclass, 'unanalysed_small'::regclass);
            """)
        XCTAssertEqual(estimates, "-1\n-1", "the tables were analysed: the test shows nothing")
        XCTAssertEqual(
            try database.quickRowCount(ofTable: "unanalysed", kind: .table, ticket: ReadTicket()),
            .atLeast(RowSource.quickCountLimit))
        XCTAssertEqual(
            try database.quickRowCount(ofTable: "unanalysed_small", kind: .table, ticket: ReadTicket()), .exact(7))
    }
}
