import Foundation
import GRDB
import OpenCombine
import PostgresServer
import XCTest
import LiveTableTestSupport
@testable import LiveTableCore

/// The live windows check the table's schema at most once a
/// `schemaCheckInterval` (`PostgresSchemaChecks`), and still see every
/// kind of DDL of another session: what breaks or retypes a window
/// statement at once, what no statement shows (a column added, an index,
/// the identity, the table replaced) by the check that follows a read
/// which skipped it, without another commit.
final class PostgresSchemaCheckTests: XCTestCase {
    private static let sql = """
        CREATE TABLE track(id int NOT NULL, title text, plays int);
        INSERT INTO track SELECT i, 't' || i, i FROM generate_series(1, 100) i;
        """

    private func open(_ name: String, interval: TimeInterval, keyed: Bool = true) throws -> PostgresDataSource {
        var settings = PostgresDataSource.Settings()
        settings.schemaCheckInterval = interval
        return try PostgresTestDatabase.open(
            name, sql: Self.sql + (keyed ? "ALTER TABLE track ADD PRIMARY KEY (id);" : ""), settings: settings)
    }

    private func observe(_ database: PostgresDataSource) throws -> (ReadRecorder<ViewerWindowRead>, AnyCancellable) {
        let viewed = try database.open(.table("track"), sortColumn: nil, descending: false, ticket: ReadTicket())
        let recorder = ReadRecorder<ViewerWindowRead>()
        let request = RowWindowRequest(
            ordering: viewed.ordering, anchor: .position(RowPosition(key: [10.databaseValue])), before: 2, after: 5)
        let cancellable = database.windows(of: viewed, request)
            .sink(receiveCompletion: recorder.complete, receiveValue: recorder.receive)
        return (recorder, cancellable)
    }

    private func source(_ recorder: ReadRecorder<ViewerWindowRead>) -> RowSource? {
        guard case let .window(window)? = recorder.values.last else { return nil }
        return window.viewed.source
    }

    private func column(_ name: String, _ recorder: ReadRecorder<ViewerWindowRead>) -> SourceColumn? {
        source(recorder)?.columns.first { $0.name == name }
    }

