import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// The Hall of Fame pages players by keyset on the index of its ordering.
/// Each window is checked against `HallOfFameModel`, which sorts all
/// players in Swift.
final class KeysetPagingTests: XCTestCase {
    /// 60 players with ties in score, in name, and in both (then the id
    /// decides), with a name that sorts after "Z" in UTF-8 ("Éric").
    private func insertTiedPlayers(_ appDatabase: AppDatabase) throws {
        let names = ["Dean", "Arthur", "Éric", "Anita", "Zoé"]
        try appDatabase.writer.write { db in
            for index in 0..<60 {
                _ = try Player(name: names[index % names.count], score: (index * 7) % 6).inserted(db)
            }
        }
    }

    private func fetch(
        _ appDatabase: AppDatabase, _ request: WindowRequest,
        exactRankLimit: Int = HallOfFame.exactRankLimit) throws -> HallOfFame
    {
        try appDatabase.writer.read { db in
            try HallOfFame.fetch(db, request, exactRankLimit: exactRankLimit)
        }
    }

    // MARK: - First and last pages

    func testFirstAndLastPagesOfEmptyTable() throws {
        try forEachDatabaseKind { appDatabase, kind in
            for ordering in Ordering.allCases {
                for anchor in [WindowAnchor.first, .last, .player(Player(id: 1, name: "Arthur", score: 1))] {
                    let request = WindowRequest(ordering: ordering, anchor: anchor, before: 3, after: 5)
                    let expected = HallOfFame(
                        playerCount: 0, maxScore: nil, request: request, players: [],
                        firstRank: 0, rankIsExact: true, reachesStart: true, reachesEnd: true)
                    XCTAssertEqual(try fetch(appDatabase, request), expected, "\(kind)")
                }
            }
        }
    }

    func testFirstAndLastPages() throws {
        try forEachDatabaseKind { appDatabase, kind in
            try insertTiedPlayers(appDatabase)
            let players = try appDatabase.allPlayers()
            for ordering in Ordering.allCases {
                for request in [
                    WindowRequest(ordering: ordering, anchor: .first, before: 4, after: 10),
                    WindowRequest(ordering: ordering, anchor: .first, before: 0, after: 60),
                    WindowRequest(ordering: ordering, anchor: .first, before: 0, after: 61),
                    WindowRequest(ordering: ordering, anchor: .last, before: 3, after: 7),
                    WindowRequest(ordering: ordering, anchor: .last, before: 60, after: 0),
                    WindowRequest(ordering: ordering, anchor: .last, before: 30, after: 31),
                ] {
                    let hallOfFame = try fetch(appDatabase, request)
                    XCTAssertEqual(hallOfFame, HallOfFameModel.hallOfFame(players, request), "\(request), \(kind)")
                }
            }
            // Spot checks of the model itself.
            let first = try fetch(appDatabase, WindowRequest(ordering: .byName, anchor: .first, before: 0, after: 2))
            XCTAssertEqual(first.players.map(\.name), ["Anita", "Anita"])
            XCTAssertEqual(first.players.map(\.score), [5, 5])
            XCTAssertLessThan(first.players[0].id!, first.players[1].id!)
            let last = try fetch(appDatabase, WindowRequest(ordering: .byName, anchor: .last, before: 1, after: 0))
            XCTAssertEqual(last.players.map(\.name), ["Éric"])
            XCTAssertEqual(last.firstRank, 59)
        }
    }

    // MARK: - Paging

    func testPagingForwardAcrossTies() throws {
        try forEachDatabaseKind { appDatabase, kind in
            try insertTiedPlayers(appDatabase)
            let players = try appDatabase.allPlayers()
            for ordering in Ordering.allCases {
                let expected = HallOfFameModel.sorted(players, by: ordering)
                var page = try fetch(appDatabase, WindowRequest(ordering: ordering, anchor: .first, before: 0, after: 7))
                var paged = page.players
                XCTAssertEqual(page.firstRank, 0)
                while !page.reachesEnd {
                    // The next page starts after the last player: anchor
                    // on it, and drop it.
                    let request = WindowRequest(ordering: ordering, anchor: .player(paged.last!), before: 0, after: 8)
                    page = try fetch(appDatabase, request)
                    XCTAssertEqual(page.players.first, paged.last, "\(kind)")
                    XCTAssertEqual(page.firstRank, paged.count - 1, "\(kind)")
                    XCTAssertTrue(page.rankIsExact)
                    paged += page.players.dropFirst()
                }
                XCTAssertEqual(paged, expected, "\(ordering), \(kind)")
            }
        }
    }

