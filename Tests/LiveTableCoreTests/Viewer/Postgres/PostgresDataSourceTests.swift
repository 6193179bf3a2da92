import Foundation
import GRDB
import OpenCombine
import PostgresServer
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// `ViewerDataSourceContract`, kept by `PostgresDataSource` on the shared
/// test server, a psql session as the writer being the other session; and
/// what another session's ALTER or DROP does to the source on screen.
final class PostgresDataSourceTests: XCTestCase {
    private var contract: ViewerDataSourceContract {
        ViewerDataSourceContract(testCase: self) { [unowned self] database in
            var settings = PostgresDataSource.Settings()
            if let interval = database.pollInterval { settings.pollInterval = interval }
            let dataSource = try PostgresTestDatabase.open(database.name, sql: database.sql, settings: settings)
            let server = try PostgresServer.shared
            let writer = try server.session(database: database.name, as: server.writer)
            addTeardownBlock { writer.close() }
            return DataSourceFixture(
                dataSource: dataSource, name: .startingWith("\(database.name) on "),
                anotherSession: { sql in try writer.output(sql) })
        }
    }

    // MARK: - The contract (each case, one line; `ViewerDataSourceContractTests` checks the list)

    func testNameTablesCountsAndOpening() throws { try contract.nameTablesCountsAndOpening() }
    func testSearchFilterMissingRowsAndExport() throws { try contract.searchFilterMissingRowsAndExport() }
    func testASearchInEveryColumnFindsTheTextInAnyColumn() throws { try contract.aSearchInEveryColumnFindsTheTextInAnyColumn() }
    func testSheetsWrittenByTheViewerAreKeyedQueries() throws { try contract.sheetsWrittenByTheViewerAreKeyedQueries() }
    func testAWritingFilterIsRefusedAndWritesNothing() throws { try contract.aWritingFilterIsRefusedAndWritesNothing() }
    func testQueriesAreReadAndWritingOnesRefused() throws { try contract.queriesAreReadAndWritingOnesRefused() }
    func testAQueryOpensInItsOwnOrder() throws { try contract.aQueryOpensInItsOwnOrder() }
    func testAMissingTableIsAMissingSource() throws { try contract.aMissingTableIsAMissingSource() }
    func testAnAbandonedTicketStopsTheReadBeforeItStarts() throws { try contract.anAbandonedTicketStopsTheReadBeforeItStarts() }
    func testRowsBeforeAPositionAreCounted() throws { try contract.rowsBeforeAPositionAreCounted() }
    func testThePositionFarFromTheStartIsExactOnTheScreen() throws { try contract.thePositionFarFromTheStartIsExactOnTheScreen() }
    func testWindowsArriveOnTheMainQueue() throws { try contract.windowsArriveOnTheMainQueue() }
    func testWindowsFollowAnotherSessionsCommits() throws { try contract.windowsFollowAnotherSessionsCommits() }
    func testLivenessSaysThePollingAskedFor() throws { try contract.livenessSaysThePollingAskedFor() }

    // MARK: - PostgreSQL only

    /// Another session adds a column, then drops the table: the next
    /// window has the column; then the source is missing.
    func testAnAlteredTableIsReadAgainAndADroppedOneIsMissing() throws {
        let name = "dataSourceSchemaChanges"
        let database = try PostgresTestDatabase.open(name, sql: """
            CREATE TABLE t(id int PRIMARY KEY, a text);
            INSERT INTO t VALUES (1, 'one'), (2, 'two');
            """)
        let viewed = try database.open(.table("t"), sortColumn: "a", descending: false, ticket: ReadTicket())
        let request = RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 5)
        XCTAssertEqual(texts(try database.fetchWindow(viewed, request, ticket: ReadTicket())), [["1", "one"], ["2", "two"]])

        try PostgresTestDatabase.write(name, "ALTER TABLE t ADD COLUMN b int DEFAULT 7; CREATE INDEX t_a ON t(a);")
        let altered = try database.fetchWindow(viewed, request, ticket: ReadTicket())
        XCTAssertEqual(altered.viewed.source.columnNames, ["id", "a", "b"])
        XCTAssertEqual(altered.viewed.cost, .indexSearch)
        XCTAssertEqual(texts(altered), [["1", "one", "7"], ["2", "two", "7"]])

        try PostgresTestDatabase.write(name, "ALTER TABLE t DROP COLUMN a;")
        XCTAssertThrowsError(try database.fetchWindow(altered.viewed, request, ticket: ReadTicket())) { error in
            XCTAssertEqual(database.failureKind(of: error), .missingSource)
            XCTAssertTrue(database.describe(error).contains("\"a\""), database.describe(error))
        }

        try PostgresTestDatabase.write(name, "DROP TABLE t;")
        XCTAssertThrowsError(try database.fetchWindow(altered.viewed, request, ticket: ReadTicket())) { error in
            XCTAssertEqual(database.failureKind(of: error), .missingSource)
            XCTAssertEqual(database.describe(error), "no table or view \"t\": the database has none that the role may read")
        }
    }
}
