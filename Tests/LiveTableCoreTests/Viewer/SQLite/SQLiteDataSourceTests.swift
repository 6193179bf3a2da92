import Foundation
import GRDB
import OpenCombine
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// `ViewerDataSourceContract`, kept by `SQLiteDataSource` on files made by
/// the sqlite3 CLI, which is also the other session that writes; and what
/// only SQLite does.
final class SQLiteDataSourceTests: XCTestCase {
    private var contract: ViewerDataSourceContract {
        ViewerDataSourceContract(testCase: self) { [unowned self] database in
            let path = try makeTemporaryDirectory().appendingPathComponent("\(database.name).sqlite").path
            try ForeignFile.sqlite3(path, database.sql)
            let polling = CommitPolling(interval: database.pollInterval)
            return DataSourceFixture(
                dataSource: try SQLiteDataSource.open(path: path, polling: polling),
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

    // MARK: - SQLite only

    /// Without a poll asked for, SQLite sees commits by file events and
    /// the title has no note.
    func testLivenessIsSilentWithoutPolling() throws {
        let path = try makeItemsFile(count: 1)
        let dataSource: any ViewerDataSource = try SQLiteDataSource.open(path: path)
        var silent: [ViewerLiveness] = []
        let quiet = dataSource.liveness().sink { silent.append($0) }
        quiet.cancel()
        XCTAssertEqual(silent, [])
    }

    /// A file moved away and back: the watch of commits stopped on it (it
    /// was gone, and ReactiveGRDB watches those connections no more), so
    /// the next open opens the file again, though it is the same one.
    func testAFileMovedAwayAndBackIsOpenedAgainAfterItsWatchStopped() throws {
        let path = try makeItemsFile(count: 3)
        let database = try SQLiteDataSource.open(path: path)
        let viewed = try database.open(.table("item"), sortColumn: nil, descending: false, ticket: ReadTicket())
        let request = RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 3)
        let recorder = ReadRecorder<ViewerWindowRead>()
        let watched = database.windows(of: viewed, request)
            .sink(receiveCompletion: recorder.complete, receiveValue: recorder.receive)
        defer { watched.cancel() }
        waitUntil("the first window") { !recorder.values.isEmpty }
        let away = path + ".away"
        XCTAssertEqual(rename(path, away), 0)
        waitUntil("the watch to stop") { recorder.completion != nil }
        XCTAssertEqual(rename(away, path), 0)

        let reader = database.reader
        _ = try database.open(.table("item"), sortColumn: nil, descending: false, ticket: ReadTicket())
        XCTAssertFalse(database.reader === reader, "the same connections, which ReactiveGRDB watches no more")
        let again = ReadRecorder<ViewerWindowRead>()
        let watchedAgain = database.windows(of: viewed, request)
            .sink(receiveCompletion: again.complete, receiveValue: again.receive)
        defer { watchedAgain.cancel() }
        waitUntil("a window of the file opened again") { !again.values.isEmpty || again.completion != nil }
        XCTAssertNil(again.completion)
    }
}
