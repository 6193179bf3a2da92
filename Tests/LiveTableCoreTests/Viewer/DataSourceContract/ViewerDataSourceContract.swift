import Foundation
import GRDB
import OpenCombine
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// A database that a contract case asks for: made by another session,
/// then opened by the data source under test.
struct ContractDatabase {
    /// Letters and digits: a PostgreSQL database's name, a SQLite file's
    /// name without ".sqlite". A case that writes asks for a name of its
    /// own; the others share `items`.
    var name: String
    /// Its tables and rows, in SQL that SQLite and PostgreSQL both read.
    var sql: String
    /// The commit poll asked for (`--poll`), or nil for the data source's
    /// own way of seeing commits.
    var pollInterval: TimeInterval?

    /// `item(id, name, price)`: ids 1…12, names "item 01"…"item 12",
    /// prices 10…120, an index on price, and the view `cheap` of the
    /// items under 100.
    static func items(
        _ name: String = "contractItems", pollInterval: TimeInterval? = nil) -> ContractDatabase
    {
        let rows = (1...12).map { "(\($0), 'item \(String(format: "%02d", $0))', \($0 * 10))" }
        return ContractDatabase(name: name, sql: """
            CREATE TABLE item(id integer PRIMARY KEY, name text, price integer);
            CREATE INDEX item_price ON item(price);
            INSERT INTO item VALUES \(rows.joined(separator: ", "));
            CREATE VIEW cheap AS SELECT * FROM item WHERE price < 100;
            """, pollInterval: pollInterval)
    }
}

extension ContractDatabase {
    /// `item(id, name, price)` of 50,000 rows, beyond the rows that a
    /// window's fetch counts (`ViewerWindow.rankLimit`): ids 1…50,000,
    /// names "item 100001"…"item 150000", prices 10…500,000, an index on
    /// price.
    static func positions() -> ContractDatabase {
        ContractDatabase(name: "contractPositions", sql: """
            CREATE TABLE item(id integer PRIMARY KEY, name text, price integer);
            CREATE INDEX item_price ON item(price);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50000)
            INSERT INTO item SELECT i, 'item ' || CAST(100000 + i AS text), i * 10 FROM n;
            """, pollInterval: nil)
    }
}

/// A host that draws nothing.
@MainActor
private final class SilentHost: AppHost {
    func draw(_ screen: Screen) { }
    func suspend() { }
    func quit() { }
}

/// A contract case's database, as the data source under test and
/// another session see it.
struct DataSourceFixture {
    /// What `ViewerDataSource.name` must be.
    enum ExpectedName {
        /// Exactly this: "items.sqlite".
        case exactly(String)
        /// This, then where the database is: "contractItems on ".
        case startingWith(String)
    }

    /// The data source under test, seen only as `any ViewerDataSource`.
    var dataSource: any ViewerDataSource
    /// What its name must be.
    var name: ExpectedName
    /// Runs SQL in another session (the `sqlite3` CLI, a psql session as
    /// the writer), committed when it returns, and returns what it
    /// printed, trimmed: "12".
    var anotherSession: (String) throws -> String
}

/// The behaviour every `ViewerDataSource` owes the screen, written once
/// and run on each database by a test class of its own
/// (`SQLiteDataSourceTests`, `PostgresDataSourceTests`).
///
/// Each class lists its test methods, one line each calling a case here
/// (XCTest on Linux does not reliably discover inherited test methods);
/// `ViewerDataSourceContractTests` reads the sources and fails when a
/// case is missing from a class. What only one database has (a FUSE
/// file, a schema-qualified name, an estimated count) stays in its own
/// files.
struct ViewerDataSourceContract {
    /// The test that runs the case: its waits and its temporary files.
    let testCase: XCTestCase
    /// Makes a database and opens it with the data source under test.
    let make: (ContractDatabase) throws -> DataSourceFixture

    // MARK: - Cases

