import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// The status line's "players deleted" is the true count: the app's loop
/// runs `r`, `s` and `D` on a seeded WAL file of 300 players (as the app
/// opens it), whose window shows few of them; a trigger counts the rows
/// deleted.
final class DeletedCountTests: XCTestCase {
    /// A host that draws nothing.
    @MainActor
    private final class TestHost: AppHost {
        let loop: AppLoop<HallOfFameProgram>

        init(_ appDatabase: AppDatabase) {
            loop = AppLoop(program: HallOfFameProgram(database: appDatabase), state: .initial(width: 80, height: 24))
            loop.start(host: self)
            loop.send(.resize(width: 80, height: 24))
        }

        func draw(_ screen: Screen) { }
        func suspend() { XCTFail("unexpected suspend") }
        func quit() { XCTFail("unexpected quit") }
    }

    private var appDatabase: AppDatabase!

    override func setUpWithError() throws {
        let directory = try makeTemporaryDirectory()
        appDatabase = try AppDatabase(DatabaseKind.pool.makeWriter(in: directory), seed: 5)
        try appDatabase.writer.write { db in
            try appDatabase.insertRandomPlayers(db, count: 300)
            try db.execute(sql: """
                CREATE TABLE deletion(n);
                CREATE TRIGGER counted AFTER DELETE ON player BEGIN INSERT INTO deletion VALUES (1); END;
                """)
        }
    }

    // XCTest runs tests on the main thread.
    func testRefreshesCountThePlayersTheyDeleteOutOfSight() throws {
        try MainActor.assumeIsolated { try refreshesCountThePlayersTheyDeleteOutOfSight() }
    }

    func testTheStressTestCountsEveryPlayerItDeletes() throws {
        try MainActor.assumeIsolated { try stressTestCountsEveryPlayerItDeletes() }
    }

    func testDeleteAllCountsEveryPlayer() throws {
        try MainActor.assumeIsolated { try deleteAllCountsEveryPlayer() }
    }

    @MainActor
    private func refreshesCountThePlayersTheyDeleteOutOfSight() throws {
        let loop = try start()
        var hidden = 0
        for _ in 0..<30 {
            let before = try deletions(), countBefore = loop.state.hallOfFame?.playerCount
            loop.send(.key(.character("r")))
            try waitForQuiet(loop)
            let deleted = try deletions() - before
            if deleted == 0 {
                XCTAssertFalse(status(loop).contains("deleted"), status(loop))
            } else {
                XCTAssertTrue(status(loop).hasPrefix(" 1 player deleted "), status(loop))
                if loop.state.hallOfFame?.playerCount == countBefore { hidden += 1 }
            }
        }
        XCTAssertGreaterThan(hidden, 0, "the seed deletes and inserts in one refresh")
    }

    @MainActor
    private func stressTestCountsEveryPlayerItDeletes() throws {
        let loop = try start()
        let before = try deletions()
        loop.send(.key(.character("s")))
        waitUntil("the stress test ends", timeout: 60) {
            if case .finished? = loop.state.status.stressTest { return true }
            return false
        }
        try waitForQuiet(loop)
        let deleted = try deletions() - before
        XCTAssertGreaterThan(deleted, 1)
        XCTAssertTrue(status(loop).hasPrefix(" \(deleted) players deleted "), "\(deleted): \(status(loop))")
    }

    @MainActor
    private func deleteAllCountsEveryPlayer() throws {
        let loop = try start()
        loop.send(.key(.character("D")))
        loop.send(.key(.character("y")))
        try waitForQuiet(loop)
        XCTAssertEqual(try deletions(), 300)
        XCTAssertTrue(status(loop).hasPrefix(" 300 players deleted "), status(loop))
    }

    // MARK: - Support

    private var host: AnyObject?

    @MainActor
    private func start() throws -> AppLoop<HallOfFameProgram> {
        let host = TestHost(appDatabase)
        self.host = host
        try waitForQuiet(host.loop)
        return host.loop
    }

    /// The rows deleted since the trigger was made.
    private func deletions() throws -> Int {
        try appDatabase.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM deletion") ?? 0 }
    }

    /// Waits for the writes to end and the window to show the file as it is.
    @MainActor
    private func waitForQuiet(_ loop: AppLoop<HallOfFameProgram>, line: UInt = #line) throws {
        let appDatabase = self.appDatabase!
        waitUntil("writes done and shown", timeout: 20, line: line) {
            let count = try? appDatabase.writer.read(AppDatabase.playerCount)
            return loop.operationsInFlight == 0 && loop.state.status.pendingWrites == 0
                && loop.state.hallOfFame?.playerCount == count
        }
    }

    @MainActor
    private func status(_ loop: AppLoop<HallOfFameProgram>) -> String {
        hallOfFameRender(loop.state).lines[23]
    }
}
