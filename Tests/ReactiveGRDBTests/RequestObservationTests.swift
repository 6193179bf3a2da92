import Foundation
import GRDB
import OpenCombine
import ReactiveGRDB
import XCTest

/// GRDBCombine's request observations: `observationForAll()`,
/// `observationForFirst()`, `observationForCount()` on requests, records,
/// associations and SQL requests, `ValueObservation.combine(_:_:)`, and the
/// `fetchOnSubscription()` of their publishers.
///
/// As in the seed, they publish an initial value, then a value after each
/// transaction that changes it, on the main queue, asynchronously; they
/// filter out identical consecutive values, and only complete with an error.
/// Each test waits for each expected value before the next write: histories
/// are then exact with all kinds of databases.
final class RequestObservationTests: XCTestCase {
    private struct PlayerName: Decodable, FetchableRecord, TableRecord, Sendable {
        // Not Equatable: duplicates are still filtered out, by comparing rows.
        static let databaseTableName = "player"
        var name: String
    }

    private struct Team: Codable, FetchableRecord, PersistableRecord, Sendable, Equatable {
        static let players = hasMany(Player.self)
        var id: Int64
        var name: String
    }

    private struct TeamInfo: Decodable, FetchableRecord, Sendable, Equatable {
        var team: Team
        var players: [Player]
    }

