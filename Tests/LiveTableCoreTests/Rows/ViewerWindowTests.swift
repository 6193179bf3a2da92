import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// The keyset window engine, checked against SQLite's own ORDER BY on
/// files made by the sqlite3 CLI: every window, from every row, both ways,
/// with NULLs, mixed types and duplicate rows.
final class ViewerWindowTests: XCTestCase {
    private var database: SQLiteDataSource!
    private var file = ""

    override func setUpWithError() throws {
        file = try makeTemporaryDirectory().appendingPathComponent("mixed.sqlite").path
        // v holds every storage class, NULLs and equal values (3 and 3.0);
        // w has no index; dup is a view with rows equal in every column.
        try ForeignFile.sqlite3(file, """
            CREATE TABLE mixed(id INTEGER PRIMARY KEY, v, w TEXT);
            INSERT INTO mixed(v, w) VALUES
                (NULL, 'a'), (3, 'b'), (2.5, 'c'), ('x', 'd'), (X'00FF', 'e'), (NULL, 'f'),
                (3, 'g'), (-1, 'h'), ('X', 'i'), ('x', 'j'), (X'00', 'k'), (1e300, 'l'),
                (3.0, 'm'), ('', 'n'), (0, NULL), (NULL, NULL), ('x', 'q');
            CREATE INDEX mixed_v ON mixed(v);
            CREATE TABLE pairs(a TEXT, b INTEGER, c, PRIMARY KEY(b, a)) WITHOUT ROWID;
            INSERT INTO pairs VALUES ('p', 1, 1), ('q', 1, NULL), ('p', 2, 'z'), ('', 0, X'01'), ('r', -5, 2.5);
            CREATE VIEW dup AS SELECT v, w IS NULL AS n FROM mixed UNION ALL SELECT v, w IS NULL FROM mixed;
            CREATE VIEW accents AS SELECT column1 AS x FROM (VALUES ('é'), ('e' || char(769)), ('f'), ('e' || char(769)));
            CREATE VIEW grouped AS SELECT typeof(v) AS type, count(*) AS count FROM mixed GROUP BY 1;
            CREATE VIEW folded AS SELECT iif(id % 2, upper(w), w) COLLATE NOCASE AS w, v FROM mixed;
            """)
        database = try SQLiteDataSource.open(path: file)
    }

    private func source(_ table: String) throws -> RowSource {
        try database.read { db in RowSource.table(try TableSchema.named(table, in: db), dialect: .sqlite) }
    }

    /// All rows, by SQLite's ORDER BY (the reference).
    private func reference(_ sql: String) throws -> [[DatabaseValue]] {
        try database.read { db in try Row.fetchAll(db, sql: sql).map { Array($0.databaseValues) } }
    }

    /// True while `assertWindowsMatch` checks the windows read as a scan
    /// reads them: the ranges of a side in one statement.
    private var scans = false
    /// True while the windows are asked to read every row in one statement
    /// (`readsWhole`): where they do not all fit, or the anchor is gone,
    /// the windows must still be the same.
    private var readsWhole = false

    private func fetch(_ source: RowSource, _ ordering: RowOrdering, _ anchor: RowAnchor, before: Int, after: Int) throws -> RowWindow {
        try database.read { [scans, readsWhole] db in
            try RowWindow.fetch(
                db, source,
                RowWindowRequest(ordering: ordering, anchor: anchor, before: before, after: after, readsWhole: readsWhole),
                scans: scans)
        }
    }

