import Dispatch
import Foundation
import GRDB
import OpenCombine
import OpenCombineDispatch
import ReactiveGRDB

extension AppDatabase {
    // MARK: - Synchronous Intents

    /// Inserts `count` random players if there is no player yet.
    ///
    /// For example:
    ///
    /// ```swift
    /// try appDatabase.createRandomPlayersIfEmpty()
    /// ```
    ///
    /// - parameter count: The number of players to insert.
    public func createRandomPlayersIfEmpty(count: Int = 8) throws {
        try writer.write { db in
            if try Self.playerCount(db) == 0 {
                try insertRandomPlayers(db, count: count)
            }
        }
    }

    /// Inserts a random player.
    ///
    /// For example:
    ///
    /// ```swift
    /// let player = try appDatabase.writer.write { db in
    ///     try appDatabase.insertRandomPlayer(db)
    /// }
    /// ```
    ///
    /// - parameter db: A write access to `writer`.
    /// - returns: The inserted player.
    func insertRandomPlayer(_ db: Database) throws -> Player {
        var player = random.makePlayer()
        try player.insert(db)
        return player
    }

    /// Inserts `count` random players in one statement, streaming: use it
    /// to fill a table with millions of players.
    ///
    /// For example:
    ///
    /// ```swift
    /// try appDatabase.writer.write { db in
    ///     try appDatabase.insertRandomPlayers(db, count: 1_000_000)
    /// }
    /// ```
    ///
    /// - parameter db: A write access to `writer` (the random SQL functions
    ///   are registered on the writer connection only).
    /// - parameter count: The number of players to insert.
    public func insertRandomPlayers(_ db: Database, count: Int) throws {
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
    ///
    /// If there is no player, inserts 8 random players. Otherwise, maybe
    /// (one chance out of two) inserts a random player, maybe deletes a
    /// random player, and gives every player a new random score. The cost
    /// of a refresh grows with the number of players, by nature.
    ///
    /// For example:
    ///
    /// ```swift
    /// try appDatabase.writer.write { db in try appDatabase.refresh(db) }
    /// ```
    ///
    /// - parameter db: A write access to `writer`, in a transaction.
    /// - returns: The number of players deleted (0 or 1).
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

    /// Deletes a random player, in logarithmic time.
    ///
    /// A player is picked by drawing an id between the smallest and the
    /// largest, then taking the first player from there: players that
    /// follow gaps in ids are more likely picked, which is fine for a demo,
    /// and it avoids `ORDER BY RANDOM()`, which scans the table and ignores
    /// the seed.
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

    /// Returns a publisher that inserts a random player, and publishes the
    /// inserted player.
    ///
    /// For example:
    ///
    /// ```swift
    /// let cancellable = appDatabase.insertRandomPlayer().sink(
    ///     receiveCompletion: { _ in },
    ///     receiveValue: { player in print(player.name) })
    /// ```
    ///
    /// - parameter scheduler: The scheduler that publishes the value or the
    ///   error. By default, the main dispatch queue.
    func insertRandomPlayer(
        observeOn scheduler: some OpenCombine.Scheduler = DispatchQueue.main.ocombine)
    -> DatabasePublishers.Write<Player>
    {
        writer.rx.write(observeOn: scheduler) { db in try self.insertRandomPlayer(db) }
    }

    /// Returns a publisher that saves the name and score of an existing
    /// player.
    ///
    /// It fails with `RecordError.recordNotFound` if the player does not
    /// exist, and with a `DatabaseError` if the name is empty.
    ///
    /// For example:
    ///
    /// ```swift
    /// player.score = 1000
    /// let cancellable = appDatabase.updatePlayer(player).sink(
    ///     receiveCompletion: { completion in print(completion) },
    ///     receiveValue: { })
    /// ```
    ///
    /// - parameter player: The player to update.
    /// - parameter scheduler: The scheduler that publishes the value or the
    ///   error. By default, the main dispatch queue.
    func updatePlayer(
        _ player: Player,
        observeOn scheduler: some OpenCombine.Scheduler = DispatchQueue.main.ocombine)
    -> DatabasePublishers.Write<Void>
    {
        writer.rx.write(observeOn: scheduler) { db in try player.update(db) }
    }

    /// Returns a publisher that deletes a player, if it exists.
    ///
    /// For example:
    ///
    /// ```swift
    /// let cancellable = appDatabase.deletePlayer(id: 1).sink(
    ///     receiveCompletion: { _ in },
    ///     receiveValue: { deleted in })
    /// ```
    ///
    /// Publishes the number of players deleted (0 or 1).
    ///
    /// - parameter id: The id of the deleted player.
    /// - parameter scheduler: The scheduler that publishes the value or the
    ///   error. By default, the main dispatch queue.
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
    ///
    /// For example:
    ///
    /// ```swift
    /// let cancellable = appDatabase.deleteAll().sink(
    ///     receiveCompletion: { _ in },
    ///     receiveValue: { deleted in print(deleted) })
    /// ```
    ///
    /// Publishes the number of players deleted.
    ///
    /// - parameter scheduler: The scheduler that publishes the value or the
    ///   error. By default, the main dispatch queue.
    func deleteAll(
        observeOn scheduler: some OpenCombine.Scheduler = DispatchQueue.main.ocombine)
    -> DatabasePublishers.Write<Int>
    {
        writer.rx.write(observeOn: scheduler) { db in
            try Player.deleteAll(db)
        }
    }

    /// Returns a publisher that refreshes the players as the demo apps do,
    /// in one transaction. See `refresh(_:)`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let cancellable = appDatabase.refresh().sink(
    ///     receiveCompletion: { _ in },
    ///     receiveValue: { deleted in print(deleted) })
    /// ```
    ///
    /// Publishes the number of players deleted (0 or 1).
    ///
    /// - parameter scheduler: The scheduler that publishes the value or the
    ///   error. By default, the main dispatch queue.
    func refresh(
        observeOn scheduler: some OpenCombine.Scheduler = DispatchQueue.main.ocombine)
    -> DatabasePublishers.Write<Int>
    {
        writer.rx.write(observeOn: scheduler) { db in try self.refresh(db) }
    }
}