    func nameTablesCountsAndOpening() throws {
        let fixture = try make(.items())
        let dataSource = fixture.dataSource
        switch fixture.name {
        case let .exactly(name): XCTAssertEqual(dataSource.name, name)
        case let .startingWith(start): XCTAssertTrue(dataSource.name.hasPrefix(start), dataSource.name)
        }
        let tables = try dataSource.listTables(ticket: ReadTicket())
        XCTAssertEqual(tables.map(\.name), ["cheap", "item"])
        XCTAssertEqual(tables.map(\.kind), [.view, .table])
        XCTAssertEqual(try dataSource.quickRowCount(ofTable: "item", kind: .table, ticket: ReadTicket()), .exact(12))

        let viewed = try dataSource.open(.table("item"), sortColumn: "price", descending: true, ticket: ReadTicket())
        XCTAssertEqual(viewed.source.name, "item")
        let count = try dataSource.countRows(of: viewed.source, ticket: ReadTicket())
        XCTAssertEqual(count, .exact(12))
        XCTAssertEqual(firstWindow(of: viewed, in: dataSource)?.map { $0[0] }, ["12", "11", "10"])
    }

    func searchFilterMissingRowsAndExport() throws {
        let dataSource = try make(.items()).dataSource
        let viewed = try dataSource.open(.table("item"), sortColumn: nil, descending: false, ticket: ReadTicket())

        let search = RowSearch(text: "item 11", column: 1, forward: true, from: nil)
        let found = try dataSource.search(search, in: viewed, ticket: ReadTicket())
        XCTAssertEqual(found.match?.key, [11.databaseValue])

        let filtered = try dataSource.filter(viewed, by: "price > 100", ticket: ReadTicket())
        XCTAssertEqual(try dataSource.countRows(of: filtered.viewed.source, ticket: ReadTicket()).value, 2)
        XCTAssertEqual(firstWindow(of: filtered.viewed, in: dataSource)?.map { $0[0] }, ["11", "12"])
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

    /// A search in every column (Tab at `/`): a row matches when any of its
    /// columns holds the text, whatever the column's type, ignoring case;
    /// on a filtered source and on a query too.
    func aSearchInEveryColumnFindsTheTextInAnyColumn() throws {
        let dataSource = try make(.items()).dataSource
        let item = try dataSource.open(.table("item"), sortColumn: nil, descending: false, ticket: ReadTicket())
        func match(
            _ text: String, column: Int? = nil, after key: Int? = nil, forward: Bool = true, in viewed: ViewedSource
        ) throws -> RowSearchResult {
            let from = key.map { RowPosition(key: [$0.databaseValue]) }
            return try dataSource.search(
                RowSearch(text: text, column: column, forward: forward, from: from), in: viewed, ticket: ReadTicket())
        }
        // 90 is item 09's price: found in every column, not in the names.
        XCTAssertEqual(try match("90", in: item).match?.key, [9.databaseValue])
        XCTAssertNil(try match("90", column: 1, in: item).match)
        XCTAssertEqual(try match("ITEM 03", in: item).match?.key, [3.databaseValue])
        // After item 01, the next row with a 1 anywhere is item 10; before it, item 01.
        XCTAssertEqual(try match("1", after: 1, in: item).match?.key, [10.databaseValue])
        XCTAssertEqual(try match("1", after: 10, forward: false, in: item).match?.key, [1.databaseValue])
        let wrapped = try match("12", after: 12, in: item)
        XCTAssertEqual(wrapped.match?.key, [12.databaseValue])
        XCTAssertTrue(wrapped.wrapped)
        XCTAssertNil(try match("%", in: item).match)

        let filtered = try dataSource.filter(item, by: "price > 100", ticket: ReadTicket()).viewed
        XCTAssertEqual(try match("1", in: filtered).match?.key, [11.databaseValue])
        let query = try dataSource.open(
            .query("SELECT name, price * 2 AS doubled FROM item"), sortColumn: nil, descending: false, ticket: ReadTicket())
        XCTAssertNotNil(try match("240", in: query).match, "item 12's doubled price")
        XCTAssertNil(try match("250", in: query).match)
    }

    /// A filter that would write (a second statement, a data-modifying
    /// WITH) is refused in one line, and nothing is written.
    /// The sheets the viewer writes (`#`, `I`, `C`) open as queries keyed
    /// by their own columns, and are read again after another session's
    /// commit, over a query, a table and its catalog.
    func sheetsWrittenByTheViewerAreKeyedQueries() throws {
        let fixture = try make(.items("contractSheets"))
        let dataSource = fixture.dataSource
        func open(_ sheet: DerivedSheet?) throws -> ViewedSource {
            try dataSource.open(.sheet(try XCTUnwrap(sheet)), sortColumn: nil, descending: false, ticket: ReadTicket())
        }
        let query = try dataSource.open(
            .query("SELECT price / 50 AS band FROM item"), sortColumn: nil, descending: false, ticket: ReadTicket())
        let frequency = try open(.frequency(of: "band", in: query))
        XCTAssertEqual(frequency.source.identityExpressions.count, 1, "keyed by the band")
        XCTAssertTrue(frequency.ordering.isUnique)
        XCTAssertEqual(allRows(of: frequency, in: dataSource)?.map { Array($0.prefix(3)) },
                       [["1", "5", "41.7"], ["0", "4", "33.3"], ["2", "3", "25.0"]])
        _ = try fixture.anotherSession("UPDATE item SET price = 5 WHERE id = 12;")
        XCTAssertEqual(allRows(of: frequency, in: dataSource)?.map { Array($0.prefix(2)) },
                       [["0", "5"], ["1", "5"], ["2", "2"]])

        let item = try dataSource.open(.table("item"), sortColumn: nil, descending: false, ticket: ReadTicket())
        var describe = DerivedSheet.describe(of: item)
        XCTAssertEqual(allRows(of: try open(describe), in: dataSource)?.map { $0[3] }, ["…", "…", "…"])
        describe.kind = .describe(figures: true)
        describe.sql = try XCTUnwrap(describe.figuresSQL)
        let price = allRows(of: try open(describe), in: dataSource)?.first { $0.contains("price") }
        // The key column first: column, #, type, then values, nulls, distinct, min, max.
        XCTAssertEqual(price.map { Array($0[3...7]) }, ["12", "0", "12", "5", "110"])

        _ = try fixture.anotherSession("ALTER TABLE item ADD COLUMN note text;")
        let columns = allRows(of: try open(.columns(of: item)), in: dataSource)
        XCTAssertEqual(columns?.map { $0[1] }, ["id", "name", "price", "note"])
    }

    func aWritingFilterIsRefusedAndWritesNothing() throws {
        let fixture = try make(.items("contractWritingFilter"))
        let dataSource = fixture.dataSource
        let viewed = try dataSource.open(.table("item"), sortColumn: nil, descending: false, ticket: ReadTicket())
        for expression in [
            "1); DELETE FROM item; --",
            "id IN (WITH gone AS (DELETE FROM item RETURNING id) SELECT id FROM gone)",
        ] {
            XCTAssertThrowsError(try dataSource.filter(viewed, by: expression, ticket: ReadTicket()), expression) { error in
                let text = dataSource.describe(error)
                XCTAssertFalse(text.isEmpty, expression)
                XCTAssertFalse(text.contains("\n"), text)
            }
        }
        XCTAssertEqual(try fixture.anotherSession("SELECT count(*) FROM item;"), "12")
        XCTAssertEqual(try dataSource.countRows(of: viewed.source, ticket: ReadTicket()), .exact(12))
    }

    /// A query is read in the order asked for; an invalid one is a
    /// missing source; one that would write is refused in one line, and
    /// nothing is written.
    func queriesAreReadAndWritingOnesRefused() throws {
        let fixture = try make(.items("contractQueries"))
        let dataSource = fixture.dataSource
        let viewed = try dataSource.open(
            .query("SELECT name, price * 2 AS twice FROM item WHERE id <= 3"), sortColumn: "twice", descending: true,
            ticket: ReadTicket())
        XCTAssertEqual(viewed.source.columnNames, ["name", "twice"])
        XCTAssertEqual(try dataSource.countRows(of: viewed.source, ticket: ReadTicket()), .exact(3))
        XCTAssertEqual(firstWindow(of: viewed, in: dataSource), [["item 03", "60"], ["item 02", "40"], ["item 01", "20"]])

        func open(_ sql: String) throws -> ViewedSource {
            try dataSource.open(.query(sql), sortColumn: nil, descending: false, ticket: ReadTicket())
        }
        XCTAssertThrowsError(try open("SELECT nope FROM item")) { error in
            XCTAssertEqual(dataSource.failureKind(of: error), .missingSource)
            XCTAssertTrue(dataSource.describe(error).contains("nope"), dataSource.describe(error))
        }
        // A query that writes is bad input, refused the same way by both
        // databases: the same error, the same line (status 1 on the
        // command line), and `.other`, never back to the picker as for
        // something gone.
        let refusals: [(String, SourceError)] = [
            ("DELETE FROM item", .notReadOnly),
            ("SELECT 1; DELETE FROM item", .multipleStatements),
        ]
        for (sql, expected) in refusals {
            XCTAssertThrowsError(try open(sql), sql) { error in
                XCTAssertEqual(error as? SourceError, expected, sql)
                XCTAssertEqual(dataSource.describe(error), expected.description, sql)
                XCTAssertEqual(dataSource.failureKind(of: error), .other, sql)
            }
        }
        XCTAssertEqual(try fixture.anotherSession("SELECT count(*) FROM item;"), "12")
    }

    /// A query opens in the order of its own top-level `ORDER BY` when its
    /// terms name result columns (by name, by position, NULLS FIRST or
    /// LAST either way): every window, read forwards and backwards across
    /// the NULLs, in the query's order; a LIMIT keeps the query's rows.
    /// One whose ORDER BY is an expression opens by all its columns and
    /// says so.
    func aQueryOpensInItsOwnOrder() throws {
        // g: NULL and ties; id breaks them in each query's own terms.
        let fixture = try make(ContractDatabase(name: "contractQueryOrder", sql: """
            CREATE TABLE t(id integer PRIMARY KEY, g integer);
            INSERT INTO t VALUES (1, 2), (2, NULL), (3, 1), (4, 2), (5, NULL), (6, 1), (7, 3), (8, NULL), (9, 1), (10, 2);
            """))
        let dataSource = fixture.dataSource
        func open(_ sql: String) throws -> ViewedSource {
            try dataSource.open(.query(sql), sortColumn: nil, descending: false, ticket: ReadTicket())
        }
        let cases: [(String, [String])] = [
            ("SELECT id, g FROM t ORDER BY g DESC NULLS LAST, id", ["7", "1", "4", "10", "3", "6", "9", "2", "5", "8"]),
            ("SELECT id, g FROM t ORDER BY g NULLS LAST, 1 DESC", ["9", "6", "3", "10", "4", "1", "7", "8", "5", "2"]),
            ("SELECT id, g FROM t ORDER BY \"g\" ASC NULLS FIRST, ID", ["2", "5", "8", "3", "6", "9", "1", "4", "10", "7"]),
            ("SELECT id, g FROM t ORDER BY 2 DESC NULLS FIRST, id DESC", ["8", "5", "2", "7", "10", "4", "1", "9", "6", "3"]),
            ("SELECT id, g FROM t ORDER BY g DESC NULLS LAST, id LIMIT 4", ["7", "1", "4", "10"]),
        ]
        for (sql, ids) in cases {
            let viewed = try open(sql)
            XCTAssertNil(viewed.source.queryOrder?.unkept, sql)
            XCTAssertEqual(try walk(viewed, in: dataSource, forwards: true), ids, sql)
            XCTAssertEqual(try walk(viewed, in: dataSource, forwards: false), ids, sql)
        }
        let expression = try open("SELECT id, g FROM t ORDER BY -id")
        XCTAssertEqual(
            expression.source.queryOrder?.unkeptNotice,
            "the query's ORDER BY -id is not kept (an expression): shown by all columns ↑")
        XCTAssertEqual(try walk(expression, in: dataSource, forwards: true), (1...10).map(String.init))
        // A sort replaces the query's order.
        let sorted = try dataSource.open(
            .query("SELECT id, g FROM t ORDER BY g DESC NULLS LAST, id"), sortColumn: "id", descending: true,
            ticket: ReadTicket())
        XCTAssertEqual(firstWindow(of: sorted, in: dataSource)?.map { $0[0] }, ["10", "9", "8"])
    }

    func aMissingTableIsAMissingSource() throws {
        let dataSource = try make(.items()).dataSource
        XCTAssertThrowsError(
            try dataSource.open(.table("gone"), sortColumn: nil, descending: false, ticket: ReadTicket())) { error in
            XCTAssertEqual(dataSource.failureKind(of: error), .missingSource)
            XCTAssertTrue(dataSource.describe(error).contains("gone"), dataSource.describe(error))
        }
    }

    func anAbandonedTicketStopsTheReadBeforeItStarts() throws {
        let dataSource = try make(.items()).dataSource
        let ticket = ReadTicket()
        ticket.abandon()
        XCTAssertThrowsError(try dataSource.listTables(ticket: ticket))
        // The connection is free for the next read.
        XCTAssertEqual(try dataSource.listTables(ticket: ReadTicket()).count, 2)
    }

    /// The rows before any row are counted exactly, in every order: the
    /// title's position beyond the window's bounded count.
    func rowsBeforeAPositionAreCounted() throws {
        let dataSource = try make(.items()).dataSource
        let cases: [(ViewerTarget, String?, Bool, String?)] = [
            (.table("item"), nil, false, nil),
            (.table("item"), "price", true, nil),
            (.table("item"), "name", false, "price > 30"),
            (.table("cheap"), "price", true, nil),
            (.query("SELECT name, price FROM item"), "price", false, nil),
        ]
        for (target, column, descending, filter) in cases {
            var viewed = try dataSource.open(target, sortColumn: column, descending: descending, ticket: ReadTicket())
            viewed = try dataSource.filter(viewed, by: filter, ticket: ReadTicket()).viewed
            let request = RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 100)
            let positions = try XCTUnwrap(window(of: viewed, request, in: dataSource)?.window.positions, "\(target)")
            XCTAssertEqual(positions.count, filter != nil || target == .table("cheap") ? 9 : 12)
            let counts = try positions.map { try dataSource.countRows(of: viewed, before: $0, ticket: ReadTicket()) }
            XCTAssertEqual(counts, positions.indices.map(RowCount.exact), "\(target) \(column ?? "") \(filter ?? "")")
        }
    }