    private func setUpTeams(_ db: Database) throws {
        try db.create(table: "team") { t in
            t.primaryKey("id", .integer)
            t.column("name", .text).notNull()
        }
        try db.create(table: "player") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("name", .text).notNull()
            t.column("score", .integer)
            t.column("teamId", .integer).references("team")
        }
        try db.create(table: "other") { t in
            t.autoIncrementedPrimaryKey("id")
        }
    }

    /// A transaction that changes the player table without changing its
    /// content: the observation fetches again, and must publish nothing.
    private func rewritePlayers(_ writer: any DatabaseWriter) throws {
        try writer.write { db in try db.execute(sql: "UPDATE player SET name = name") }
    }

    // MARK: - observationForAll

    func testObservationForAllOfRecordsThatAreNotEquatable() {
        forEachWriter { writer, kind in
            let recorder = PlayerName.order(Column("name")).observationForAll()
                .publisher(in: writer)
                .map { $0.map(\.name) }
                .record()
            wait(for: recorder, until: { $0.values.count == 1 })

            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            wait(for: recorder, until: { $0.values.count == 2 })

            try rewritePlayers(writer)
            try writer.write { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) }
            let recording = wait(for: recorder, until: { $0.values.count == 3 })
            XCTAssertEqual(recording.values, [[], ["Arthur"], ["Arthur", "Barbara"]], "\(kind)")
            XCTAssertNil(recording.completion, "\(kind)")
        }
    }

    func testObservationForAllOfTheRecordType() {
        forEachWriter { writer, kind in
            let recorder = Player.observationForAll().publisher(in: writer).record()
            wait(for: recorder, until: { $0.values.count == 1 })
            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            wait(for: recorder, until: { $0.values.count == 2 })
            try rewritePlayers(writer)
            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1001).update(db) }
            let recording = wait(for: recorder, until: { $0.values.count == 3 })
            XCTAssertEqual(recording.values, [
                [],
                [Player(id: 1, name: "Arthur", score: 1000)],
                [Player(id: 1, name: "Arthur", score: 1001)],
            ], "\(kind)")
        }
    }

    func testObservationForAllOfValues() {
        forEachWriter { writer, kind in
            let recorder = SQLRequest<String>(sql: "SELECT name FROM player ORDER BY name")
                .observationForAll().publisher(in: writer).record()
            wait(for: recorder, until: { $0.values.count == 1 })
            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            wait(for: recorder, until: { $0.values.count == 2 })
            try writer.write { db in try db.execute(sql: "UPDATE player SET score = 0") }
            try writer.write { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) }
            let recording = wait(for: recorder, until: { $0.values.count == 3 })
            XCTAssertEqual(recording.values, [[], ["Arthur"], ["Arthur", "Barbara"]], "\(kind)")
        }
    }

    // MARK: - observationForFirst

    func testObservationForFirstRecord() {
        forEachWriter { writer, kind in
            let recorder = Player.filter(key: 1).observationForFirst().publisher(in: writer).record()
            wait(for: recorder, until: { $0.values.count == 1 })
            try writer.write { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) }
            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            wait(for: recorder, until: { $0.values.count == 2 })
            try rewritePlayers(writer)
            try writer.write { db in _ = try Player.deleteOne(db, id: 1) }
            let recording = wait(for: recorder, until: { $0.values.count == 3 })
            XCTAssertEqual(recording.values, [nil, Player(id: 1, name: "Arthur", score: 1000), nil], "\(kind)")
        }
    }

    func testObservationForFirstOfSQLRequestOfInt() {
        forEachWriter { writer, kind in
            let request: SQLRequest<Int> = "SELECT MAX(score) FROM player"
            let recorder = request.observationForFirst().publisher(in: writer).record()
            wait(for: recorder, until: { $0.values.count == 1 })
            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            wait(for: recorder, until: { $0.values.count == 2 })
            try writer.write { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) }
            try writer.write { db in try Player(id: 3, name: "Craig", score: 1500).insert(db) }
            let recording = wait(for: recorder, until: { $0.values.count == 3 })
            XCTAssertEqual(recording.values, [nil, 1000, 1500], "\(kind)")
        }
    }

    func testObservationForFirstOfTheRecordType() {
        forEachWriter { writer, kind in
            let recorder = Player.observationForFirst().publisher(in: writer).record()
            wait(for: recorder, until: { $0.values.count == 1 })
            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            let recording = wait(for: recorder, until: { $0.values.count == 2 })
            XCTAssertEqual(recording.values, [nil, Player(id: 1, name: "Arthur", score: 1000)], "\(kind)")
        }
    }

    // MARK: - observationForCount

    func testObservationForCount() {
        forEachWriter { writer, kind in
            let recorder = Player.observationForCount().publisher(in: writer).record()
            wait(for: recorder, until: { $0.values.count == 1 })
            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            wait(for: recorder, until: { $0.values.count == 2 })
            // Does not change the count.
            try writer.write { db in
                try Player(id: 2, name: "Barbara", score: 750).insert(db)
                try Player.deleteOne(db, id: 2)
            }
            try writer.write { db in try Player(id: 3, name: "Craig", score: 500).insert(db) }
            let recording = wait(for: recorder, until: { $0.values.count == 3 })
            XCTAssertEqual(recording.values, [0, 1, 2], "\(kind)")

            let sqlCount = SQLRequest<Int>(sql: "SELECT * FROM player WHERE score > 600")
                .observationForCount().publisher(in: writer).record()
            XCTAssertEqual(wait(for: sqlCount, valueCount: 1).values, [1], "\(kind)")
        }
    }

    // MARK: - Associations

    func testObservationsOfAssociations() {
        forEachWriter(setUp: setUpTeams) { writer, kind in
            try writer.write { db in try Team(id: 1, name: "Red").insert(db) }
            let info = Team.filter(key: 1)
                .including(all: Team.players.order(Column("id")))
                .asRequest(of: TeamInfo.self)
                .observationForFirst().publisher(in: writer).record()
            let count = Team.filter(key: 1).including(all: Team.players)
                .observationForCount().publisher(in: writer).record()
            let teamPlayers = Team(id: 1, name: "Red").request(for: Team.players)
                .observationForAll().publisher(in: writer).record()
            wait(for: info, valueCount: 1)
            wait(for: count, valueCount: 1)
            wait(for: teamPlayers, valueCount: 1)

            try writer.write { db in
                try db.execute(sql: "INSERT INTO player (id, name, teamId) VALUES (1, 'Arthur', 1)")
            }
            let recording = wait(for: info, valueCount: 2)
            XCTAssertEqual(recording.values.map { $0?.players.map(\.name) }, [[], ["Arthur"]], "\(kind)")
            XCTAssertEqual(count.values, [1], "\(kind)")
            XCTAssertEqual(wait(for: teamPlayers, valueCount: 2).values.map { $0.map(\.name) }, [[], ["Arthur"]], "\(kind)")
        }
    }

    // MARK: - combine

    func testCombinePublishesBothValuesOfEachState() {
        forEachWriter(setUp: setUpTeams) { writer, kind in
            let team = Team.filter(key: 1).observationForFirst()
            let players = Player.filter(Column("teamId") == 1).order(Column("id")).observationForAll()
            let recorder = ValueObservation.combine(team, players)
                .publisher(in: writer)
                .map { team, players in "\(team?.name ?? "none"): \(players.map(\.name))" }
                .record()
            wait(for: recorder, valueCount: 1)

            // One transaction changes both values: one value.
            try writer.write { db in
                try Team(id: 1, name: "Red").insert(db)
                try db.execute(sql: "INSERT INTO player (id, name, teamId) VALUES (1, 'Arthur', 1)")
            }
            wait(for: recorder, valueCount: 2)
            // Neither value changes: no value.
            try writer.write { db in try db.execute(sql: "INSERT INTO other DEFAULT VALUES") }
            try writer.write { db in try db.execute(sql: "UPDATE team SET name = name") }
            // Only one value changes.
            try writer.write { db in try db.execute(sql: "UPDATE team SET name = 'Blue'") }
            let recording = wait(for: recorder, valueCount: 3)
            XCTAssertEqual(recording.values, ["none: []", "Red: [\"Arthur\"]", "Blue: [\"Arthur\"]"], "\(kind)")
        }
    }

    func testCombinePublishesPairsOfOneDatabaseStateUnderConcurrentWrites() throws {
        try withTemporaryDirectory { directory in
            let dbPool = try DatabasePool(path: directory.appendingPathComponent("db.sqlite").path)
            try dbPool.write(Player.createTable)
            let recorder = ValueObservation.combine(Player.observationForCount(), Player.observationForAll())
                .publisher(in: dbPool, scheduling: .async(onQueue: DispatchQueue(label: "values")))
                .record()
            wait(for: recorder, valueCount: 1)
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                for id in stride(from: thread + 1, through: 200, by: 4) {
                    try! dbPool.write { db in try Player(id: Int64(id), name: "P\(id)", score: id).insert(db) }
                }
            }
            let recording = wait(for: recorder, until: { $0.values.last?.0 == 200 })
            for (count, players) in recording.values {
                XCTAssertEqual(count, players.count)
            }
            XCTAssertEqual(recording.values.map(\.0), recording.values.map(\.0).sorted())
            recorder.cancel()
        }
    }

    func testCombineOfThreeObservations() {
        forEachWriter { writer, kind in
            let recorder = ValueObservation
                .combine(
                    Player.observationForCount(),
                    Player.order(Column("score").desc).observationForFirst(),
                    SQLRequest<Int>(sql: "SELECT SUM(score) FROM player").observationForFirst())
                .publisher(in: writer)
                .map { "\($0.0) \($0.1?.name ?? "-") \($0.2 ?? 0)" }
                .record()
            wait(for: recorder, valueCount: 1)
            try insertOneThenTwoPlayers(writer)
            let recording = wait(for: recorder, until: { $0.values.last == "3 Arthur 2250" })
            XCTAssertTrue(recording.values.starts(with: ["0 - 0"]), "\(kind): \(recording.values)")
        }
    }

    // MARK: - Scheduling

    func testValuesArePublishedAsynchronouslyOnTheMainQueueByDefault() {
        forEachWriter { writer, kind in
            let onMainThread = Synchronized<[Bool]>([])
            let recorder = Recorder<Int, Error>(onEvent: { _ in onMainThread.update { $0.append(Thread.isMainThread) } })
            subscribe(Player.observationForCount().publisher(in: writer), recorder, from: DispatchQueue.global())
            XCTAssertEqual(wait(for: recorder, valueCount: 1).values, [0], "\(kind)")
            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            XCTAssertEqual(wait(for: recorder, valueCount: 2).values, [0, 1], "\(kind)")
            XCTAssertEqual(onMainThread.value, [true, true], "\(kind)")
        }
    }

    func testFetchOnSubscriptionPublishesTheInitialValueDuringSubscription() {
        forEachWriter { writer, kind in
            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            let onMainThread = Synchronized<[Bool]>([])
            let recorder = Player.observationForAll().publisher(in: writer)
                .fetchOnSubscription()
                .record(onEvent: { _ in onMainThread.update { $0.append(Thread.isMainThread) } })
            // Synchronously, during the subscription.
            XCTAssertEqual(recorder.values.map { $0.map(\.name) }, [["Arthur"]], "\(kind)")

            try writer.write { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) }
            let recording = wait(for: recorder, valueCount: 2)
            XCTAssertEqual(recording.values.map { $0.map(\.name) }, [["Arthur"], ["Arthur", "Barbara"]], "\(kind)")
            XCTAssertEqual(onMainThread.value, [true, true], "\(kind)")
        }
    }

    func testWithoutFetchOnSubscriptionTheInitialValueIsAsynchronous() {
        forEachWriter { writer, kind in
            let recorder = Player.observationForAll().publisher(in: writer).record()
            XCTAssertTrue(recorder.values.isEmpty, "\(kind)")
            wait(for: recorder, valueCount: 1)
        }
    }

    // MARK: - Errors

    func testObservationFailsWithTheSQLError() {
        forEachWriter { writer, kind in
            let recorder = SQLRequest<Int>(sql: "SELECT * FROM missing").observationForCount()
                .publisher(in: writer).record()
            let recording = waitForCompletion(of: recorder)
            XCTAssertTrue(recording.values.isEmpty, "\(kind)")
            assertDatabaseError(recording.failure, resultCode: .SQLITE_ERROR, "\(kind)")
        }
    }

    // MARK: - Sendable

    func testPublishersAreSendable() {
        forEachWriter { writer, kind in
            // Built here, subscribed from another queue.
            let publisher: any Publisher<[Player], Error> & Sendable = Player.observationForAll().publisher(in: writer)
            let recorder = Recorder<[Player], Error>()
            DispatchQueue.global().async {
                publisher.subscribe(recorder)
            }
            XCTAssertEqual(wait(for: recorder, valueCount: 1).values, [[]], "\(kind)")
            recorder.cancel()
        }
    }
}
