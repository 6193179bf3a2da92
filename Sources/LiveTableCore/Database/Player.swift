import GRDB

/// A player of the Hall of Fame: a row of the `player` table.
public struct Player: Codable, Equatable, Hashable, Identifiable, Sendable {
    /// The row id, nil until the player is inserted.
    public var id: Int64?
    /// The player's name, never empty.
    public var name: String
    /// The player's score.
    public var score: Int

    /// Creates a player.
    public init(id: Int64? = nil, name: String, score: Int) {
        self.id = id
        self.name = name
        self.score = score
    }
}

extension Player: FetchableRecord, MutablePersistableRecord {
    /// The columns of the `player` table.
    public enum Columns {
        /// The `id` column, the primary key.
        public static let id = Column(CodingKeys.id)
        /// The `name` column.
        public static let name = Column(CodingKeys.name)
        /// The `score` column.
        public static let score = Column(CodingKeys.score)
    }

    /// Updates the id after a successful insertion.
    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
