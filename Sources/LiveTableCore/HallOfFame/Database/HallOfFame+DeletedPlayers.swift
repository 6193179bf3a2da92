import GRDB

extension HallOfFame {
    /// The ids among `ids` that no player has any longer: the departed
    /// rows of a window (see `WindowDiff.departedRows`) that were deleted,
    /// rather than moved out of the window by a change of score or name.
    package static func deletedPlayerIDs(_ db: Database, among ids: [Int64]) throws -> [Int64] {
        try RowIdentityLookup(from: "player", identity: ["id"], dialect: .sqlite)
            .missing(db, among: ids.map { [$0.databaseValue] })
            .compactMap { Int64.fromDatabaseValue($0[0]) }
    }
}