    func testPagingBackwardAcrossTies() throws {
        try forEachDatabaseKind { appDatabase, kind in
            try insertTiedPlayers(appDatabase)
            let players = try appDatabase.allPlayers()
            for ordering in Ordering.allCases {
                let expected = HallOfFameModel.sorted(players, by: ordering)
                var page = try fetch(appDatabase, WindowRequest(ordering: ordering, anchor: .last, before: 7, after: 0))
                var paged = page.players
                XCTAssertEqual(page.firstRank, 53)
                while !page.reachesStart {
                    // The previous page ends before the first player.
                    let request = WindowRequest(ordering: ordering, anchor: .player(paged.first!), before: 7, after: 0)
                    page = try fetch(appDatabase, request)
                    XCTAssertEqual(page.firstRank, expected.count - paged.count - page.players.count, "\(kind)")
                    paged = page.players + paged
                }
                XCTAssertEqual(paged, expected, "\(ordering), \(kind)")
            }
        }
    }

    func testWindowStaysOnAnchorWhileRowsBeforeChange() throws {
        try forEachDatabaseKind { appDatabase, kind in
            try insertTiedPlayers(appDatabase)
            let sorted = HallOfFameModel.sorted(try appDatabase.allPlayers(), by: .byScore)
            let anchor = sorted[30]
            let request = WindowRequest(ordering: .byScore, anchor: .player(anchor), before: 3, after: 5)
            let observation = Recorder(appDatabase.observeHallOfFame(request))
            var expectedHistory: [HallOfFame] = []

            func assertWindow(_ step: String, anchorIndex: Int?, firstRank: Int, line: UInt = #line) throws {
                let expected = HallOfFameModel.hallOfFame(try appDatabase.allPlayers(), request)
                expectedHistory.append(expected)
                waitUntil("\(step), \(kind)", line: line) { observation.values.last == expected }
                if let anchorIndex {
                    XCTAssertEqual(expected.players[anchorIndex], anchor, "\(step), \(kind)", line: line)
                }
                XCTAssertEqual(expected.firstRank, firstRank, "\(step), \(kind)", line: line)
            }

            try assertWindow("initial", anchorIndex: 3, firstRank: 27)

            // Delete 5 players that sort before the anchor.
            try appDatabase.writer.write { db in
                _ = try Player.deleteAll(db, keys: sorted[20..<25].map(\.id))
            }
            try assertWindow("deleted before", anchorIndex: 3, firstRank: 22)

            // Insert 10 players that sort before the anchor, some tied
            // with it in score.
            try appDatabase.writer.write { db in
                for index in 0..<10 {
                    _ = try Player(name: index < 5 ? "Aaron" : "Zed", score: index < 5 ? anchor.score : 1000).inserted(db)
                }
            }
            try assertWindow("inserted before", anchorIndex: 3, firstRank: 32)

            // Delete all players before the anchor but one: the window
            // shows what remains.
            try appDatabase.writer.write { db in
                let before = try HallOfFame.fetch(
                    db, WindowRequest(ordering: .byScore, anchor: .player(anchor), before: 100, after: 0))
                _ = try Player.deleteAll(db, keys: before.players.dropLast().map(\.id))
            }
            try assertWindow("deleted all before but one", anchorIndex: 1, firstRank: 0)

            // Delete the anchor itself: the window stays at its place.
            _ = try awaitValue(appDatabase.deletePlayer(id: anchor.id!))
            try assertWindow("deleted anchor", anchorIndex: nil, firstRank: 0)
            XCTAssertEqual(observation.values.last?.players[1], sorted[31], "the successor of the deleted anchor")

            // Every delivered value is one of the expected states, in order
            // (the observation may coalesce changes, never invent them).
            var remaining = expectedHistory[...]
            for value in observation.values {
                guard let index = remaining.firstIndex(of: value) else {
                    XCTFail("unexpected value \(value), \(kind)")
                    break
                }
                remaining = remaining[index...]
            }
            observation.cancel()
        }
    }

