import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

final class HallOfFameObservationTests: XCTestCase {
    func testFirstValueOfEmptyDatabase() throws {
        try forEachDatabaseKind { appDatabase, kind in
            let request = WindowRequest(ordering: .byScore, anchor: .first, before: 0, after: 10)
            let recorder = Recorder(appDatabase.observeHallOfFame(request))
            let expected = HallOfFame(
                playerCount: 0, maxScore: nil, request: request, players: [],
                firstRank: 0, rankIsExact: true, reachesStart: true, reachesEnd: true)
            waitUntil("first value, \(kind)") { !recorder.values.isEmpty }
            XCTAssertEqual(recorder.values, [expected], "\(kind)")
            XCTAssertNil(recorder.completion)
            recorder.cancel()
        }
    }

    func testObservationDeliversEachChange() throws {
        try forEachDatabaseKind { appDatabase, kind in
            let request = WindowRequest(ordering: .byName, anchor: .first, before: 0, after: 2)
            let recorder = Recorder(appDatabase.observeHallOfFame(request))
            waitUntil("first value, \(kind)") { recorder.values.count == 1 }

            var arthur = try awaitValue(appDatabase.writer.rx.write { db in
                try Player(name: "Arthur", score: 10).inserted(db)
            })
            waitUntil("insert, \(kind)") { recorder.values.count == 2 }
            // A name-only change, from a writer that does not go through
            // the intents, is observed too.
            try appDatabase.writer.write { db in
                try db.execute(sql: "UPDATE player SET name = 'Barbara'")
            }
            arthur.name = "Barbara"
            waitUntil("rename, \(kind)") { recorder.values.count == 3 }

            func value(_ players: [Player]) -> HallOfFame {
                HallOfFame(
                    playerCount: players.count, maxScore: players.map(\.score).max(), request: request,
                    players: players, firstRank: 0, rankIsExact: true, reachesStart: true, reachesEnd: true)
            }
            XCTAssertEqual(recorder.values, [value([]), value([Player(id: arthur.id, name: "Arthur", score: 10)]), value([arthur])], "\(kind)")
            recorder.cancel()
        }
    }

