import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

final class AppDatabaseTests: XCTestCase {
    private struct TestError: Error { }

    // MARK: - Schema

    func testMigrationsCreatePlayerTableIndexesAndTriggers() throws {
        try forEachDatabaseKind { appDatabase, kind in
            try appDatabase.writer.read { db in
                let columns = try db.columns(in: "player").map { "\($0.name) \($0.type) \($0.isNotNull)" }
                XCTAssertEqual(columns, ["id INTEGER false", "name TEXT true", "score INTEGER true"], "\(kind)")
                XCTAssertEqual(try db.primaryKey("player").columns, ["id"], "\(kind)")
                XCTAssertTrue(try db.tableExists("sqlite_sequence"), "AUTOINCREMENT, \(kind)")

                func keyColumns(_ index: String) throws -> [String] {
                    try Row.fetchAll(db, sql: "PRAGMA index_xinfo(\(index))")
                        .filter { $0["key"] == 1 }
                        .map { row in row["desc"] == 1 ? "\(row["name"] as String) DESC" : row["name"] }
                }
                XCTAssertEqual(try keyColumns("player_on_score"), ["score DESC", "name", "id"], "\(kind)")
                XCTAssertEqual(try keyColumns("player_on_name"), ["name", "score DESC", "id"], "\(kind)")

                let triggers = try String.fetchAll(db, sql: """
                    SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'player' ORDER BY name
                    """)
                XCTAssertEqual(triggers, [
                    "player_afterDelete", "player_afterInsert",
                    "player_afterUpdateOfName", "player_afterUpdateOfScore",
                ], "\(kind)")
                XCTAssertEqual(try AppDatabase.playerCount(db), 0, "\(kind)")
                XCTAssertNil(try AppDatabase.maxScore(db), "\(kind)")
            }
        }
    }

    func testPlayerNameCanNotBeEmpty() throws {
        try forEachDatabaseKind { appDatabase, kind in
            XCTAssertThrowsError(try appDatabase.writer.write { db in
                _ = try Player(name: "", score: 1).inserted(db)
            }) { error in
                XCTAssertEqual((error as? DatabaseError)?.extendedResultCode, .SQLITE_CONSTRAINT_CHECK, "\(kind)")
            }
            XCTAssertEqual(try appDatabase.allPlayers(), [], "\(kind)")
        }
    }

    func testMaxScoreIsReadFromScoreIndex() throws {
        let appDatabase = try AppDatabase.inMemory()
        let plan = try appDatabase.writer.writeWithoutTransaction { db in
            // The plan of the statement that `maxScore` runs.
            var statements: [String] = []
            db.trace { event in
                if case let .statement(statement) = event { statements.append(statement.sql) }
            }
            _ = try AppDatabase.maxScore(db)
            db.trace(nil)
            XCTAssertEqual(statements.count, 1, "\(statements)")
            return try String.fetchAll(db, sql: "EXPLAIN QUERY PLAN \(XCTUnwrap(statements.first))", adapter: SuffixRowAdapter(fromIndex: 3))
        }
        XCTAssertEqual(plan, ["SEARCH player USING COVERING INDEX player_on_score"])
    }