    func testToggledOrderingKeepsAnchorPlayerInWindow() throws {
        try forEachDatabaseKind { appDatabase, kind in
            try insertTiedPlayers(appDatabase)
            let players = try appDatabase.allPlayers()
            for player in players {
                for ordering in Ordering.allCases {
                    // The window of the selected player in one ordering,
                    // then in the other.
                    let request = WindowRequest(ordering: ordering, anchor: .player(player), before: 4, after: 6)
                    let toggled = WindowRequest(ordering: ordering.toggled, anchor: .player(player), before: 4, after: 6)
                    for request in [request, toggled] {
                        let hallOfFame = try fetch(appDatabase, request)
                        let index = try XCTUnwrap(hallOfFame.players.firstIndex(of: player), "\(kind)")
                        XCTAssertEqual(hallOfFame.firstRank + index, HallOfFameModel.sorted(players, by: request.ordering).firstIndex(of: player))
                        XCTAssertEqual(hallOfFame, HallOfFameModel.hallOfFame(players, request), "\(kind)")
                    }
                }
            }
        }
    }

    func testAnchorOnMissingPlayerUsesItsSortKey() throws {
        try forEachDatabaseKind { appDatabase, kind in
            try insertTiedPlayers(appDatabase)
            _ = try appDatabase.writer.write { db in try Player.deleteOne(db, id: 7) }
            let players = try appDatabase.allPlayers()
            let missing = [
                Player(id: 1000, name: "Arthur", score: 3),
                Player(id: nil, name: "Dean", score: 2),
                Player(id: 0, name: "Zoé", score: 5),
                Player(id: 7, name: "Zz", score: -1),
                Player(id: 7, name: "A", score: 99),
            ]
            for anchor in missing {
                for ordering in Ordering.allCases {
                    let request = WindowRequest(ordering: ordering, anchor: .player(anchor), before: 2, after: 3)
                    let hallOfFame = try fetch(appDatabase, request)
                    XCTAssertEqual(hallOfFame, HallOfFameModel.hallOfFame(players, request), "\(kind)")
                    // The window stands where the given key sorts.
                    let sorted = HallOfFameModel.sorted(players, by: ordering)
                    let rank = sorted.firstIndex { !HallOfFameModel.precedes($0, anchor, in: ordering) } ?? sorted.count
                    XCTAssertEqual(hallOfFame.firstRank + min(2, rank), rank, "\(anchor), \(ordering), \(kind)")
                }
            }
        }
    }