    /// On the screen, as the app loop runs it: a search far beyond the
    /// rows a window's fetch counts ends on the exact position, End and
    /// PgUp keep it, and so does another session's commit of rows before
    /// the selection, counted again.
    func thePositionFarFromTheStartIsExactOnTheScreen() throws {
        let fixture = try make(.positions())
        let dataSource = fixture.dataSource
        let viewed = try dataSource.open(.table("item"), sortColumn: "price", descending: false, ticket: ReadTicket())
        try MainActor.assumeIsolated {
            let loop = AppLoop(
                program: ViewerProgram(dataSource: dataSource),
                state: .initial(databaseName: "positions", opened: viewed, width: 100, height: 10))
            loop.start(host: SilentHost())
            defer { loop.stop() }
            let title = { viewerRender(loop.state).lines[0] }
            let waitForTitle = { (text: String) in
                testCase.waitUntil("\(text) in the title") { title().contains(text) }
                XCTAssertTrue(title().contains(text), title())
            }
            // Wide enough for the position and the note of the polling.
            loop.send(.resize(width: 100, height: 10))
            waitForTitle("row 1 of 50,000 · live")
            for key in [Key.left, .character("/")] + "item 130000".map(Key.character) + [.enter] {
                loop.send(.key(key))
            }
            waitForTitle("row 30,000 of 50,000 · live")
            _ = try fixture.anotherSession("INSERT INTO item VALUES (0, 'cheap 0', 1), (-1, 'cheap 1', 2);")
            waitForTitle("row 30,002 of 50,002 · live")
            loop.send(.key(.end))
            waitForTitle("row 50,002 of 50,002 · live")
            for _ in 0..<3 { loop.send(.key(.pageUp)) }
            waitForTitle("row 49,984 of 50,002 · live")
        }
    }