    func testStatisticsFollowEveryChange() throws {
        try forEachDatabaseKind { appDatabase, kind in
            let writer = appDatabase.writer
            func assertStatistics(_ step: String, line: UInt = #line) throws {
                try writer.read { db in
                    XCTAssertEqual(
                        try AppDatabase.playerCount(db), try Player.fetchCount(db),
                        "count after \(step), \(kind)", line: line)
                    for (table, expression) in [
                        ("playerScoreBucket", SQL.scoreBucket("score")),
                        ("playerNameBucket", SQL.nameBucket("name")),
                    ] {
                        let buckets = try Row.fetchAll(db, sql: """
                            SELECT bucket, playerCount FROM \(table) WHERE playerCount <> 0 ORDER BY bucket
                            """)
                        let expected = try Row.fetchAll(db, sql: """
                            SELECT \(expression) AS bucket, COUNT(*) AS playerCount FROM player GROUP BY 1 ORDER BY 1
                            """)
                        XCTAssertEqual(buckets, expected, "\(table) after \(step), \(kind)", line: line)
                    }
                }
            }

            try assertStatistics("migrations")
            var arthur = Player(name: "Arthur", score: 10)
            try writer.write { db in
                try arthur.insert(db)
                _ = try Player(name: "Éric", score: -5).inserted(db)
                _ = try Player(name: "Z", score: 5000).inserted(db)
            }
            try assertStatistics("inserts")
            try writer.write { db in try appDatabase.insertRandomPlayers(db, count: 300) }
            try assertStatistics("bulk insert")
            arthur.score = 999
            arthur.name = "Bernard"
            try writer.write { db in try arthur.update(db) }
            try assertStatistics("update")
            try writer.write { db in
                try db.execute(sql: "UPDATE player SET score = score + 7 WHERE id % 3 = 0")
                try db.execute(sql: "UPDATE player SET name = name || 'x' WHERE id % 5 = 0")
            }
            try assertStatistics("bulk updates")
            _ = try writer.write { db in try Player.deleteOne(db, key: arthur.id) }
            try assertStatistics("delete")
            try writer.write { db in
                try db.execute(sql: "DELETE FROM player WHERE id % 4 = 0")
            }
            try assertStatistics("bulk delete")

            let countBeforeRollbacks = try writer.read(AppDatabase.playerCount)
            XCTAssertThrowsError(try writer.write { db in
                try appDatabase.insertRandomPlayers(db, count: 10)
                try db.execute(sql: "DELETE FROM player WHERE id % 2 = 0")
                throw TestError()
            })
            try writer.writeWithoutTransaction { db in
                try db.inTransaction {
                    try db.execute(sql: "UPDATE player SET score = 2000")
                    return .rollback
                }
            }
            try writer.write { db in
                try db.inSavepoint {
                    try Player.deleteAll(db)
                    return .rollback
                }
                _ = try Player(name: "Craig", score: 3).inserted(db)
            }
            try assertStatistics("rolled back transactions")
            XCTAssertEqual(try writer.read(AppDatabase.playerCount), countBeforeRollbacks + 1, "\(kind)")

            _ = try awaitValue(appDatabase.deleteAll())
            try assertStatistics("delete all")
            XCTAssertEqual(try writer.read(AppDatabase.playerCount), 0, "\(kind)")
            try writer.write { db in try appDatabase.insertRandomPlayers(db, count: 5) }
            try assertStatistics("inserts after delete all")
        }
    }

    // MARK: - Intents

    func testCreateRandomPlayersIfEmpty() throws {
        try forEachDatabaseKind { appDatabase, kind in
            try appDatabase.createRandomPlayersIfEmpty()
            let players = try appDatabase.allPlayers()
            XCTAssertEqual(players.count, 8, "\(kind)")
            for player in players {
                XCTAssertTrue(RandomSource.names.contains(player.name), "\(player), \(kind)")
                XCTAssertTrue(player.score.integerValue.map(RandomSource.scores.contains) == true, "\(player), \(kind)")
            }

            try appDatabase.createRandomPlayersIfEmpty(count: 3)
            XCTAssertEqual(try appDatabase.allPlayers(), players, "\(kind)")
        }
    }

    func testInsertRandomPlayer() throws {
        try forEachDatabaseKind { appDatabase, kind in
            let player = try awaitValue(appDatabase.insertRandomPlayer())
            XCTAssertNotNil(player.id, "\(kind)")
            XCTAssertTrue(RandomSource.names.contains(player.name), "\(kind)")
            XCTAssertTrue(player.score.integerValue.map(RandomSource.scores.contains) == true, "\(kind)")
            XCTAssertEqual(try appDatabase.allPlayers(), [player], "\(kind)")
        }
    }

    func testUpdatePlayer() throws {
        try forEachDatabaseKind { appDatabase, kind in
            var player = try awaitValue(appDatabase.insertRandomPlayer())
            let other = try awaitValue(appDatabase.insertRandomPlayer())
            player.name = "Wilhelmina Jr"
            player.score = 12345
            try awaitValue(appDatabase.updatePlayer(player))
            XCTAssertEqual(try appDatabase.allPlayers(), [player, other], "\(kind)")

            var invalid = player
            invalid.name = ""
            XCTAssertThrowsError(try awaitValue(appDatabase.updatePlayer(invalid))) { error in
                XCTAssertEqual((error as? DatabaseError)?.extendedResultCode, .SQLITE_CONSTRAINT_CHECK, "\(kind)")
            }
            var missing = player
            missing.id = 999
            XCTAssertThrowsError(try awaitValue(appDatabase.updatePlayer(missing))) { error in
                XCTAssertTrue(error is RecordError, "\(error), \(kind)")
            }
            XCTAssertEqual(try appDatabase.allPlayers(), [player, other], "\(kind)")
        }
    }

