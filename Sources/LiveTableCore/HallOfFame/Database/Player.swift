import Foundation
import GRDB

/// A player of the Hall of Fame: a row of the `player` table.
public struct Player: Equatable, Hashable, Identifiable, Sendable {
    /// The row id, nil until the player is inserted.
    public var id: Int64?
    /// The player's name, never empty when the app writes it.
    var name: String
    /// The player's score, as stored: an integer when the app writes it,
    /// anything another process wrote otherwise (see `Score`).
    var score: Score

    /// Creates a player.
    init(id: Int64? = nil, name: String, score: Score) {
        self.id = id
        self.name = name
        self.score = score
    }

    /// Creates a player with an integer score.
    init(id: Int64? = nil, name: String, score: Int) {
        self.init(id: id, name: name, score: Score(score))
    }
}

extension Player: FetchableRecord, MutablePersistableRecord {
    /// The columns of the `player` table.
    public enum Columns {
        /// The `id` column, the primary key.
        static let id = Column("id")
        /// The `name` column.
        static let name = Column("name")
        /// The `score` column.
        static let score = Column("score")
    }

    /// Creates a player from a row of the `player` table, whatever another
    /// process stored in it: the columns are decoded without a failable
    /// conversion (GRDB's `row[...]` traps on a value it cannot convert).
    ///
    /// - A score is whatever is stored (see `Score`).
    /// - A name is a text, since the column has TEXT affinity, unless a
    ///   blob was written: it then shows as its bytes read as UTF-8. A NULL
    ///   name (the column is `NOT NULL`, but a replaced table may hold it)
    ///   is empty.
    /// - The id is an integer (`INTEGER PRIMARY KEY`), or nil should a
    ///   replaced table hold anything else.
    public init(row: Row) {
        self.init(stored: row["id"] as DatabaseValue, row["name"] as DatabaseValue, row["score"] as DatabaseValue)
    }

    /// Creates a player from its id, name and score as stored, whatever
    /// their type (see `init(row:)`).
    init(stored id: DatabaseValue, _ name: DatabaseValue, _ score: DatabaseValue) {
        switch name.storage {
        case let .string(text): self.name = text
        case let .blob(data): self.name = String(decoding: data, as: UTF8.self)
        case .null: self.name = ""
        case .int64, .double: self.name = Score(databaseValue: name).description
        }
        self.id = Int64.fromDatabaseValue(id)
        self.score = Score(databaseValue: score)
    }

    /// Writes the columns of the player.
    public func encode(to container: inout PersistenceContainer) {
        container[Columns.id] = id
        container[Columns.name] = name
        container[Columns.score] = score
    }

    /// Updates the id after a successful insertion.
    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