    /// Checks every window of `source` in `ordering` against `referenceSQL`,
    /// read range by range (as index searches are), then with the ranges
    /// of each side in one statement (as a scan reads them).
    private func assertWindowsMatch(
        _ source: RowSource, _ ordering: RowOrdering, _ referenceSQL: String,
        file: StaticString = #filePath, line: UInt = #line) throws
    {
        for (scans, readsWhole) in [(false, false), (true, false), (false, true)] {
            self.scans = scans
            self.readsWhole = readsWhole
            try assertWindowsMatchOnce(source, ordering, referenceSQL, file: file, line: line)
        }
        scans = false
        readsWhole = false
    }

    private func assertWindowsMatchOnce(
        _ source: RowSource, _ ordering: RowOrdering, _ referenceSQL: String,
        file: StaticString = #filePath, line: UInt = #line) throws
    {
        let expected = try reference(referenceSQL)
        let count = expected.count
        XCTAssertGreaterThan(count, 0, file: file, line: line)

        // First and last windows of every size.
        for size in [0, 1, 3, count - 1, count, count + 2] {
            let first = try fetch(source, ordering, .first, before: 0, after: size)
            XCTAssertEqual(first.rows, Array(expected.prefix(size)), "first \(size)", file: file, line: line)
            XCTAssertTrue(first.reachesStart, file: file, line: line)
            XCTAssertEqual(first.reachesEnd, size >= count, "first \(size)", file: file, line: line)

            let last = try fetch(source, ordering, .last, before: size, after: 0)
            XCTAssertEqual(last.rows, Array(expected.suffix(size)), "last \(size)", file: file, line: line)
            XCTAssertEqual(last.reachesStart, size >= count, "last \(size)", file: file, line: line)
            XCTAssertTrue(last.reachesEnd, file: file, line: line)
        }

        // Paging forwards, window after window, from the position after
        // the last row of each: every row once, in order.
        var paged: [[DatabaseValue]] = []
        var positions: [RowPosition] = []
        var window = try fetch(source, ordering, .first, before: 0, after: 2)
        while true {
            paged += window.rows
            positions += window.positions
            guard !window.reachesEnd, var next = window.positions.last else { break }
            next.occurrence += 1
            window = try fetch(source, ordering, .position(next), before: 0, after: 2)
            XCTAssertLessThanOrEqual(paged.count, count, "paging ends", file: file, line: line)
            if paged.count > count { return }
        }
        XCTAssertEqual(paged, expected, "paged forwards", file: file, line: line)
        XCTAssertEqual(positions.count, count, file: file, line: line)

        // The positions of the last window agree with those of paging.
        let last = try fetch(source, ordering, .last, before: 4, after: 0)
        XCTAssertEqual(last.positions, Array(positions.suffix(4)), "positions of .last", file: file, line: line)

        // The window around every row.
        for (index, position) in positions.enumerated() {
            for (before, after) in [(2, 3), (0, 1), (5, 0), (count, count)] {
                let window = try fetch(source, ordering, .position(position), before: before, after: after)
                let range = max(0, index - before)..<min(count, index + after)
                XCTAssertEqual(window.rows, Array(expected[range]), "around \(index) (\(before), \(after))", file: file, line: line)
                XCTAssertEqual(window.positions, Array(positions[range]), "positions around \(index)", file: file, line: line)
                XCTAssertEqual(window.reachesStart, range.lowerBound == 0, "start around \(index)", file: file, line: line)
                XCTAssertEqual(window.reachesEnd, range.upperBound == count, "end around \(index)", file: file, line: line)
            }
        }
    }

    // MARK: - Rowid tables

    func testRowidOrder() throws {
        let source = try source("mixed")
        let ordering = try RowOrdering(source)
        XCTAssertEqual(ordering.keyColumns.map(\.expression), ["rowid"])
        try assertWindowsMatch(source, ordering, "SELECT id, v, w FROM mixed ORDER BY rowid")
    }

    func testMixedTypesAndNullsAscending() throws {
        // NULL < numbers (3 = 3.0) < text < blobs, the rowid breaking ties.
        let source = try source("mixed")
        let ordering = try RowOrdering(source, sortColumn: "v")
        try assertWindowsMatch(source, ordering, "SELECT id, v, w FROM mixed ORDER BY v, rowid")
    }

    func testMixedTypesAndNullsDescending() throws {
        let source = try source("mixed")
        let ordering = try RowOrdering(source, sortColumn: "v", descending: true)
        try assertWindowsMatch(source, ordering, "SELECT id, v, w FROM mixed ORDER BY v DESC, rowid DESC")
    }

    func testUnindexedColumnWithNulls() throws {
        let source = try source("mixed")
        try assertWindowsMatch(
            source, try RowOrdering(source, sortColumn: "w"), "SELECT id, v, w FROM mixed ORDER BY w, rowid")
        try assertWindowsMatch(
            source, try RowOrdering(source, sortColumn: "w", descending: true),
            "SELECT id, v, w FROM mixed ORDER BY w DESC, rowid DESC")
    }

    func testAnchorOnANullKeepsTheRowsBeforeIt() throws {
        // The trap of row values: (v, rowid) < (NULL, 16) is NULL, not true.
        let source = try source("mixed")
        let ordering = try RowOrdering(source, sortColumn: "v", descending: true)
        let anchor = RowPosition(key: [.null, 16.databaseValue])
        let window = try fetch(source, ordering, .position(anchor), before: 100, after: 100)
        XCTAssertEqual(window.rows.count, 17)
        XCTAssertEqual(window.rows.suffix(3).map { $0[0] }, [16, 6, 1].map(\.databaseValue))
        XCTAssertTrue(window.reachesStart)
    }

    func testDeletedAnchorKeepsItsPlace() throws {
        // A position whose row is gone: the rows around where it was.
        let source = try source("mixed")
        let ordering = try RowOrdering(source, sortColumn: "v")
        let gone = RowPosition(key: [(2.7).databaseValue, (1000).databaseValue])
        let window = try fetch(source, ordering, .position(gone), before: 1, after: 1)
        XCTAssertEqual(window.rows.map { $0[1] }, [(2.5).databaseValue, (3).databaseValue])
    }

    // MARK: - WITHOUT ROWID, views, queries

    func testWithoutRowidTablePagesByPrimaryKey() throws {
        let source = try source("pairs")
        XCTAssertEqual(source.identity, .primaryKey(["b", "a"]))
        try assertWindowsMatch(source, try RowOrdering(source), "SELECT a, b, c FROM pairs ORDER BY b, a")
        try assertWindowsMatch(
            source, try RowOrdering(source, sortColumn: "c", descending: true),
            "SELECT a, b, c FROM pairs ORDER BY c DESC, b DESC, a DESC")
        try assertWindowsMatch(
            source, try RowOrdering(source, sortColumn: "a"), "SELECT a, b, c FROM pairs ORDER BY a, b")
    }

    func testViewWithDuplicateRowsPagesEveryRowOnce() throws {
        let source = try source("dup")
        XCTAssertEqual(source.identity, .none)
        let ordering = try RowOrdering(source)
        XCTAssertFalse(ordering.isUnique)
        try assertWindowsMatch(source, ordering, "SELECT v, n FROM dup ORDER BY v, n")
        try assertWindowsMatch(
            source, try RowOrdering(source, sortColumn: "n", descending: true),
            "SELECT v, n FROM dup ORDER BY n DESC, v DESC")
    }

    func testDuplicatesAreEqualByteForByte() throws {
        // "e\u{301}" and "é" are one string to Swift, two to SQLite.
        let source = try source("accents")
        try assertWindowsMatch(source, try RowOrdering(source), "SELECT x FROM accents ORDER BY x")
        let last = try fetch(source, try RowOrdering(source), .last, before: 4, after: 0)
        XCTAssertEqual(last.positions.map(\.occurrence), [0, 1, 0, 0])
    }

    func testQueryWithDuplicateColumnNames() throws {
        let source = try database.read { db in
            try RowSource.query("SELECT w, w, v FROM mixed WHERE id > 3 -- the last rows", in: db)
        }
        XCTAssertEqual(source.columnNames, ["w", "w 2", "v"])
        XCTAssertEqual(source.columns.map { $0.heading ?? $0.name }, ["w", "w", "v"])
        try assertWindowsMatch(
            source, try RowOrdering(source, sortColumn: "v"),
            "SELECT w, w, v FROM mixed WHERE id > 3 ORDER BY v, w, w")
    }

    func testRandomValuesWithManyDuplicates() throws {
        // Few distinct values of every storage class, so that sort keys and
        // whole rows repeat: a table (rowid), a WITHOUT ROWID table and a
        // view without identity, each sorted both ways on each column.
        let pool = ["NULL", "0", "1", "1.0", "-2.5", "'a'", "'A'", "''", "X''", "X'00'", "'e' || char(769)", "'é'"]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
        let rows = (0..<60).map { index in "(\(index), \(pool[next() % pool.count]), \(pool[next() % pool.count]))" }
        let file = try makeTemporaryDirectory().appendingPathComponent("random.sqlite").path
        try ForeignFile.sqlite3(file, """
            CREATE TABLE r(k INTEGER NOT NULL, x, y);
            INSERT INTO r VALUES \(rows.joined(separator: ", "));
            CREATE INDEX r_x ON r(x);
            CREATE TABLE w(k INTEGER PRIMARY KEY, x, y) WITHOUT ROWID;
            INSERT INTO w SELECT * FROM r;
            CREATE VIEW v AS SELECT x, y FROM r;
            """)
        database = try SQLiteDataSource.open(path: file)
        for (table, columns, identity) in [("r", "k, x, y", "rowid"), ("w", "k, x, y", "k"), ("v", "x, y", nil)] as [(String, String, String?)] {
            let source = try source(table)
            for column in ["x", "y"] {
                for descending in [false, true] {
                    let direction = descending ? " DESC" : ""
                    let tiebreak = identity.map { "\($0)\(direction)" }
                        ?? (column == "x" ? "y\(direction)" : "x\(direction)")
                    try assertWindowsMatch(
                        source, try RowOrdering(source, sortColumn: column, descending: descending),
                        "SELECT \(columns) FROM \(table) ORDER BY \(column)\(direction), \(tiebreak)")
                }
            }
        }
    }

    func testRowsAreCountedBeforeAndFromEveryRow() throws {
        // The exact rank of a row, from either end, stopped at a limit: on
        // NULLs, mixed types, and rows equal in every column (counted by
        // their occurrence).
        for (table, sortColumn) in [("mixed", "v"), ("mixed", nil), ("pairs", "c"), ("dup", "v"), ("dup", nil)] {
            let source = try source(table)
            for descending in [false, true] {
                let ordering = try RowOrdering(source, sortColumn: sortColumn, descending: descending)
                let positions = try fetch(source, ordering, .first, before: 0, after: 1000).positions
                let count = positions.count
                try database.read { db in
                    for (index, position) in positions.enumerated() {
                        let label = "\(table) \(sortColumn ?? "-") \(descending) #\(index)"
                        XCTAssertEqual(try ordering.countRows(db, in: source, before: position, limit: 1000), index, label)
                        XCTAssertEqual(try ordering.countRows(db, in: source, from: position, limit: 1000), count - index, label)
                        XCTAssertEqual(try ordering.countRows(db, in: source, before: position, limit: 3), min(index, 3), label)
                        XCTAssertEqual(try ordering.countRows(db, in: source, before: position), index, label)
                        XCTAssertEqual(try ordering.countRows(db, in: source, from: position, limit: 3), min(count - index, 3), label)
                    }
                }
            }
        }
    }

    func testRowsBeforeAreCountedInTheOrderingsIndexWithoutOrderOrLimit() throws {
        let source = try source("mixed")
        for (sortColumn, descending) in [("v", false), ("v", true), (nil, false)] as [(String?, Bool)] {
            let ordering = try RowOrdering(source, sortColumn: sortColumn, descending: descending)
            let position = try fetch(source, ordering, .last, before: 1, after: 0).positions[0]
            try database.reader.inDatabase { db in
                var statements: [String] = []
                db.trace { event in
                    if case let .statement(statement) = event { statements.append(statement.sql) }
                }
                _ = try ordering.countRows(db, in: source, before: position)
                db.trace(options: [], nil)
                XCTAssertFalse(statements.isEmpty)
                for sql in statements {
                    XCTAssertFalse(sql.contains("ORDER BY") || sql.contains("LIMIT"), sql)
                    let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(
                        Array(repeating: DatabaseValue.null, count: sql.filter { $0 == "?" }.count)))
                        .map { ($0["detail"] as String?) ?? "" }
                    XCTAssertTrue(plan.allSatisfy { $0.hasPrefix("SEARCH") || $0.contains("COVERING INDEX") }, "\(sql): \(plan)")
                }
            }
        }
    }

    func testHallOfFameIsOneUseOfTheEngine() throws {
        // The Hall of Fame's windows are windows of this engine, on its
        // source of the player table, in each ordering's `rowOrdering`
        // (mixed directions, read on a named index). Its source agrees with
        // the one read from the schema; both give the windows of the players
        // sorted in Swift, and each costs an index search.
        let file = try makeTemporaryDirectory().appendingPathComponent("players.sqlite").path
        let appDatabase = try AppDatabase(try DatabaseQueue(path: file), seed: 7)
        try appDatabase.writer.write { db in try appDatabase.insertRandomPlayers(db, count: 300) }
        database = try SQLiteDataSource.open(path: file)
        let schemaSource = try source("player")
        XCTAssertEqual(HallOfFame.source.columnNames, schemaSource.columnNames)
        XCTAssertEqual(HallOfFame.source.columns.map(\.declaredType), schemaSource.columns.map(\.declaredType))
        let players = try appDatabase.allPlayers()
        for ordering in Ordering.allCases {
            let sorted = HallOfFameModel.sorted(players, by: ordering)
            for player in sorted.enumerated().filter({ $0.offset % 37 == 0 }).map(\.element) {
                let request = WindowRequest(ordering: ordering, anchor: .player(player), before: 5, after: 10)
                let expected = HallOfFameModel.hallOfFame(players, request)
                for source in [schemaSource, HallOfFame.source] {
                    let window = try fetch(source, ordering.rowOrdering, .position(ordering.rowPosition(of: player)), before: 5, after: 10)
                    XCTAssertEqual(window.rows.map { $0[0] }, expected.players.map { $0.id!.databaseValue }, "\(ordering)")
                    XCTAssertEqual(window.reachesStart, expected.reachesStart, "\(ordering)")
                    XCTAssertEqual(window.reachesEnd, expected.reachesEnd, "\(ordering)")
                }
                let hallOfFame = try appDatabase.writer.read { db in try HallOfFame.fetch(db, request) }
                XCTAssertEqual(hallOfFame, expected, "\(ordering)")
            }
            for source in [schemaSource, HallOfFame.source] {
                XCTAssertEqual(try database.read { db in try ordering.rowOrdering.cost(of: source, in: db) }, .indexSearch)
            }
        }
    }

    // MARK: - Cost

    func testCostIsAnIndexSearchWhereAnIndexLeadsWithTheSortColumn() throws {
        let mixed = try source("mixed")
        let pairs = try source("pairs")
        let grouped = try source("grouped")
        let costs = try database.read { db in
            [
                try RowOrdering(mixed).cost(of: mixed, in: db),
                try RowOrdering(mixed, sortColumn: "v").cost(of: mixed, in: db),
                try RowOrdering(mixed, sortColumn: "v", descending: true).cost(of: mixed, in: db),
                try RowOrdering(mixed, sortColumn: "id", descending: true).cost(of: mixed, in: db),
                try RowOrdering(mixed, sortColumn: "w").cost(of: mixed, in: db),
                try RowOrdering(pairs).cost(of: pairs, in: db),
                try RowOrdering(pairs, sortColumn: "c").cost(of: pairs, in: db),
                try RowOrdering(grouped).cost(of: grouped, in: db),
            ]
        }
        XCTAssertEqual(costs, [.indexSearch, .indexSearch, .indexSearch, .indexSearch, .scan, .indexSearch, .scan, .scan])
    }

    func testWindowsNeverUseOffset() throws {
        let source = try source("mixed")
        let ordering = try RowOrdering(source, sortColumn: "v")
        var statements: [String] = []
        try database.reader.inDatabase { db in
            db.trace { statements.append($0.expandedDescription) }
            let window = try RowWindow.fetch(db, source, RowWindowRequest(ordering: ordering, anchor: .last, before: 3, after: 3))
            _ = try RowWindow.fetch(db, source, RowWindowRequest(
                ordering: ordering, anchor: .position(window.positions[2]), before: 3, after: 3))
            db.trace(options: [], nil)
        }
        XCTAssertFalse(statements.isEmpty)
        XCTAssertFalse(statements.contains { $0.uppercased().contains("OFFSET") }, "\(statements)")
    }

    func testAWindowHoldingEveryRowIsReadAgainInOneStatement() throws {
        // A GROUP BY runs whole for each statement: a window around its
        // third group reads before, at and after it with three.
        let source = try source("grouped")
        let ordering = try RowOrdering(source, sortColumn: "count")
        let all = try fetch(source, ordering, .first, before: 0, after: 20)
        XCTAssertTrue(all.reachesEnd)
        func statements(readsWhole: Bool, anchor: RowPosition) throws -> (count: Int, window: RowWindow) {
            var statements: [String] = []
            let window = try database.reader.inDatabase { db in
                db.trace { statements.append($0.expandedDescription) }
                defer { db.trace(options: [], nil) }
                return try RowWindow.fetch(db, source, RowWindowRequest(
                    ordering: ordering, anchor: .position(anchor), before: 10, after: 10, readsWhole: readsWhole))
            }
            return (statements.filter { $0.uppercased().hasPrefix("SELECT") }.count, window)
        }
        let byRanges = try statements(readsWhole: false, anchor: all.positions[2])
        let whole = try statements(readsWhole: true, anchor: all.positions[2])
        XCTAssertEqual(whole.window.rows, byRanges.window.rows)
        XCTAssertEqual(whole.window.positions, byRanges.window.positions)
        XCTAssertGreaterThanOrEqual(byRanges.count, 2)
        XCTAssertEqual(whole.count, 1)
        // A group gone: the same statement places its key among the rows.
        for gone in [
            RowPosition(key: [DatabaseValue(value: 1000)!, DatabaseValue(value: "zz")!]),
            RowPosition(key: [all.positions[0].key[0], DatabaseValue(value: "zz")!]),
        ] {
            let placed = try statements(readsWhole: true, anchor: gone)
            XCTAssertEqual(placed.window.rows, try statements(readsWhole: false, anchor: gone).window.rows)
            XCTAssertEqual(placed.count, 1)
        }
    }

    func testAGoneAnchorIsPlacedAmongTheRowsOfOneStatementAsTheRangesPlaceIt() throws {
        // Keys that no row has: each row's key with one value changed, of
        // every storage class, placed by the database, collations included.
        let values: [DatabaseValue] = [
            .null, (-1e301).databaseValue, (-1).databaseValue, (2.75).databaseValue, (3.0).databaseValue,
            (9.3e18).databaseValue, Int64.max.databaseValue, "".databaseValue, "B".databaseValue, "x".databaseValue, "X".databaseValue,
            "y".databaseValue,
            Data([0]).databaseValue, Data([1]).databaseValue,
        ]
        var wholeReads = 0
        var statementsRun = 0
        // `folded` sorts its text without case: the database's order, not bytes'.
        let orderings: [(String, String?, Bool)] = [
            ("mixed", "v", false), ("mixed", "v", true), ("dup", nil, false), ("dup", "n", true), ("grouped", "count", true),
            ("folded", "w", false), ("folded", "w", true),
        ]
        for (table, sortColumn, descending) in orderings {
            let source = try source(table)
            let ordering = try RowOrdering(source, sortColumn: sortColumn, descending: descending)
            let all = try fetch(source, ordering, .first, before: 0, after: 100)
            for key in all.positions.map(\.key) {
                for (column, value) in key.indices.flatMap({ column in values.map { (column, $0) } }) {
                    var gone = key
                    gone[column] = value
                    guard !all.positions.contains(where: { $0.key == gone }) else { continue }
                    // Every row fits: the window's side, or both together.
                    let half = all.rows.count / 2
                    for (before, after) in [(2, all.rows.count), (half, all.rows.count - half)] {
                        let context = "\(table) \(ordering.keyColumns.map(\.expression)) \(gone) (\(before), \(after))"
                        var request = RowWindowRequest(
                            ordering: ordering, anchor: .position(RowPosition(key: gone)), before: before, after: after)
                        let ranges = try database.read { db in try RowWindow.fetch(db, source, request) }
                        request.readsWhole = true
                        var statements = 0
                        let whole = try database.reader.inDatabase { db in
                            db.trace { _ in statements += 1 }
                            defer { db.trace(options: [], nil) }
                            return try RowWindow.fetch(db, source, request)
                        }
                        XCTAssertEqual(whole.rows, ranges.rows, context)
                        XCTAssertEqual(whole.positions, ranges.positions, context)
                        XCTAssertEqual(whole.reachesStart, ranges.reachesStart, context)
                        XCTAssertEqual(whole.reachesEnd, ranges.reachesEnd, context)
                        wholeReads += 1
                        statementsRun += statements
                    }
                }
            }
        }
        XCTAssertGreaterThan(wholeReads, 500)
        XCTAssertEqual(statementsRun, wholeReads, "one statement each")
    }

    func testALiveQuerysWindowAfterItsSelectedRowChangedRunsTheQueryOnce() throws {
        let sql = "SELECT typeof(v) AS type, count(*) AS count, max(id) AS last FROM mixed GROUP BY 1"
        let viewed = try database.open(.query(sql), sortColumn: nil, descending: false, ticket: ReadTicket())
        XCTAssertEqual(viewed.source.identity, .none)
        let first = try database.reader.read { db in
            try ViewerWindow.fetch(db, viewed, RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 20))
        }
        let integers = try XCTUnwrap(first.window.rows.firstIndex { $0[0] == "integer".databaseValue })
        // Another process commits an integer: the selected group's row changes.
        try ForeignFile.sqlite3(file, "INSERT INTO mixed(v, w) VALUES (7, 'r');")
        var statements: [String] = []
        let next = try database.reader.inDatabase { db in
            db.trace { statements.append($0.expandedDescription) }
            defer { db.trace(options: [], nil) }
            return try ViewerWindow.fetch(db, viewed, RowWindowRequest(
                ordering: viewed.ordering, anchor: .position(first.window.positions[integers]), before: 10, after: 10,
                readsWhole: true))
        }
        XCTAssertEqual(statements.filter { $0.contains("GROUP BY") }.count, 1, "\(statements)")
        XCTAssertEqual(next.window.rows.count, first.window.rows.count)
        let count = try XCTUnwrap(Int64.fromDatabaseValue(first.window.rows[integers][1]))
        XCTAssertEqual(next.window.rows[integers][1], (count + 1).databaseValue)
        XCTAssertEqual(next.selection, next.window.positions[integers], "the same group, changed")
    }

    func testMissingSortColumn() throws {
        let source = try source("mixed")
        XCTAssertThrowsError(try RowOrdering(source, sortColumn: "price")) { error in
            XCTAssertEqual("\(error)", #"no column "price" in "mixed": its columns are "id", "v", "w""#)
        }
    }
}