    // MARK: - Live

    func windowsArriveOnTheMainQueue() throws {
        let dataSource = try make(.items()).dataSource
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
        XCTAssertTrue(testCase.waitUntil("a window") { !windows.isEmpty })
        XCTAssertEqual(windows.first?.window.rows.count, 5)
        XCTAssertTrue(onMain.allSatisfy { $0 })
    }

    /// Another session's UPDATE, then DELETE, reach the window, which
    /// never ends.
    func windowsFollowAnotherSessionsCommits() throws {
        let fixture = try make(.items("contractLiveWindows"))
        let dataSource = fixture.dataSource
        let viewed = try dataSource.open(.table("item"), sortColumn: nil, descending: false, ticket: ReadTicket())
        let request = RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 3)
        let recorder = ReadRecorder<ViewerWindowRead>()
        let cancellable = dataSource.windows(of: viewed, request)
            .sink(receiveCompletion: recorder.complete, receiveValue: recorder.receive)
        defer { cancellable.cancel() }
        func rows() -> [[String]]? {
            guard case let .window(window)? = recorder.values.last else { return nil }
            return texts(window)
        }
        let first = [["1", "item 01", "10"], ["2", "item 02", "20"], ["3", "item 03", "30"]]
        testCase.waitUntil("the first window") { rows() == first }

