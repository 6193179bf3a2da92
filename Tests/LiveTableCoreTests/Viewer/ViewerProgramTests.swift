import Foundation
import GRDB
import OpenCombine
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// The viewer's program on the app loop, as the terminal runs it but with
/// a host that draws nothing: the window observation sees the sqlite3
/// CLI's commits, the row count follows, and `t` stops the observation.
final class ViewerProgramTests: XCTestCase {
    func testCommitsOfAnotherProcessReachTheState() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("live.sqlite").path
        try ForeignFile.sqlite3(path, """
            CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20)
            INSERT INTO item(name) SELECT printf('item %02d', i) FROM n;
            """)
        let database = try SQLiteDataSource.open(path: path)
        try MainActor.assumeIsolated {
            let viewed = try database.read { db in
                try ViewedSource.open(.table("item"), sortColumn: "name", descending: false, in: db)
            }
            let host = SilentHost()
            let loop = AppLoop(
                program: ViewerProgram(dataSource: database),
                state: .initial(databaseName: "live.sqlite", opened: viewed, width: 60, height: 10))
            loop.start(host: host)
            defer { loop.stop() }
            loop.send(.resize(width: 60, height: 10))
            XCTAssertTrue(waitUntil("the first window") {
                loop.state.table?.window?.rows.count == 18 && loop.state.table?.rowCount == 20
            })
            loop.send(.key(.down))  // "item 02"
            XCTAssertEqual(loop.state.table?.selectedRow, 1)

            _ = try ForeignFile.sqlite3(path, "INSERT INTO item(name) VALUES ('a first'), ('b second')")
            XCTAssertTrue(waitUntil("the commit and its count") {
                loop.state.table?.window?.rows.first?[1] == "a first".databaseValue && loop.state.table?.rowCount == 22
                    && loop.state.table?.isCounting == false
            })
            let table = try XCTUnwrap(loop.state.table)
            XCTAssertEqual(table.window?.rows[try XCTUnwrap(table.selectedIndex)][1], "item 02".databaseValue)
            XCTAssertEqual(table.selectedRow, 1, "the selection kept its place on the screen")
            XCTAssertTrue(viewerRender(loop.state).text.contains("row 4 of 22 · live"))

            // Back on the picker, commits no longer reach the table.
            loop.send(.key(.character("t")))
            XCTAssertTrue(waitUntil("the picker") { loop.state.picker.entries?.map(\.name) == ["item"] })
            XCTAssertNil(loop.state.table)
        }
    }

    func testPollingAskedForIsInTheTitle() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("polled.sqlite").path
        try ForeignFile.sqlite3(path, "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO item(name) VALUES ('a');")
        let database = try SQLiteDataSource.open(path: path)
        try MainActor.assumeIsolated {
            let viewed = try database.read { db in
                try ViewedSource.open(.table("item"), sortColumn: nil, descending: false, in: db)
            }
            let loop = AppLoop(
                program: ViewerProgram(dataSource: database.withPolling(CommitPolling(interval: 0.5))),
                state: .initial(databaseName: "polled.sqlite", opened: viewed, width: 60, height: 10))
            loop.start(host: SilentHost())
            defer { loop.stop() }
            loop.send(.resize(width: 60, height: 10))
            XCTAssertTrue(waitUntil("the first window") { loop.state.table?.window?.rows.count == 1 })
            XCTAssertEqual(loop.state.liveness, "polled every 0.5 s")
            XCTAssertNil(loop.state.message, "asked for: no notice")
            let title = loop.program.render(loop.state).lines[0]
            XCTAssertTrue(title.hasSuffix(" · live · polled every 0.5 s "), title)
        }
    }

    /// The picker's counts honour their subscriber's demand: the counts
    /// made while it asks for nothing wait for its next request, the
    /// newest of them, and are not dropped (the picker would say "…" for
    /// good); the publisher finishes once they are delivered.
    func testThePickersCountsWaitForDemand() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("counted.sqlite").path
        try ForeignFile.sqlite3(path, """
            CREATE VIEW forever AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
            SELECT x FROM c WHERE x < 0;
            CREATE TABLE two(id INTEGER PRIMARY KEY); INSERT INTO two VALUES (1), (2);
            CREATE TABLE three(id INTEGER PRIMARY KEY); INSERT INTO three VALUES (1), (2), (3);
            """)
        let database = CountRecordingSource(try SQLiteDataSource.open(path: path))
        MainActor.assumeIsolated {
            let command = ViewerProgram(dataSource: database).command(
                for: .countTables(from: 0, names: ["forever", "two", "three"], kinds: [.view, .table, .table]))
            guard case let .observe(_, counts) = command else { return XCTFail("\(command)") }
            let subscriber = OneAtATime()
            counts.subscribe(subscriber)
            defer { subscriber.subscription?.cancel() }
            // The view's count takes its whole time limit, and is sent
            // alone; the tables' follow at once, while nothing is asked.
            XCTAssertTrue(waitUntil("the view's count") { subscriber.received.count == 1 })
            XCTAssertEqual(subscriber.received.first, .tablesCounted(from: 0, names: ["forever", "two", "three"], counts: [nil]))
            // A gap in the demand, until the tables have been counted; then
            // what their counts would have sent has had its turn on the
            // main queue.
            XCTAssertTrue(waitUntil("the tables counted while nothing is asked") {
                database.counted.contains("two") && database.counted.contains("three")
            })
            var drained = false
            DispatchQueue.main.async { drained = true }
            XCTAssertTrue(waitUntil("the main queue drained") { drained })
            XCTAssertEqual(subscriber.received.count, 1, "nothing beyond the demand")
            XCTAssertTrue(waitUntil("the tables' counts, asked for one message at a time") {
                if subscriber.counts.last?.count == 3 { return true }
                if !subscriber.isAsking { subscriber.ask() }
                return false
            })
            XCTAssertEqual(subscriber.counts.last, [nil, .exact(2), .exact(3)])
            // Each message holds the counts of the one before.
            for (earlier, later) in zip(subscriber.counts, subscriber.counts.dropFirst()) {
                XCTAssertEqual(Array(later.prefix(earlier.count)), earlier)
            }
            XCTAssertTrue(waitUntil("finished after the last counts") { subscriber.isFinished })
        }
    }
}

