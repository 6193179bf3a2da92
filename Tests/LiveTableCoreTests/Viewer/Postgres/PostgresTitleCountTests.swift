import Foundation
import OpenCombine
import PostgresServer
import XCTest
@testable import LiveTableCore

/// The title's row count on PostgreSQL: the planner's estimate at once
/// (`~N`, from `pg_class.reltuples`), then the exact count once the
/// background `count(*)`, which scans the table, ends.
final class PostgresTitleCountTests: XCTestCase {
    private static let name = "titleCountTests"
    // Analysed at 150,000 rows, then 20,000 more: the estimate and the
    // count differ. Autovacuum off: its ANALYZE would catch up.
    private static let sql = """
        CREATE TABLE tracks(id int PRIMARY KEY, title text) WITH (autovacuum_enabled = false);
        INSERT INTO tracks SELECT i, 'track ' || i FROM generate_series(1, 150000) i;
        ANALYZE tracks;
        INSERT INTO tracks SELECT i, 'track ' || i FROM generate_series(150001, 170000) i;
        """

    func testTheTitleShowsTheEstimateThenTheExactCount() throws {
        let database = try PostgresTestDatabase.open(Self.name, sql: Self.sql)
        let estimate = try XCTUnwrap(Int(try PostgresTestDatabase.write(
            Self.name, "SELECT reltuples::bigint FROM pg_class WHERE oid = 'tracks'::regclass;")))
        XCTAssertNotEqual(estimate, 170_000, "the estimate is the count: the test shows nothing")
        XCTAssertGreaterThan(estimate, 0, "the table was never analysed")

        let (opened, viewed, request) = try openedTracks(database)
        var state = opened
        _ = viewerUpdate(&state, .window(try database.fetchWindow(viewed, request, ticket: ReadTicket())))
        let title = { viewerRender(state).lines[0] }
        XCTAssertTrue(title().contains("row 1 of … · live"), title())

        // The program's count, as the screen runs it: the estimate comes
        // first, read without a scan, then the count.
        let messages = MainActor.assumeIsolated { () -> [ViewerMessage] in
            let command = ViewerProgram(dataSource: database).command(for: .count(viewed.source, estimating: true))
            guard case let .observe(_, publisher) = command else { return [] }
            var messages: [ViewerMessage] = []
            var finished = false
            let cancellable = publisher.sink(
                receiveCompletion: { _ in finished = true },
                receiveValue: { messages.append($0) })
            defer { cancellable.cancel() }
            waitUntil("the count's end") { finished }
            return messages
        }
        guard messages.count == 2 else { return XCTFail("not an estimate then a count: \(messages)") }
        XCTAssertEqual(messages.first, .countEstimated(estimate))
        guard case let .counted(count, isExact, _)? = messages.last else {
            return XCTFail("no count: \(messages)")
        }
        XCTAssertEqual(count, 170_000)
        XCTAssertTrue(isExact)

        _ = viewerUpdate(&state, messages[0])
        XCTAssertTrue(title().contains("row 1 of ~\(grouped(estimate)) · live"), title())
        // A count that fails (a statement timeout) leaves the estimate.
        var failed = state
        _ = viewerUpdate(&failed, .countFailed("canceling statement due to statement timeout"))
        XCTAssertTrue(viewerRender(failed).lines[0].contains("row 1 of ~\(grouped(estimate)) · live"),
                      viewerRender(failed).lines[0])
        XCTAssertTrue(viewerRender(failed).text.contains("canceling statement due to statement timeout"))

        _ = viewerUpdate(&state, messages[1])
        XCTAssertTrue(title().contains("row 1 of 170,000 · live"), title())
        // A commit, once the count is known: counted again, with no
        // estimate read before (it would be dropped).
        let recounts = viewerUpdate(&state, .window(try database.fetchWindow(viewed, request, ticket: ReadTicket())))
            + viewerUpdate(&state, .countPauseEnded)
        XCTAssertEqual(recounts.filter { if case .count = $0 { return true } else { return false } },
                       [.count(viewed.source, estimating: false)])
    }

