import Dispatch
import Foundation
import GRDB
import OpenCombine
import OpenCombineDispatch
import ReactiveGRDB
import Synchronization

/// The database of the app: its schema, and the intents that write players.
/// The schema holds millions of players: the count is kept by triggers, the max score read from its
/// index, and the Hall of Fame pages by keyset on the index of its ordering.
package final class AppDatabase: Sendable {
    package let writer: any DatabaseWriter

    let random: RandomSource

    /// How the Hall of Fame observations see the commits of other
    /// processes, if they do (see `observeExternalChanges(onPollingFallback:)`).
    let otherProcessCommits = Mutex<OtherProcessCommits?>(nil)

    package init(_ writer: any DatabaseWriter, seed: UInt64? = nil) throws {
        self.writer = writer
        self.random = RandomSource(seed: seed)
        try Self.migrator.migrate(writer)
        let random = self.random
        writer.writeWithoutTransaction { db in
            // Bulk inserts and `refresh` draw one value per row from SQL,
            // so that they stream through the table instead of loading
            // millions of players in memory, and still obey the seed.
            db.add(function: DatabaseFunction(
                SQL.randomNameFunction, argumentCount: 0, pure: false)
            { _ in random.name() })
            db.add(function: DatabaseFunction(
                SQL.randomScoreFunction, argumentCount: 0, pure: false)
            { _ in random.score() })
        }
    }

    /// Returns an empty in-memory database, for tests and demos.
    package static func inMemory(seed: UInt64? = nil) throws -> AppDatabase {
        try AppDatabase(DatabaseQueue(), seed: seed)
    }

    // MARK: - Reads

    /// Returns the number of players, in constant time.
    package static func playerCount(_ db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT playerCount FROM playerStats WHERE id = 1")) ?? 0
    }

    /// The greatest score, SQLite's `MAX(score)` from the score index: a text or a blob that another
    /// process stored is greater than any number (see `Score`).
    static func maxScore(_ db: Database) throws -> Score? {
        let value = try DatabaseValue.fetchOne(db.cachedStatement(sql: "SELECT MAX(score) FROM player"))
        // NULL is the max of an empty table.
        return value.flatMap { $0.isNull ? nil : Score(databaseValue: $0) }
    }
}