    /// Seeded random mixed transactions. After each one, the value that
    /// every observation delivers, a fresh fetch, and the model computed
    /// from all players agree.
    func testRandomTransactionsDeliverWindowsEqualToFullQuery() throws {
        try forEachDatabaseKind(seed: 21) { appDatabase, kind in
            var generator = SplitMix64(seed: 99)
            func random(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &generator) }
            let names = ["Arthur", "Anita", "Éric", "Zoé", "Dean", "Mary", "Masashi"]
            func randomPlayer() -> Player {
                Player(name: names[random(0...(names.count - 1))], score: random(0...12))
            }

            let requests = [
                WindowRequest(ordering: .byScore, anchor: .first, before: 0, after: 6),
                WindowRequest(ordering: .byName, anchor: .last, before: 3, after: 4),
                WindowRequest(ordering: .byScore, anchor: .player(Player(id: 40, name: "Dean", score: 10)), before: 3, after: 4),
                WindowRequest(ordering: .byName, anchor: .player(Player(id: 25, name: "Éric", score: 7)), before: 4, after: 3),
            ]
            let recorders = requests.map { Recorder(appDatabase.observeHallOfFame($0)) }
            var expectedHistories = requests.map { _ in [HallOfFame]() }
            var operations: [String: Int] = [:]
            var largestCount = 0

            func check(_ step: String) throws {
                let players = try appDatabase.allPlayers()
                largestCount = max(largestCount, players.count)
                for (index, request) in requests.enumerated() {
                    let expected = HallOfFameModel.hallOfFame(players, request)
                    expectedHistories[index].append(expected)
                    let (fresh, estimated) = try appDatabase.writer.read { db in
                        try (HallOfFame.fetch(db, request), HallOfFame.fetch(db, request, exactRankLimit: 2))
                    }
                    XCTAssertEqual(fresh, expected, "\(step), \(request), \(kind)")
                    if estimated.rankIsExact {
                        XCTAssertEqual(estimated, expected, "\(step), \(request), \(kind)")
                    } else {
                        XCTAssertEqual(estimated.withoutRank, expected.withoutRank, "\(step), \(request), \(kind)")
                    }
                    waitUntil("\(step), \(request), \(kind)") { recorders[index].values.last == expected }
                }
                // Windows anchored on a sample of players, with windows
                // that end exactly at the start or end of the table.
                for _ in 0..<(players.isEmpty ? 0 : 8) {
                    let anchor = players[random(0...(players.count - 1))]
                    let request = WindowRequest(
                        ordering: random(0...1) == 0 ? .byScore : .byName, anchor: .player(anchor),
                        before: random(0...6), after: random(0...6))
                    let fresh = try appDatabase.writer.read { db in try HallOfFame.fetch(db, request) }
                    XCTAssertEqual(fresh, HallOfFameModel.hallOfFame(players, request), "\(step), \(request), \(kind)")
                }
            }

            try check("initial")
            for step in 0..<40 {
                let operation: String
                let roll = random(0...99)
                switch roll {
                case 0..<30:
                    operation = "insert"
                    try appDatabase.writer.write { db in
                        for _ in 0..<random(1...4) {
                            _ = try randomPlayer().inserted(db)
                        }
                    }
                case 30..<45:
                    operation = "delete"
                    let ids = try appDatabase.allPlayers().compactMap(\.id)
                    let deleted = (0..<random(1...3)).compactMap { _ in ids.isEmpty ? nil : ids[random(0...(ids.count - 1))] }
                    try appDatabase.writer.write { db in
                        _ = try Player.deleteAll(db, keys: deleted)
                    }
                case 45..<65:
                    operation = "update scores"
                    let players = try appDatabase.allPlayers()
                    try appDatabase.writer.write { db in
                        for _ in 0..<random(1...5) where !players.isEmpty {
                            var player = players[random(0...(players.count - 1))]
                            player.score = Score(random(0...12))
                            try player.update(db)
                        }
                    }
                case 65..<72:
                    operation = "rename"
                    let players = try appDatabase.allPlayers()
                    if var player = players.first {
                        player.name = names[random(0...(names.count - 1))]
                        try awaitValue(appDatabase.updatePlayer(player))
                    }
                case 72..<76:
                    operation = "delete all"
                    _ = try awaitValue(appDatabase.deleteAll())
                case 76..<84:
                    operation = "bulk insert"
                    try appDatabase.writer.write { db in try appDatabase.insertRandomPlayers(db, count: 30) }
                default:
                    operation = "rolled back"
                    let first = try appDatabase.allPlayers().first
                    try appDatabase.writer.writeWithoutTransaction { db in
                        try db.inTransaction {
                            _ = try randomPlayer().inserted(db)
                            try db.execute(sql: "UPDATE player SET score = score + 1")
                            _ = try Player.deleteOne(db, key: first?.id)
                            return .rollback
                        }
                    }
                }
                operations[operation, default: 0] += 1
                try check("step \(step): \(operation)")
            }

            // The seed exercised every kind of transaction, on a table
            // larger than the windows.
            XCTAssertEqual(operations.count, 7, "\(operations)")
            XCTAssertGreaterThan(largestCount, 20)

            // Every delivered value is one of the expected states, in order:
            // the observation may coalesce states, never invent them.
            for (recorder, expectedHistory) in zip(recorders, expectedHistories) {
                var remaining = expectedHistory[...]
                for value in recorder.values {
                    guard let index = remaining.firstIndex(of: value) else {
                        XCTFail("unexpected value \(value), \(kind)")
                        break
                    }
                    remaining = remaining[index...]
                }
                XCTAssertNil(recorder.completion)
                recorder.cancel()
            }
        }
    }
}