        _ = try fixture.anotherSession("UPDATE item SET name = 'changed' WHERE id = 2;")
        testCase.waitUntil("the update on the window") { rows()?.dropFirst().first == ["2", "changed", "20"] }
        _ = try fixture.anotherSession("DELETE FROM item WHERE id = 1;")
        testCase.waitUntil("the row gone from the window") { rows()?.map { $0[0] } == ["2", "3", "4"] }
        XCTAssertNil(recorder.completion)
    }

    /// With a poll asked for, while a window shows, the title's note says
    /// so: once, on the main queue.
    func livenessSaysThePollingAskedFor() throws {
        let dataSource = try make(.items(pollInterval: 0.5)).dataSource
        let viewed = try dataSource.open(.table("item"), sortColumn: nil, descending: false, ticket: ReadTicket())
        let request = RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 5)
        let showing = dataSource.windows(of: viewed, request).sink(receiveCompletion: { _ in }, receiveValue: { _ in })
        defer { showing.cancel() }
        var notes: [ViewerLiveness] = []
        var onMain: [Bool] = []
        let cancellable = dataSource.liveness().sink { note in
            onMain.append(Thread.isMainThread)
            notes.append(note)
        }
        defer { cancellable.cancel() }
        let expected = ViewerLiveness(note: "polled every 0.5 s", reason: nil)
        testCase.waitUntil("the note") { notes.last == expected }
        XCTAssertEqual(notes, [expected])
        XCTAssertTrue(onMain.allSatisfy { $0 })
    }

    // MARK: - Helpers

    /// The first column of every row of `viewed`, read in windows of 3
    /// rows, each anchored on a row of the one before: from the first
    /// row forwards, or from the last backwards.
    private func walk(_ viewed: ViewedSource, in dataSource: any ViewerDataSource, forwards: Bool) throws -> [String] {
        let ordering = viewed.ordering
        var request = RowWindowRequest(ordering: ordering, anchor: forwards ? .first : .last, before: 0, after: 3)
        var ids: [String] = []
        for _ in 0..<20 {
            let read = try XCTUnwrap(window(of: viewed, request, in: dataSource))
            let rows = texts(read).map { $0[0] }
            if forwards {
                // The anchor, the last row of the window before, comes again.
                ids += ids.isEmpty ? rows : Array(rows.dropFirst())
                guard !read.window.reachesEnd, let last = read.window.positions.last else { return ids }
                request = RowWindowRequest(ordering: ordering, anchor: .position(last), before: 0, after: 4)
            } else {
                ids = (ids.isEmpty ? rows : Array(rows.dropLast())) + ids
                guard !read.window.reachesStart, let first = read.window.positions.first else { return ids }
                request = RowWindowRequest(ordering: ordering, anchor: .position(first), before: 3, after: 1)
            }
        }
        XCTFail("more windows than rows")
        return ids
    }

    /// The first window of `viewed`, at most 3 rows from the first, as
    /// text, or nil when none came.
    private func firstWindow(of viewed: ViewedSource, in dataSource: any ViewerDataSource) -> [[String]]? {
        window(of: viewed, RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 3), in: dataSource)
            .map(texts)
    }

    /// Every row of a small source, as text.
    private func allRows(of viewed: ViewedSource, in dataSource: any ViewerDataSource) -> [[String]]? {
        window(of: viewed, RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 50), in: dataSource)
            .map(texts)
    }

    /// The first window that `request` observes, or nil when none came.
    private func window(
        of viewed: ViewedSource, _ request: RowWindowRequest, in dataSource: any ViewerDataSource) -> ViewerWindow?
    {
        let recorder = ReadRecorder<ViewerWindowRead>()
        let cancellable = dataSource.windows(of: viewed, request)
            .sink(receiveCompletion: recorder.complete, receiveValue: recorder.receive)
        defer { cancellable.cancel() }
        func first() -> ViewerWindow? {
            recorder.values.lazy.compactMap { read -> ViewerWindow? in
                if case let .window(window) = read { return window }
                return nil
            }.first
        }
        testCase.waitUntil("a window of \(viewed.source.name)") { first() != nil || recorder.completion != nil }
        return first()
    }
}