    func testAnchorFollowsItsPlayerToItsCurrentKey() throws {
        try forEachDatabaseKind { appDatabase, kind in
            try appDatabase.writer.write { db in try appDatabase.insertRandomPlayers(db, count: 200) }
            let sorted = HallOfFameModel.sorted(try appDatabase.allPlayers(), by: .byScore)
            // The anchor as the app last saw it, near the top.
            let seen = sorted[5]
            let request = WindowRequest(ordering: .byScore, anchor: .player(seen), before: 4, after: 6)
            let observation = Recorder(appDatabase.observeHallOfFame(request))
            waitUntil("first value, \(kind)") { !observation.values.isEmpty }
            XCTAssertEqual(observation.values.last?.players[4], seen, "\(kind)")

            // A new score moves the player far down, out of the window
            // around its old key: the window follows it there.
            var moved = seen
            moved.score = Score(sorted.last!.score.integerValue! - 1)
            moved.name = "Moved"
            try awaitValue(appDatabase.updatePlayer(moved))
            let players = try appDatabase.allPlayers()
            let expected = HallOfFameModel.hallOfFame(players, request)
            waitUntil("moved, \(kind)") { observation.values.last == expected }
            XCTAssertEqual(expected.players.last, moved, "the last player, \(kind)")
            XCTAssertEqual(expected.players.count, 5, "\(kind)")
            XCTAssertEqual(expected.firstRank, players.count - 5, "\(kind)")
            XCTAssertTrue(expected.reachesEnd)

            // Deleted, the player leaves the window at the key it was given.
            _ = try awaitValue(appDatabase.deletePlayer(id: seen.id!))
            let remaining = HallOfFameModel.sorted(try appDatabase.allPlayers(), by: .byScore)
            let afterDeletion = HallOfFameModel.hallOfFame(remaining, request)
            waitUntil("deleted, \(kind)") { observation.values.last == afterDeletion }
            XCTAssertEqual(afterDeletion.players, Array(remaining[1..<11]), "\(kind)")
            XCTAssertEqual(afterDeletion.firstRank, 1)

            // Each transaction delivered its value, and nothing else.
            XCTAssertEqual(observation.values, [HallOfFameModel.hallOfFame(Array(sorted), request), expected, afterDeletion], "\(kind)")
            XCTAssertNil(observation.completion)
            observation.cancel()
        }
    }

    // MARK: - Rank

    func testRankIsExactNearEndsAndEstimatedInMiddle() throws {
        try forEachDatabaseKind { appDatabase, kind in
            try appDatabase.writer.write { db in try appDatabase.insertRandomPlayers(db, count: 100) }
            let players = try appDatabase.allPlayers()
            let limit = 10
            for ordering in Ordering.allCases {
                let sorted = HallOfFameModel.sorted(players, by: ordering)
                for (rank, anchor) in sorted.enumerated() {
                    let request = WindowRequest(ordering: ordering, anchor: .player(anchor), before: 2, after: 3)
                    let hallOfFame = try fetch(appDatabase, request, exactRankLimit: limit)
                    let expected = HallOfFameModel.hallOfFame(players, request)
                    if rank < limit || players.count - rank < limit {
                        XCTAssertEqual(hallOfFame, expected, "rank \(rank), \(kind)")
                    } else {
                        XCTAssertEqual(hallOfFame.withoutRank, expected.withoutRank, "rank \(rank), \(kind)")
                        XCTAssertFalse(hallOfFame.rankIsExact, "rank \(rank), \(kind)")
                        let anchorRank = hallOfFame.firstRank + 2
                        XCTAssertTrue((limit...(players.count - limit)).contains(anchorRank), "rank \(rank), \(kind)")
                    }
                }
                // First and last pages are always exact.
                for anchor in [WindowAnchor.first, .last] {
                    let request = WindowRequest(ordering: ordering, anchor: anchor, before: 2, after: 3)
                    XCTAssertEqual(try fetch(appDatabase, request, exactRankLimit: limit), HallOfFameModel.hallOfFame(players, request))
                }
            }
        }
    }

    func testRankEstimateIsClose() throws {
        let appDatabase = try AppDatabase.inMemory(seed: 11)
        let count = 20_000
        try appDatabase.writer.write { db in try appDatabase.insertRandomPlayers(db, count: count) }
        let players = try appDatabase.allPlayers()
        for ordering in Ordering.allCases {
            let sorted = HallOfFameModel.sorted(players, by: ordering)
            for rank in stride(from: 5_500, through: 14_500, by: 500) {
                let request = WindowRequest(ordering: ordering, anchor: .player(sorted[rank]), before: 0, after: 1)
                let hallOfFame = try fetch(appDatabase, request)
                XCTAssertFalse(hallOfFame.rankIsExact)
                // Within 2.5% of the table: names that share their first
                // two letters (Masashi and Mary, Pascal and Patricia…)
                // share a bucket, which the estimate splits evenly.
                XCTAssertLessThan(abs(hallOfFame.firstRank - rank), count / 40, "\(ordering), rank \(rank)")
            }
        }
    }

    // MARK: - Query plans

