import Foundation
import GRDB
import OpenCombine
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// `ViewerDataSourceContract`, kept by `ViewerDatabase` on files made by
/// the sqlite3 CLI, which is also the other session that writes; and what
/// only SQLite does.
final class SQLiteDataSourceTests: XCTestCase {
    private var contract: ViewerDataSourceContract {
        ViewerDataSourceContract(testCase: self) { [unowned self] database in
            let path = try makeTemporaryDirectory().appendingPathComponent("\(database.name).sqlite").path
            try ForeignFile.sqlite3(path, database.sql)
            let polling = CommitPolling(interval: database.pollInterval)
            return DataSourceFixture(
                dataSource: try ViewerDatabase.open(path: path, polling: polling),
                name: .exactly("\(database.name).sqlite"),
                anotherSession: { sql in
                    // The viewer's reads are short: wait for their lock.
                    try ForeignFile.sqlite3(path, ".timeout 2000\n" + sql).trimmingCharacters(in: .whitespacesAndNewlines)
                })
        }
    }

    // MARK: - The contract (each case, one line; `ViewerDataSourceContractTests` checks the list)

    func testNameTablesCountsAndOpening() throws { try contract.nameTablesCountsAndOpening() }
    func testSearchFilterMissingRowsAndExport() throws { try contract.searchFilterMissingRowsAndExport() }
    func testAWritingFilterIsRefusedAndWritesNothing() throws { try contract.aWritingFilterIsRefusedAndWritesNothing() }
    func testQueriesAreReadAndWritingOnesRefused() throws { try contract.queriesAreReadAndWritingOnesRefused() }
    func testAMissingTableIsAMissingSource() throws { try contract.aMissingTableIsAMissingSource() }
    func testAnAbandonedTicketStopsTheReadBeforeItStarts() throws { try contract.anAbandonedTicketStopsTheReadBeforeItStarts() }
    func testRowsBeforeAPositionAreCounted() throws { try contract.rowsBeforeAPositionAreCounted() }
    func testThePositionFarFromTheStartIsExactOnTheScreen() throws { try contract.thePositionFarFromTheStartIsExactOnTheScreen() }
    func testWindowsArriveOnTheMainQueue() throws { try contract.windowsArriveOnTheMainQueue() }
    func testWindowsFollowAnotherSessionsCommits() throws { try contract.windowsFollowAnotherSessionsCommits() }
    func testLivenessSaysThePollingAskedFor() throws { try contract.livenessSaysThePollingAskedFor() }

    // MARK: - SQLite only

    /// Without a poll asked for, SQLite sees commits by file events and
    /// the title has no note.
    func testLivenessIsSilentWithoutPolling() throws {
        let path = try makeItemsFile(count: 1)
        let dataSource: any ViewerDataSource = try ViewerDatabase.open(path: path)
        var silent: [ViewerLiveness] = []
        let quiet = dataSource.liveness().sink { silent.append($0) }
        quiet.cancel()
        XCTAssertEqual(silent, [])
    }
}
