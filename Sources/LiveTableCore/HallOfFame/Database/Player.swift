import Foundation
import GRDB

/// A player of the Hall of Fame: a row of the `player` table.
package struct Player: Equatable, Hashable, Identifiable, Sendable {
    /// The row id, nil until the player is inserted.
    package var id: Int64?
    /// The player's name, never empty when the app writes it.
    var name: String
    /// The player's score, as stored: an integer when the app writes it,
    /// anything another process wrote otherwise (see `Score`).
    var score: Score

    init(id: Int64? = nil, name: String, score: Score) {
        self.id = id
        self.name = name
        self.score = score
    }

    init(id: Int64? = nil, name: String, score: Int) {
        self.init(id: id, name: name, score: Score(score))
    }
}

extension Player: FetchableRecord, MutablePersistableRecord {
    package enum Columns {
        static let id = Column("id")
        static let name = Column("name")
        static let score = Column("score")
    }

    /// Creates a player from a row of the `player` table, whatever another
    /// process stored in it: the columns are decoded without a failable
    /// conversion (GRDB's `row[...]` traps on a value it cannot convert).
    package init(row: Row) {
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

    package func encode(to container: inout PersistenceContainer) {
        container[Columns.id] = id
        container[Columns.name] = name
        container[Columns.score] = score
    }

    package mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
