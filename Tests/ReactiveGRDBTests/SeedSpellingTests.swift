import Foundation
import GRDB
import OpenCombine
import ReactiveGRDB
import XCTest

/// The spellings of RxGRDB 0.18, RxGRDB 3 and GRDBCombine, written as their
/// READMEs write them (with real players where they write `Player(...)`),
/// and the values their text promises. A renamed or removed spelling fails
/// to compile here; the behavior of each is tested in depth by the test
/// case of its publisher.
final class SeedSpellingTests: XCTestCase {
    private struct Team: Codable, FetchableRecord, PersistableRecord, Sendable {
        static let players = hasMany(Player.self)
        var id: Int64?
        var name: String
    }

    private struct TeamInfo: FetchableRecord, Decodable, Sendable {
        var team: Team
        var players: [Player]
    }

    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.create(table: "team") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
            }
            try Player.createTable(db)
            try db.alter(table: "player") { t in t.add(column: "teamId", .integer).references("team") }
            try db.create(table: "link") { t in t.column("url", .text) }
        }
        return dbQueue
    }

    // MARK: - RxGRDB 0.18

    func testRxGRDB018() throws {
        let dbQueue = try makeDatabase()

        // Single<Int>
        let newPlayerCount = dbQueue.rx.writeAndReturn { db -> Int in
            try Player(id: 1, name: "Arthur", score: 1000).insert(db)
            return try Player.fetchCount(db)
        }
        XCTAssertEqual(waitForCompletion(of: newPlayerCount.record()).values, [1])

        let request = Player.order(Column("name"))
        let names = Synchronized<[[String]]>([])
        let cancellable = request.rx.observeAll(in: dbQueue)
            .sink(
                receiveCompletion: { _ in },
                receiveValue: { (players: [Player]) in
                    names.update { $0.append(players.map { $0.name }) }
                })
        // On the main queue: the initial value is published synchronously.
        XCTAssertEqual(names.value, [["Arthur"]])
        try dbQueue.write { db in
            try Player.deleteAll(db)
            try Player(id: 1, name: "Arthur", score: 1000).insert(db)
            try Player(id: 2, name: "Barbara", score: 750).insert(db)
        }
        // Eventually prints "[Arthur, Barbara]"
        wait(for: names, until: { $0.last == ["Arthur", "Barbara"] })
        cancellable.cancel()

        // On the main queue
        let counts = Synchronized<[Int]>([])
        let countCancellable = Player.all().rx.observeCount(in: dbQueue)
            .sink(receiveCompletion: { _ in }, receiveValue: { (count: Int) in
                counts.update { $0.append(count) }
            })
        // <- here "Fresh player count" has been printed.
        XCTAssertEqual(counts.value, [2])
        countCancellable.cancel()

        // FetchRequest.rx.changes(in:startImmediately:), true by default:
        // the first element is emitted right upon subscription.
        let playerChanges = Player.all().rx.changes(in: dbQueue).tryMap { db in try Player.fetchCount(db) }.record()
        XCTAssertEqual(playerChanges.values, [2])
        try dbQueue.write { db in
            _ = try Player.deleteAll(db)
        }
        XCTAssertEqual(playerChanges.values, [2, 0])
        try dbQueue.write { db in
            try Player(id: 1, name: "Arthur", score: 1000).insert(db)
            try Player(id: 2, name: "Barbara", score: 750).insert(db)
        }
        XCTAssertEqual(playerChanges.values, [2, 0, 2])
        let immediateChanges = DatabaseRegionObservation(tracking: Player.all())
            .rx.changes(in: dbQueue, startImmediately: true).map { _ in "changed" }.record()
        XCTAssertEqual(immediateChanges.values, ["changed"])

        let maxScoreRequest: SQLRequest<Int> = "SELECT MAX(score) FROM player"
        let maxScore = maxScoreRequest.rx.observeFirst(in: dbQueue).record()
        XCTAssertEqual(wait(for: maxScore, valueCount: 1).values, [1000])

        try dbQueue.write { db in try db.execute(sql: "INSERT INTO link(url) VALUES ('https://github.com/groue/GRDB.swift')") }
        let urlRequest: SQLRequest<URL> = "SELECT url FROM link"
        let urls = urlRequest.rx.observeAll(in: dbQueue).record()
        XCTAssertEqual(wait(for: urls, valueCount: 1).values, [[URL(string: "https://github.com/groue/GRDB.swift")!]])

        let players = Player.all()
        let teams = Team.all()
        let observation = DatabaseRegionObservation(tracking: players, teams)
        let changes = observation.rx.changes(in: dbQueue).map { _ in "changed" }.record()
        try dbQueue.write { db in
            let team = Team(name: "Blue")
            try team.insert(db)
            try Player(id: 3, name: "Craig", score: 500).insert(db)
        }
        XCTAssertEqual(wait(for: changes, valueCount: 1).values, ["changed"])

        // When the players' table is changed, fetch the ten best ones,
        // and the total number of players:
        let scoreColumn = Column("score")
        let hallOfFame = ValueObservation.tracking(Player.all(), fetch: { db -> ([Player], Int) in
            let players = try Player
                .order(scoreColumn.desc)
                .limit(10)
                .fetchAll(db)
            let count = try Player.fetchCount(db)
            return (players, count)
        })
        let best = hallOfFame.rx.observe(in: dbQueue, observeOn: DispatchQueue.main.ocombine)
            .map { players, count in "\(players.first?.name ?? "none") out of \(count)" }
            .record()
        XCTAssertEqual(wait(for: best, valueCount: 1).values, ["Arthur out of 3"])
    }

    // MARK: - RxGRDB 3

    func testRxGRDB3() throws {
        let dbQueue = try makeDatabase()

        // Single<Int>
        let newPlayerCount = dbQueue.rx.write { db -> Int in
            try Player(id: 1, name: "Arthur", score: 1000).insert(db)
            return try Player.fetchCount(db)
        }
        XCTAssertEqual(waitForCompletion(of: newPlayerCount.record()).values, [1])

        // Observable<Int?>
        let observable = ValueObservation
            .tracking { db in try Int.fetchOne(db, sql: "SELECT MAX(score) FROM player") }
            .rx.observe(in: dbQueue)
        let maxScores = observable.record()
        wait(for: maxScores, valueCount: 1)

        // Observable<Database>
        let maxScoreChanges = DatabaseRegionObservation
            .tracking(SQLRequest<Int>(sql: "SELECT MAX(score) FROM player"))
            .rx.changes(in: dbQueue)
            .map { _ in "changed" }
            .record()
        let request = Player.all()
        let playerChanges = DatabaseRegionObservation
            .tracking(request)
            .rx.changes(in: dbQueue)
            .map { _ in "changed" }
            .record()
        try dbQueue.write { db in try Player(id: 2, name: "Barbara", score: 1500).insert(db) }
        XCTAssertEqual(wait(for: maxScores, valueCount: 2).values, [1000, 1500])
        XCTAssertEqual(wait(for: maxScoreChanges, valueCount: 1).values, ["changed"])
        XCTAssertEqual(wait(for: playerChanges, valueCount: 1).values, ["changed"])

        // Immediate notification of the initial value
        let fresh = Synchronized<[[Player]]>([])
        let cancellable = ValueObservation.tracking { db in try Player.fetchAll(db) }.rx
            .observe(
                in: dbQueue,
                scheduling: .immediate) // <-
            .sink(
                receiveCompletion: { _ in },
                receiveValue: { (players: [Player]) in fresh.update { $0.append(players) } })
        // <- here "fresh players" is already printed.
        XCTAssertEqual(fresh.value.map(\.count), [2])
        cancellable.cancel()
    }

    // MARK: - GRDBCombine

    private final class MyModel {
        static let dbQueue: DatabaseQueue = {
            let dbQueue = try! DatabaseQueue()
            try! dbQueue.write { db in
                try Player.createTable(db)
                try Player(id: 1, name: "Arthur", score: 1000).insert(db)
            }
            return dbQueue
        }()
        static let playersPublisher = Player.observationForAll().publisher(in: dbQueue)

        @DatabasePublished(playersPublisher)
        var players: Result<[Player], Error>
    }

    private final class MyAsyncModel {
        // The initialValue argument triggers asynchronous fetching
        @DatabasePublished(initialValue: [], MyModel.playersPublisher)
        var players: Result<[Player], Error>
    }

    func testGRDBCombine() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            try Team(id: 1, name: "Red").insert(db)
            try db.execute(sql: "INSERT INTO player(id, name, score, teamId) VALUES (1, 'Arthur', 1000, 1)")
        }

        // Observe the first result of a request
        let request = Player.filter(key: 1)
        let publisher = request.observationForFirst().publisher(in: dbQueue)
        let fresh = Synchronized<[String?]>([])
        let cancellable = publisher.fetchOnSubscription().sink(
            receiveCompletion: { completion in },
            receiveValue: { (player: Player?) in
                fresh.update { $0.append(player?.name) }
            })
        // <- here "Fresh player" has been printed.
        XCTAssertEqual(fresh.value, ["Arthur"])
        cancellable.cancel()

        // Observe raw SQL requests
        let maxScoreRequest: SQLRequest<Int> = "SELECT MAX(score) FROM player"
        let maxScores = maxScoreRequest.observationForFirst().publisher(in: dbQueue).record()
        XCTAssertEqual(wait(for: maxScores, valueCount: 1).values, [1000])

        // Data consistency guaranteed by combining value observations
        let team = Team.filter(key: 1).observationForFirst()
        let players = Player.filter(teamId: 1).observationForAll()
        let observation = ValueObservation.combine(team, players)
        // AnyPublisher<(Team?, [Player]), Error>
        let combined = observation.publisher(in: dbQueue)
        let teamPlayers = combined.map { team, players in "\(team?.name ?? "none"): \(players.map(\.name))" }.record()
        XCTAssertEqual(wait(for: teamPlayers, valueCount: 1).values, ["Red: [\"Arthur\"]"])

        // Data consistency guaranteed by associations
        let teamInfoRequest = Team
            .filter(key: 1)
            .including(all: Team.players)
            .asRequest(of: TeamInfo.self)
        // AnyPublisher<TeamInfo?, Error>
        let teamInfo = teamInfoRequest.observationForFirst().publisher(in: dbQueue)
            .map { $0.map { "\($0.team.name): \($0.players.map(\.name))" } }
            .record()
        XCTAssertEqual(wait(for: teamInfo, valueCount: 1).values, ["Red: [\"Arthur\"]"])

        // AnyPublisher<Int, Error>
        let newPlayerCount = dbQueue.writePublisher(
            updates: { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) },
            thenRead: { db, _ in try Player.fetchCount(db) })
        XCTAssertEqual(waitForCompletion(of: newPlayerCount.record()).values, [2])

        let model = MyModel()
        XCTAssertEqual(try model.players.get().map(\.name), ["Arthur"]) // [Player]
        let modelPlayers = model.$players.map { $0.map(\.name) }.record() // Publisher of output [Player], failure Error
        XCTAssertEqual(modelPlayers.values, [["Arthur"]])

        let asyncModel = MyAsyncModel()
        // Empty array until the initial fetch is performed
        XCTAssertEqual(try asyncModel.players.get().map(\.name), [])
        wait(for: asyncModel.$players.record(), until: { $0.values.last?.count == 1 })
        XCTAssertEqual(try asyncModel.players.get().map(\.name), ["Arthur"])
    }
}

extension Player {
    /// The seed's `Player.filter(teamId:)`.
    fileprivate static func filter(teamId: Int64) -> QueryInterfaceRequest<Player> {
        filter(Column("teamId") == teamId)
    }
}
