import Foundation
import GRDB
import XCTest
@testable import LiveTableCore

/// Each ordering's sort key is defined once (`Ordering.sortColumns`): the
/// index of the migration, the window engine's ordering (`rowOrdering`),
/// the SQL clauses and the comparator agree with it.
final class SortKeyTests: XCTestCase {
    func testIndexOfEachOrderingHasTheColumnsOfItsSortKey() throws {
        try forEachDatabaseKind { appDatabase, kind in
            try appDatabase.writer.read { db in
                for ordering in Ordering.allCases {
                    let table = try String.fetchOne(
                        db, sql: "SELECT tbl_name FROM sqlite_master WHERE type = 'index' AND name = ?",
                        arguments: [ordering.indexName])
                    XCTAssertEqual(table, "player", "\(ordering), \(kind)")
                    // The key columns of the index, in order, with their
                    // direction and collation.
                    let columns = try Row.fetchAll(
                        db, sql: "SELECT name, desc, coll FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno",
                        arguments: [ordering.indexName])
                    XCTAssertEqual(
                        columns.map { "\($0["name"] as String) \($0["desc"] as Bool ? "DESC" : "ASC") \($0["coll"] as String)" },
                        ordering.sortColumns.map { "\($0.name.rawValue) \($0.descending ? "DESC" : "ASC") BINARY" },
                        "\(ordering), \(kind)")
                    // The window engine reads that index, in that order.
                    let rowOrdering = ordering.rowOrdering
                    XCTAssertEqual(rowOrdering.indexName, ordering.indexName, "\(ordering)")
                    XCTAssertTrue(rowOrdering.isUnique, "\(ordering)")
                    XCTAssertEqual(
                        columns.map { "\($0["name"] as String) \($0["desc"] as Bool ? "DESC" : "ASC")" },
                        rowOrdering.keyColumns.map { "\($0.expression) \($0.descending ? "DESC" : "ASC")" },
                        "\(ordering), \(kind)")
                }
            }
        }
    }

    func testOrderByClausesReadTheIndexWithoutSorting() throws {
        let appDatabase = try AppDatabase.inMemory()
        try appDatabase.writer.read { db in
            for ordering in Ordering.allCases {
                let rowOrdering = ordering.rowOrdering
                XCTAssertEqual(ordering.orderByClause, rowOrdering.orderBy(forward: true))
                for clause in [rowOrdering.orderBy(forward: true), rowOrdering.orderBy(forward: false)] {
                    let plan = try String.fetchAll(
                        db, sql: "EXPLAIN QUERY PLAN SELECT * FROM player INDEXED BY \(ordering.indexName) ORDER BY \(clause)",
                        adapter: SuffixRowAdapter(fromIndex: 3))
                    XCTAssertEqual(plan, ["SCAN player USING COVERING INDEX \(ordering.indexName)"], "\(clause)")
                }
            }
        }
    }

    func testUnsavedPlayerSortsBeforePlayersOfSameScoreAndName() throws {
        // Ids may be negative when another process chose them: a missing
        // id sorts before all of them, in memory as in the keyset.
        let dbQueue = try DatabaseQueue()
        let appDatabase = try AppDatabase(dbQueue)
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO player(id, name, score) VALUES (-5, 'Arthur', 100), (3, 'Arthur', 100)")
        }
        let unsaved = Player(name: "Arthur", score: 100)
        for ordering in Ordering.allCases {
            for player in try appDatabase.allPlayers() {
                XCTAssertTrue(ordering.sortsBefore(unsaved, player), "\(player), \(ordering)")
                XCTAssertFalse(ordering.sortsBefore(player, unsaved), "\(player), \(ordering)")
            }
            let request = WindowRequest(ordering: ordering, anchor: .player(unsaved), before: 1, after: 1)
            let hallOfFame = try dbQueue.read { db in try HallOfFame.fetch(db, request) }
            XCTAssertEqual(hallOfFame.players.map(\.id), [-5], "\(ordering)")
            XCTAssertEqual(hallOfFame.firstRank, 0, "\(ordering)")
        }
    }

    func testDeletedSelectedPlayerWithAnOddScoreLeavesSelectionOnThePlayerAtItsPlace() {
        // The app chooses the player that sorts at the place of a deleted
        // selected player with the comparator: it must agree with the
        // keyset, which placed the window there, on any score.
        let players = [
            makePlayer(1, "Blob", .blob(Data([0x00]))), makePlayer(2, "Text", .text("abc")),
            makePlayer(3, "Arthur", 794), makePlayer(4, "Tiny", .real(-1e30)),
        ]
        var state = makeLoadedState(players)
        _ = press(.down, in: &state)
        XCTAssertEqual(state.selectedPlayer?.id, 2)
        // The player is deleted; the next value, anchored on it, holds the
        // players around its key.
        let remaining = players.filter { $0.id != 2 }
        var effects = hallOfFameUpdate(&state, .hallOfFame(makeHallOfFame(remaining, request: state.observedRequest!), now: .now))
        guard case let .observe(request)? = effects.first else {
            return XCTFail("\(effects)")
        }
        XCTAssertEqual(request.anchor, .player(players[1]))
        effects = hallOfFameUpdate(&state, .hallOfFame(makeHallOfFame(remaining, request: request), now: .now))
        XCTAssertEqual(effects, [])
        XCTAssertEqual(state.selectedPlayer?.id, 3)
    }
}
