import Foundation
import PostgresServer
import XCTest
@testable import LiveTableCore

/// The title's position on PostgreSQL where no count of the rows before
/// the selection follows a commit (an unindexed sort): unknown, never a
/// number carried over from before the commit.
final class PostgresTitlePositionTests: XCTestCase {
    private static let name = "titlePositionTests"
    private static let sql = """
        CREATE TABLE placed(id int PRIMARY KEY, name text);
        INSERT INTO placed SELECT i, 'm' || lpad(i::text, 6, '0') FROM generate_series(1, 300) i;
        """

    func testRowsInsertedBeforeTheSelectionUnderAnUnindexedSortMakeThePositionUnknown() throws {
        let database = try PostgresTestDatabase.open(Self.name, sql: Self.sql)
        let viewed = try database.open(.table("placed"), sortColumn: "name", descending: false, ticket: ReadTicket())
        XCTAssertFalse(viewed.countsRowsBefore, "an unindexed sort: nothing counts the rows before")
        var state = ViewerState.initial(databaseName: Self.name, opened: viewed, width: 100, height: 10)
        // Each window and count the update asks for, read from the server,
        // as the screen does.
        func deliver(_ effects: [ViewerEffect]) throws {
            for effect in effects {
                switch effect {
                case let .observe(observed, request):
                    try deliver(viewerUpdate(&state, .window(try database.fetchWindow(observed, request, ticket: ReadTicket()))))
                case let .count(source, _):
                    let count = try database.countRows(of: source, ticket: ReadTicket())
                    try deliver(viewerUpdate(&state, .counted(count.value)))
                case .pauseCounting:
                    try deliver(viewerUpdate(&state, .countPauseEnded))
                default:
                    break
                }
            }
        }
        let title = { viewerRender(state).lines[0] }
        try deliver(viewerUpdate(&state, .resize(width: 100, height: 10)))
        for _ in 0..<36 { try deliver(viewerUpdate(&state, .key(.down))) }
        XCTAssertTrue(title().contains("row 37 of 300 · live"), title())

        try PostgresTestDatabase.write(
            Self.name, "INSERT INTO placed SELECT 1000 + i, 'a' || i FROM generate_series(1, 1000) i;")
        // The window of the same request, read again after the commit.
        let request = try XCTUnwrap(state.table?.observedRequest)
        try deliver(viewerUpdate(&state, .window(try database.fetchWindow(viewed, request, ticket: ReadTicket()))))
        XCTAssertEqual(state.table?.selected?.key.first, "m000037".databaseValue)
        // 1,037 in truth: not 37, nor ~37.
        XCTAssertNil(state.table?.selectedRowNumber, title())
        XCTAssertFalse(title().contains("row "), title())
        XCTAssertTrue(title().contains("1,300 rows · live"), title())
        // Still unknown a page further; known again at the start.
        try deliver(viewerUpdate(&state, .key(.pageDown)))
        XCTAssertNil(state.table?.selectedRowNumber, title())
        try deliver(viewerUpdate(&state, .key(.home)))
        XCTAssertTrue(title().contains("row 1 of 1,300 · live"), title())
    }
}