    /// The launch's count runs once (issue 25, item 11): a commit while it
    /// runs (autovacuum's, another table's: the token moves) leaves it on
    /// the title as counted, without `~`; the count after its pause is the
    /// pacing's, as for any commit. Before, the title kept `~` until a
    /// second exact count, seconds later.
    func testTheLaunchCountIsShownAsCountedThoughACommitCameWhileItRan() throws {
        let database = try PostgresTestDatabase.open(Self.name, sql: Self.sql)
        let (opened, viewed, request) = try openedTracks(database)
        var state = opened
        let window = try database.fetchWindow(viewed, request, ticket: ReadTicket())
        _ = viewerUpdate(&state, .window(window))
        // The token moved while the count runs: the window is read again.
        let duringCount = viewerUpdate(&state, .window(window))
        XCTAssertFalse(duringCount.contains { if case .count = $0 { return true } else { return false } },
                       "a second count started: \(duringCount)")
        let counted = viewerUpdate(&state, .counted(170_000, isExact: true, seconds: 0.2))
        let title = { viewerRender(state).lines[0] }
        XCTAssertTrue(title().contains("row 1 of 170,000 · live"), title())
        guard case let .pauseCounting(pause)? = counted.first else { return XCTFail("no pause: \(counted)") }
        XCTAssertGreaterThan(pause, 0)
        // Counted again after the pause, for the commit: `~` while it runs.
        let after = viewerUpdate(&state, .countPauseEnded)
        XCTAssertEqual(after, [.count(viewed.source, estimating: false)])
        XCTAssertTrue(title().contains("row 1 of ~170,000 · live"), title())
        // That count is no launch's: a commit during it leaves `~`.
        _ = viewerUpdate(&state, .window(window))
        _ = viewerUpdate(&state, .counted(170_000, isExact: true, seconds: 0.2))
        XCTAssertTrue(title().contains("row 1 of ~170,000 · live"), title())
    }

    /// A filter's rows are not the table's: no estimate, the title waits
    /// for the count.
    func testAFilteredTableHasNoEstimate() throws {
        let database = try PostgresTestDatabase.open(Self.name, sql: Self.sql)
        let viewed = try database.open(.table("tracks"), sortColumn: nil, descending: false, ticket: ReadTicket())
        XCTAssertNotNil(try database.estimatedRowCount(of: viewed.source, ticket: ReadTicket()))
        let filtered = try database.filter(viewed, by: "id < 10", ticket: ReadTicket()).viewed
        XCTAssertNil(try database.estimatedRowCount(of: filtered.source, ticket: ReadTicket()))
        let query = try database.open(.query("SELECT * FROM tracks"), sortColumn: nil, descending: false, ticket: ReadTicket())
        XCTAssertNil(try database.estimatedRowCount(of: query.source, ticket: ReadTicket()))
    }

    /// The viewer of `tracks` at 100 × 10, its count asked (the estimate
    /// first), and the request of its first window.
    private func openedTracks(
        _ database: PostgresDataSource
    ) throws -> (ViewerState, ViewedSource, RowWindowRequest) {
        let viewed = try database.open(.table("tracks"), sortColumn: nil, descending: false, ticket: ReadTicket())
        var state = ViewerState.initial(databaseName: Self.name, opened: viewed, width: 100, height: 10)
        let effects = viewerUpdate(&state, .resize(width: 100, height: 10))
        XCTAssertTrue(effects.contains(.count(viewed.source, estimating: true)), "\(effects)")
        let request = try XCTUnwrap(effects.lazy.compactMap { effect -> RowWindowRequest? in
            if case let .observe(_, request) = effect { return request } else { return nil }
        }.first)
        return (state, viewed, request)
    }
}