    func testDeletePlayer() throws {
        try forEachDatabaseKind { appDatabase, kind in
            let first = try awaitValue(appDatabase.insertRandomPlayer())
            let second = try awaitValue(appDatabase.insertRandomPlayer())
            XCTAssertEqual(try awaitValue(appDatabase.deletePlayer(id: first.id!)), 1, "\(kind)")
            XCTAssertEqual(try appDatabase.allPlayers(), [second], "\(kind)")
            XCTAssertEqual(try awaitValue(appDatabase.deletePlayer(id: first.id!)), 0, "\(kind)")
            XCTAssertEqual(try appDatabase.allPlayers(), [second], "deleting a missing player, \(kind)")
        }
    }

    func testDeleteAll() throws {
        try forEachDatabaseKind { appDatabase, kind in
            try appDatabase.createRandomPlayersIfEmpty()
            let count = try appDatabase.writer.read(AppDatabase.playerCount)
            XCTAssertEqual(try awaitValue(appDatabase.deleteAll()), count, "the players deleted, \(kind)")
            XCTAssertEqual(try appDatabase.allPlayers(), [], "\(kind)")
            XCTAssertEqual(try appDatabase.writer.read(AppDatabase.playerCount), 0, "\(kind)")
        }
    }

    func testRefreshOfEmptyDatabaseInsertsEightPlayers() throws {
        try forEachDatabaseKind { appDatabase, kind in
            XCTAssertEqual(try awaitValue(appDatabase.refresh()), 0, "\(kind)")
            XCTAssertEqual(try appDatabase.allPlayers().count, 8, "\(kind)")
        }
    }

    /// A model replays the draws of the seeded generator: maybe insert,
    /// maybe delete, then a new score for every player, in id order.
    func testRefreshMatchesSeededModel() throws {
        try forEachDatabaseKind(seed: 7) { appDatabase, kind in
            let model = RandomSource(seed: 7)
            try appDatabase.writer.write { db in try appDatabase.insertRandomPlayers(db, count: 30) }
            var expected = (1...30).map { id in
                var player = model.makePlayer()
                player.id = Int64(id)
                return player
            }
            var nextID: Int64 = 31
            XCTAssertEqual(try appDatabase.allPlayers(), expected, "\(kind)")

            var insertions = 0
            var deletions = 0
            let refreshCount = 12
            for _ in 0..<refreshCount {
                let countBefore = expected.count
                let deletionsBefore = deletions
                if model.bool() {
                    var player = model.makePlayer()
                    player.id = nextID
                    nextID += 1
                    expected.append(player)
                    insertions += 1
                }
                if model.bool() {
                    let id = model.int64(in: expected.first!.id!...expected.last!.id!)
                    expected.remove(at: expected.firstIndex { $0.id! >= id }!)
                    deletions += 1
                }
                for index in expected.indices {
                    expected[index].score = Score(model.score())
                }

                XCTAssertEqual(try awaitValue(appDatabase.refresh()), deletions - deletionsBefore, "the players deleted, \(kind)")
                let players = try appDatabase.allPlayers()
                XCTAssertEqual(players, expected, "\(kind)")
                XCTAssertTrue((-1...1).contains(players.count - countBefore), "\(kind)")
                XCTAssertTrue(players.allSatisfy { $0.score.integerValue.map(RandomSource.scores.contains) == true }, "\(kind)")
            }
            // The seed exercises every branch.
            XCTAssertTrue((1..<refreshCount).contains(insertions), "insertions: \(insertions)")
            XCTAssertTrue((1..<refreshCount).contains(deletions), "deletions: \(deletions)")
        }
    }