/// A host that draws nothing.
@MainActor
private final class SilentHost: AppHost {
    func draw(_ screen: Screen) { }
    func suspend() { }
    func quit() { }
}

/// A data source that forwards to a SQLite database, and records the
/// tables whose quick count has finished: a test then knows the counts were
/// made, rather than hoping a pause was long enough.
// @unchecked Sendable: `finished` is guarded by `lock`.
private final class CountRecordingSource: ViewerDataSource, @unchecked Sendable {
    private let database: SQLiteDataSource
    private let lock = NSLock()
    private var finished: [String] = []

    init(_ database: SQLiteDataSource) {
        self.database = database
    }

    /// The tables whose quick count has returned, in order.
    var counted: [String] {
        lock.withLock { finished }
    }

    var name: String { database.name }

    func listTables(ticket: ReadTicket) throws -> [(name: String, kind: TableSchema.Kind)] {
        try database.listTables(ticket: ticket)
    }

    func quickRowCount(ofTable name: String, kind: TableSchema.Kind, ticket: ReadTicket) throws -> RowCount {
        defer { lock.withLock { finished.append(name) } }
        return try database.quickRowCount(ofTable: name, kind: kind, ticket: ticket)
    }

    func open(_ target: ViewerTarget, sortColumn: String?, descending: Bool, ticket: ReadTicket) throws -> ViewedSource {
        try database.open(target, sortColumn: sortColumn, descending: descending, ticket: ticket)
    }

    func countRows(of source: RowSource, ticket: ReadTicket) throws -> RowCount {
        try database.countRows(of: source, ticket: ticket)
    }

    func estimatedRowCount(of source: RowSource, ticket: ReadTicket) throws -> Int? {
        try database.estimatedRowCount(of: source, ticket: ticket)
    }

    func countRows(of viewed: ViewedSource, before position: RowPosition, ticket: ReadTicket) throws -> RowCount {
        try database.countRows(of: viewed, before: position, ticket: ticket)
    }

    func search(_ search: RowSearch, in viewed: ViewedSource, ticket: ReadTicket) throws -> RowSearchResult {
        try database.search(search, in: viewed, ticket: ticket)
    }

    func filter(
        _ viewed: ViewedSource, by expression: String?, ticket: ReadTicket
    ) throws -> (viewed: ViewedSource, scannedRows: RowCount?)
    {
        try database.filter(viewed, by: expression, ticket: ticket)
    }

    func missingRows(of source: RowSource, among keys: [StoredKey], ticket: ReadTicket) throws -> [StoredKey] {
        try database.missingRows(of: source, among: keys, ticket: ticket)
    }

    func export(
        _ plan: ExportPlan, format: ExportFormat, ticket: ReadTicket,
        write: (UnsafeRawBufferPointer, Int) throws -> Void
    ) throws -> RowExport.Summary {
        try database.export(plan, format: format, ticket: ticket, write: write)
    }

    func windows(of viewed: ViewedSource, _ request: RowWindowRequest) -> AnyPublisher<ViewerWindowRead, any Error> {
        database.windows(of: viewed, request)
    }

    func liveness() -> AnyPublisher<ViewerLiveness, Never> {
        database.liveness()
    }

    func describe(_ error: any Error) -> String {
        database.describe(error)
    }

    func failureKind(of error: any Error) -> ViewerFailureKind {
        database.failureKind(of: error)
    }
}

/// A subscriber that asks for one message at a time, when told.
private final class OneAtATime: Subscriber {
    typealias Input = ViewerMessage
    typealias Failure = Never

    var subscription: (any Subscription)?
    var received: [ViewerMessage] = []
    /// Asked for a message not received yet.
    var isAsking = false
    var isFinished = false

    /// The counts of each message received.
    var counts: [[RowCount?]] {
        received.compactMap { message in
            guard case let .tablesCounted(_, _, counts) = message else { return nil }
            return counts
        }
    }

    func ask() {
        isAsking = true
        subscription?.request(.max(1))
    }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        ask()
    }

    func receive(_ input: ViewerMessage) -> Subscribers.Demand {
        received.append(input)
        isAsking = false
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {
        isFinished = true
    }
}