    /// Adds a column, an index on `title` and NOT NULL to `plays`, from
    /// another session, each waited for on the window before the next:
    /// changes that no window statement shows.
    private func addColumnIndexAndNotNull(
        _ name: String, _ recorder: ReadRecorder<ViewerWindowRead>,
        file: StaticString = #filePath, line: UInt = #line) throws
    {
        try PostgresTestDatabase.write(name, "ALTER TABLE track ADD COLUMN note text;")
        waitUntil("a column added", file: file, line: line) {
            source(recorder)?.columnNames == ["id", "title", "plays", "note"]
        }
        try PostgresTestDatabase.write(name, "CREATE INDEX track_title ON track(title);")
        waitUntil("an index", file: file, line: line) { column("title", recorder)?.isIndexed == true }
        try PostgresTestDatabase.write(name, "ALTER TABLE track ALTER plays SET NOT NULL;")
        waitUntil("NOT NULL", file: file, line: line) { column("plays", recorder)?.isNotNull == true }
    }

    /// The reads of a burst of commits check the schema once per
    /// interval, and those that skip the check wait for one later check
    /// between them, which reads the latest request: each used to
    /// schedule its own wait on the queue, which no cancel takes off.
    /// With a check a minute apart, none ends during the test.
    func testWindowReadsCheckTheSchemaOncePerIntervalAndScheduleOneLaterCheck() throws {
        let database = try open("schemaCheckPaced", interval: 60)
        let server = try PostgresServer.shared
        let writer = try server.session(database: "schemaCheckPaced", as: server.writer)
        defer { writer.close() }
        let (recorder, cancellable) = try observe(database)
        defer { cancellable.cancel() }
        waitUntil("first window") { source(recorder) != nil }
        for value in 1...5 {
            try writer.run("UPDATE track SET title = 'u\(value)' WHERE id = 10;")
            waitUntil("u\(value) on the window") {
                guard case let .window(window)? = recorder.values.last else { return false }
                return window.window.rows.contains { String.fromDatabaseValue($0[1]) == "u\(value)" }
            }
        }
        // The open read the catalog just before: the first window is not
        // checked again (issue 25, item 11), the later check follows it.
        XCTAssertEqual(database.schemaChecks.count, 0, "no check within the interval of the open's")
        XCTAssertEqual(database.schemaChecks.laterWaitCount, 1, "one wait for 6 reads without the check")
        XCTAssertNil(recorder.completion)
    }

    /// A change between the open and its first window, which the open's
    /// catalog read stands for, is seen by the check that follows.
    func testAChangeBetweenTheOpenAndTheFirstWindowIsSeenByTheFollowingCheck() throws {
        let name = "schemaCheckAfterOpen"
        let database = try open(name, interval: 1)
        let viewed = try database.open(.table("track"), sortColumn: nil, descending: false, ticket: ReadTicket())
        try PostgresTestDatabase.write(name, "ALTER TABLE track ADD COLUMN note text;")
        let recorder = ReadRecorder<ViewerWindowRead>()
        let request = RowWindowRequest(
            ordering: viewed.ordering, anchor: .position(RowPosition(key: [10.databaseValue])), before: 2, after: 5)
        let cancellable = database.windows(of: viewed, request)
            .sink(receiveCompletion: recorder.complete, receiveValue: recorder.receive)
        defer { cancellable.cancel() }
        waitUntil("the first window") { source(recorder) != nil }
        XCTAssertEqual(source(recorder)?.columnNames, ["id", "title", "plays"], "the open's columns, unchecked")
        XCTAssertEqual(database.schemaChecks.count, 0)
        waitUntil("the column added") { source(recorder)?.columnNames == ["id", "title", "plays", "note"] }
    }

    /// With a check a minute apart: each change is seen at the first read
    /// after it, by the statement it breaks or retypes.
    func testARenamedRetypedOrDroppedColumnOrTableIsSeenAtOnce() throws {
        let name = "schemaCheckAtOnce"
        let database = try open(name, interval: 60)
        let (recorder, cancellable) = try observe(database)
        defer { cancellable.cancel() }
        waitUntil("first window") { source(recorder) != nil }

        try PostgresTestDatabase.write(name, "ALTER TABLE track RENAME COLUMN title TO name;")
        waitUntil("renamed") { source(recorder)?.columnNames == ["id", "name", "plays"] }
        try PostgresTestDatabase.write(name, "ALTER TABLE track ALTER plays TYPE bigint;")
        waitUntil("retyped") { column("plays", recorder)?.declaredType == "bigint" }
        try PostgresTestDatabase.write(name, "ALTER TABLE track ALTER name TYPE varchar(20);")
        waitUntil("retyped, its name kept") { column("name", recorder)?.declaredType == "character varying(20)" }
        try PostgresTestDatabase.write(name, "ALTER TABLE track DROP COLUMN name;")
        waitUntil("dropped") { source(recorder)?.columnNames == ["id", "plays"] }
        XCTAssertNil(recorder.completion)

        try PostgresTestDatabase.write(name, "DROP TABLE track;")
        waitUntil("the table dropped") { recorder.completion != nil }
        guard case let .failure(error)? = recorder.completion else { return XCTFail("finished without error") }
        XCTAssertEqual(database.failureKind(of: error), .missingSource)
        XCTAssertEqual(database.describe(error), "no table or view \"track\": the database has none that the role may read")
    }

    /// With a check every 2 s: what no window statement shows is seen by
    /// the check that follows the read which skipped it, though nothing
    /// else commits.
    func testChangesNoWindowStatementShowsAreSeenByTheFollowingCheck() throws {
        let name = "schemaCheckLater"
        let database = try open(name, interval: 2, keyed: false)
        let (recorder, cancellable) = try observe(database)
        defer { cancellable.cancel() }
        waitUntil("first window") { source(recorder) != nil }
        XCTAssertEqual(source(recorder)?.identity, RowIdentity.none)

        try addColumnIndexAndNotNull(name, recorder)
        try PostgresTestDatabase.write(name, "CREATE UNIQUE INDEX track_id ON track(id);")
        waitUntil("an identity") { source(recorder)?.identity == .primaryKey(["id"]) }
        // Replaced by a table of the same columns, without the index.
        try PostgresTestDatabase.write(name, """
            BEGIN;
            DROP TABLE track;
            CREATE TABLE track(id int PRIMARY KEY, title text, plays int NOT NULL, note text);
            INSERT INTO track SELECT i, 't' || i, i FROM generate_series(1, 100) i;
            COMMIT;
            """)
        waitUntil("the table replaced") { column("title", recorder)?.isIndexed == false }
        XCTAssertNil(recorder.completion)
    }

    /// Each change of the schema is read from the catalog once: the check
    /// that follows a read which skipped it reads the catalog, and the
    /// window of what it found, in one read (it used to read the catalog,
    /// then all of it again with the window). Counted in the server's log
    /// of this database's statements: the statement of a table's columns
    /// (`PostgresDataSource.columnsSQL`) runs once per source read again.
    func testEachSchemaChangeIsReadFromTheCatalogOnce() throws {
        let name = "schemaCheckReadOnce"
        let database = try openLogged(name, interval: 2)
        let (recorder, cancellable) = try observe(database)
        defer { cancellable.cancel() }
        waitUntil("first window") { source(recorder) != nil }
        let logStart = try serverLogSize()

        // What no window statement shows: each seen by the check that
        // follows the read at its commit.
        try addColumnIndexAndNotNull(name, recorder)
        XCTAssertNil(recorder.completion)

        let logged = try serverLog(since: logStart)
        let columnReads = Self.count(PostgresDataSource.columnsSQL, in: logged)
        // A read cancelled midway by a newer one (a commit elsewhere in
        // the cluster, autovacuum's) delivers nothing: its successor may
        // read the columns again.
        let cancelled = logged.components(separatedBy: "canceling statement due to user request").count - 1
        XCTAssertTrue((3...3 + cancelled).contains(columnReads),
                      "the columns read \(columnReads) times for 3 changes (\(cancelled) reads cancelled)")
    }

    /// A check after a change of the schema starts from the source as the
    /// last check found it, not from the one the window was opened with:
    /// the whole source is read again from the catalog once for the
    /// change (it was at every check after it), and the schema version is
    /// read once a check (the reading again read it twice). Counted in the
    /// server's log of this database's statements, of three checked reads
    /// asking for the source as opened.
    func testAChangedSchemaIsReadAgainOnceNotAtEveryCheck() throws {
        let name = "schemaCheckNoReopen"
        let database = try openLogged(name, interval: 60)
        let viewed = try database.open(.table("track"), sortColumn: nil, descending: false, ticket: ReadTicket())
        let request = RowWindowRequest(
            ordering: viewed.ordering, anchor: .position(RowPosition(key: [10.databaseValue])), before: 2, after: 5)
        try PostgresTestDatabase.write(name, "ALTER TABLE track ADD COLUMN note text;")
        let logStart = try serverLogSize()

        for _ in 1...3 {
            let window = try database.fetchWindow(viewed, request, ticket: ReadTicket())
            XCTAssertEqual(window.viewed.source.columnNames, ["id", "title", "plays", "note"])
        }

        let logged = try serverLog(since: logStart)
        XCTAssertEqual(Self.count(PostgresDataSource.columnsSQL, in: logged), 1, "the source read again once for one change")
        XCTAssertEqual(Self.count(PostgresDataSource.schemaVersionSQL, in: logged), 3, "the schema version read once a check")
    }

    // MARK: - The server's log

    /// The database `name`, opened after it was set to log every statement
    /// (sessions take the setting when they connect).
    private func openLogged(_ name: String, interval: TimeInterval) throws -> PostgresDataSource {
        _ = try open(name, interval: interval, keyed: false)
        try PostgresServer.shared.psql("ALTER DATABASE \"\(name)\" SET log_statement = 'all';")
        return try open(name, interval: interval, keyed: false)
    }

    private func serverLogURL() throws -> URL {
        try PostgresServer.shared.directory.appendingPathComponent("server.log")
    }

    /// The size of the server's log now: where the statements that follow
    /// are logged.
    private func serverLogSize() throws -> UInt64 {
        try XCTUnwrap(FileManager.default.attributesOfItem(atPath: serverLogURL().path)[.size] as? NSNumber).uint64Value
    }

    /// What the server logged since `offset`.
    private func serverLog(since offset: UInt64) throws -> String {
        let handle = try FileHandle(forReadingFrom: serverLogURL())
        defer { try? handle.close() }
        try handle.seek(toOffset: offset)
        return String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
    }

    /// How many times `sql` (its first line) is in `logged`.
    private static func count(_ sql: String, in logged: String) -> Int {
        logged.components(separatedBy: String(sql.prefix { $0 != "\n" })).count - 1
    }
}