    /// Every statement of a fetch reads an index, at a cost bounded by
    /// its LIMIT, whatever the anchor: the cost of a fetch does not grow
    /// with the table.
    func testEveryStatementIsAnIndexSearch() throws {
        let appDatabase = try AppDatabase.inMemory(seed: 5)
        var statements: Set<String> = []
        func fetchTracingStatements(_ request: WindowRequest, exactRankLimit: Int) throws {
            try appDatabase.writer.writeWithoutTransaction { db in
                db.trace { event in
                    if case let .statement(statement) = event, !statement.sql.hasPrefix("--") {
                        statements.insert(statement.expandedSQL)
                    }
                }
                defer { db.trace(nil) }
                _ = try HallOfFame.fetch(db, request, exactRankLimit: exactRankLimit)
            }
        }
        func fetchAllKinds() throws {
            let players = HallOfFameModel.sorted(try appDatabase.allPlayers(), by: .byScore)
            let anchors = [WindowAnchor.first, .last, .player(Player(id: 1, name: "Dean", score: 500))]
                + [0, players.count / 2, players.count - 1].compactMap { players.indices.contains($0) ? .player(players[$0]) : nil }
            for ordering in Ordering.allCases {
                for anchor in anchors {
                    let request = WindowRequest(ordering: ordering, anchor: anchor, before: 5, after: 10)
                    try fetchTracingStatements(request, exactRankLimit: 100)
                }
            }
        }
        try fetchAllKinds() // empty table
        try appDatabase.writer.write { db in try appDatabase.insertRandomPlayers(db, count: 2000) }
        try fetchAllKinds()

        XCTAssertGreaterThan(statements.count, 20)
        var readsFromEnds = 0
        try appDatabase.writer.read { db in
            for sql in statements {
                let plan = try String.fetchAll(
                    db, sql: "EXPLAIN QUERY PLAN \(sql)", adapter: SuffixRowAdapter(fromIndex: 3))
                for step in plan {
                    XCTAssertFalse(step.contains("TEMP B-TREE"), "\(step) in \(sql)")
                    if step.hasPrefix("SCAN player") {
                        // Only the first or last rows of an index of the
                        // ordering, in its order, stopped by the LIMIT: the
                        // window from the start or the end.
                        XCTAssertTrue(step.hasPrefix("SCAN player USING COVERING INDEX player_on_"), "\(step) in \(sql)")
                        XCTAssertFalse(sql.contains(" WHERE "), sql)
                        XCTAssertTrue(sql.contains(" ORDER BY ") && sql.contains(" LIMIT "), sql)
                        readsFromEnds += 1
                    } else if step.hasPrefix("SCAN") && step != "SCAN CONSTANT ROW" {
                        // Only the bounded subquery of a capped count.
                        XCTAssertTrue(step.hasPrefix("SCAN (subquery"), "\(step) in \(sql)")
                        XCTAssertTrue(sql.hasPrefix("SELECT COUNT(*) FROM (SELECT 1 FROM player INDEXED BY "), sql)
                        XCTAssertTrue(sql.hasSuffix(")") && sql.contains(" LIMIT "), sql)
                    }
                }
                XCTAssertTrue(plan.allSatisfy { step in
                    ["SEARCH", "SCAN player USING COVERING INDEX", "SCAN (subquery", "CO-ROUTINE", "SCAN CONSTANT ROW"]
                        .contains { step.hasPrefix($0) }
                }, "\(plan) for \(sql)")
                if plan.contains(where: { $0.hasPrefix("SEARCH player ") }) {
                    // The window reads an index of the ordering; a player
                    // anchor is found by its primary key.
                    XCTAssertTrue(plan.contains {
                        $0.contains("USING COVERING INDEX player_on_")
                            || ($0 == "SEARCH player USING INTEGER PRIMARY KEY (rowid=?)"
                                && (sql.hasPrefix("SELECT score, name, id FROM player WHERE (\nid IS ")
                                    || sql.hasPrefix("SELECT name, score, id FROM player WHERE (\nid IS ")))
                    }, "\(plan) for \(sql)")
                }
            }
        }
        // The first and last windows of both orderings.
        XCTAssertEqual(readsFromEnds, 4)
    }
}