    func testSeedMakesIntentsReproducible() throws {
        func run(seed: UInt64) throws -> [Player] {
            let appDatabase = try AppDatabase.inMemory(seed: seed)
            try appDatabase.createRandomPlayersIfEmpty()
            try appDatabase.writer.write { db in
                _ = try appDatabase.insertRandomPlayer(db)
                try appDatabase.refresh(db)
                try appDatabase.refresh(db)
                try appDatabase.insertRandomPlayers(db, count: 20)
                try appDatabase.refresh(db)
            }
            return try appDatabase.allPlayers()
        }
        let players = try run(seed: 42)
        XCTAssertEqual(try run(seed: 42), players)
        XCTAssertNotEqual(try run(seed: 43), players)
    }

    // MARK: - Stress test

    func testStressTestEndsWithObservationMatchingDatabase() throws {
        try forEachDatabaseKind(seed: 3) { appDatabase, kind in
            let request = WindowRequest(ordering: .byScore, anchor: .first, before: 0, after: 5)
            let observation = Recorder(appDatabase.observeHallOfFame(request))

            let progress = try awaitValues(appDatabase.stressTest(refreshes: 50))
            XCTAssertEqual(
                progress.map { StressTestProgress(completed: $0.completed, failed: $0.failed, total: $0.total) },
                (1...50).map { StressTestProgress(completed: $0, failed: 0, total: 50) }, "\(kind)")
            XCTAssertTrue(progress.last!.isFinished, "\(kind)")

            let fresh = try appDatabase.writer.read { db in try HallOfFame.fetch(db, request) }
            XCTAssertEqual(fresh, HallOfFameModel.hallOfFame(try appDatabase.allPlayers(), request), "\(kind)")
            waitUntil("observation catches up, \(kind)") { observation.values.last == fresh }
            XCTAssertNil(observation.completion, "\(kind)")
            // Every delivered value is consistent: a full window when there
            // are enough players, and the max score on top.
            for value in observation.values {
                XCTAssertEqual(value.players.count, min(value.playerCount, 5), "\(kind)")
                XCTAssertEqual(value.players.first?.score, value.maxScore, "\(kind)")
            }
            observation.cancel()
        }
    }

    func testStressTestWithoutRefreshesIsFinished() throws {
        let appDatabase = try AppDatabase.inMemory()
        let progress = try awaitValues(appDatabase.stressTest(refreshes: 0))
        XCTAssertEqual(progress, [StressTestProgress(completed: 0, failed: 0, total: 0)])
        XCTAssertTrue(progress[0].isFinished)
    }

    func testCancelledStressTestSkipsTheRefreshesThatHaveNotStarted() throws {
        try forEachDatabaseKind(seed: 4) { appDatabase, kind in
            try appDatabase.createRandomPlayersIfEmpty()
            let players = try appDatabase.allPlayers()
            // Hold the writer, so that every refresh waits in its queue.
            let writerIsHeld = DispatchSemaphore(value: 0)
            let releaseWriter = DispatchSemaphore(value: 0)
            appDatabase.writer.asyncWriteWithoutTransaction { _ in
                writerIsHeld.signal()
                releaseWriter.wait()
            }
            writerIsHeld.wait()
            let cancellable = appDatabase.stressTest(refreshes: 50).sink { _ in }
            cancellable.cancel()
            releaseWriter.signal()

            // Once the queued refreshes have had their turn, none has written.
            try appDatabase.writer.write { _ in }
            XCTAssertEqual(try appDatabase.allPlayers(), players, "\(kind)")
        }
    }

    func testStressTestCountsFailedRefreshes() throws {
        let appDatabase = try AppDatabase.inMemory()
        try appDatabase.createRandomPlayersIfEmpty()
        // A trigger that rejects score updates makes every refresh fail.
        try appDatabase.writer.write { db in
            try db.execute(sql: """
                CREATE TRIGGER rejectScores BEFORE UPDATE OF score ON player BEGIN
                    SELECT RAISE(ABORT, 'rejected');
                END
                """)
        }
        let players = try appDatabase.allPlayers()
        let progress = try awaitValues(appDatabase.stressTest(refreshes: 3))
        let reason = "SQLite error 19: rejected - while executing `UPDATE player SET score = livetable_random_score()`"
        XCTAssertEqual(progress, (1...3).map { StressTestProgress(completed: 0, failed: $0, total: 3, firstError: reason) })
        XCTAssertEqual(try appDatabase.allPlayers(), players, "failed refreshes are rolled back")
    }
}
