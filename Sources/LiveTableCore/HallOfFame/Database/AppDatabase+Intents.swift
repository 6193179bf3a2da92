import Dispatch
import Foundation
import GRDB
import OpenCombine
import OpenCombineDispatch
import ReactiveGRDB

extension AppDatabase {
    // MARK: - Synchronous Intents

    /// Inserts `count` random players if there is no player yet.
    package func createRandomPlayersIfEmpty(count: Int = 8) throws {
        try writer.write { db in
            if try Self.playerCount(db) == 0 {
                try insertRandomPlayers(db, count: count)
            }
        }
    }

    func insertRandomPlayer(_ db: Database) throws -> Player {
        var player = random.makePlayer()
        try player.insert(db)
        return player
    }

    /// Inserts `count` random players in one statement, streaming: use it
    /// to fill a table with millions of players.
    package func insertRandomPlayers(_ db: Database, count: Int) throws {
        guard count > 0 else { return }
        // Columns are evaluated left to right: a name, then a score, for
        // each player, the same draws as `RandomSource.makePlayer()`.
        try db.execute(sql: """
            WITH RECURSIVE counter(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM counter WHERE i < ?)
            INSERT INTO player(name, score)
            SELECT \(SQL.randomNameFunction)(), \(SQL.randomScoreFunction)() FROM counter
            """, arguments: [count])
    }

    /// Refreshes the players as the demo apps do.
    @discardableResult
    func refresh(_ db: Database) throws -> Int {
        if try Self.playerCount(db) == 0 {
            try insertRandomPlayers(db, count: 8)
            return 0
        }
        if random.bool() {
            _ = try insertRandomPlayer(db)
        }
        var deleted = 0
        if random.bool() {
            deleted = try deleteRandomPlayer(db)
        }
        // One random score per row, drawn in the order of the table scan.
        try db.execute(sql: "UPDATE player SET score = \(SQL.randomScoreFunction)()")
        return deleted
    }

    /// Deletes a random player, in logarithmic time: the first from an id drawn between the smallest and
    /// the largest, since `ORDER BY RANDOM()` scans the table and ignores the seed.
    private func deleteRandomPlayer(_ db: Database) throws -> Int {
        guard let minID = try Int64.fetchOne(db.cachedStatement(sql: "SELECT MIN(id) FROM player")),
              let maxID = try Int64.fetchOne(db.cachedStatement(sql: "SELECT MAX(id) FROM player"))
        else { return 0 }
        let id = random.int64(in: minID...maxID)
        try db.execute(
            sql: "DELETE FROM player WHERE id = (SELECT id FROM player WHERE id >= ? ORDER BY id LIMIT 1)",
            arguments: [id])
        return db.changesCount
    }

    // MARK: - Reactive Intents

    /// Returns a publisher that inserts a random player, and publishes it.
    func insertRandomPlayer(
        observeOn scheduler: some OpenCombine.Scheduler = DispatchQueue.main.ocombine)
    -> DatabasePublishers.Write<Player>
    {
        writer.rx.write(observeOn: scheduler) { db in try self.insertRandomPlayer(db) }
    }

    /// Returns a publisher that saves the name and score of an existing player.
    func updatePlayer(
        _ player: Player,
        observeOn scheduler: some OpenCombine.Scheduler = DispatchQueue.main.ocombine)
    -> DatabasePublishers.Write<Void>
    {
        writer.rx.write(observeOn: scheduler) { db in try player.update(db) }
    }

    /// Returns a publisher that deletes a player, if it exists.
    func deletePlayer(
        id: Int64,
        observeOn scheduler: some OpenCombine.Scheduler = DispatchQueue.main.ocombine)
    -> DatabasePublishers.Write<Int>
    {
        writer.rx.write(observeOn: scheduler) { db in
            try Player.deleteOne(db, key: id) ? 1 : 0
        }
    }

    /// Returns a publisher that deletes all players.
    func deleteAll(
        observeOn scheduler: some OpenCombine.Scheduler = DispatchQueue.main.ocombine)
    -> DatabasePublishers.Write<Int>
    {
        writer.rx.write(observeOn: scheduler) { db in
            try Player.deleteAll(db)
        }
    }

    /// Returns a publisher that refreshes the players as the demo apps do, in one transaction.
    func refresh(
        observeOn scheduler: some OpenCombine.Scheduler = DispatchQueue.main.ocombine)
    -> DatabasePublishers.Write<Int>
    {
        writer.rx.write(observeOn: scheduler) { db in try self.refresh(db) }
    }
}
