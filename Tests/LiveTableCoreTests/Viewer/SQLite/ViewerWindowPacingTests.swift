import Foundation
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// How the window of a SQLite file is paced while another process commits:
/// by the writer's lock in rollback-journal mode, by the CPU in WAL mode,
/// where a reader never blocks the writer.
final class ViewerWindowPacingTests: XCTestCase {
    func testWALFileIsPacedByTheCPUAndARollbackJournalFileByTheWriter() throws {
        let path = try makeItemsFile(count: 10)
        let database = try SQLiteDataSource.open(path: path)
        // A slow query's read of 0.2 s: nine times as long after it, as
        // ever, for a rollback-journal writer.
        XCTAssertEqual(database.windowPacing.pause(afterReadingFor: 0.2), 1.8, accuracy: 1e-9)

        // Another process turns the file to WAL: the next observation
        // waits no longer than its read took.
        _ = try ForeignFile.sqlite3(path, "PRAGMA journal_mode=WAL;")
        XCTAssertLessThanOrEqual(database.windowPacing.pause(afterReadingFor: 0.2), 0.2)
        XCTAssertGreaterThanOrEqual(database.windowPacing.pause(afterReadingFor: 0.2), 0.1, "half a core at most")

        _ = try ForeignFile.sqlite3(path, "PRAGMA journal_mode=DELETE;")
        XCTAssertEqual(database.windowPacing.pause(afterReadingFor: 0.2), 1.8, accuracy: 1e-9)
    }
}
