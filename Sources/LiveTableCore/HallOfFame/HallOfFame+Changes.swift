import GRDB

// MARK: - Change highlighting

extension HallOfFame {
    public static let nameCell = 0
    public static let scoreCell = 1

    /// The players of the window as change highlighting compares them:
    /// each identified by its id, with its name and score as cells (see
    /// `nameCell` and `scoreCell`), which hold the whole sort key of both
    /// orderings. A player without an id (a replaced table may hold
    /// one) can not be told from another, and is left out.
    public var changeSnapshot: WindowSnapshot<Int64> {
        WindowSnapshot(
            rows: players.compactMap { player in
                player.id.map { id in
                    WindowSnapshot.Row(id: id, cells: [player.name.databaseValue, player.score.databaseValue])
                }
            },
            reachesStart: reachesStart, reachesEnd: reachesEnd, rowCount: playerCount)
    }
}

extension HallOfFame {
    /// The ids among `ids` that no player has any longer: the departed
    /// rows of a window (see `WindowDiff.departedRows`) that were deleted,
    /// rather than moved out of the window by a change of score or name.
    public static func deletedPlayerIDs(_ db: Database, among ids: [Int64]) throws -> [Int64] {
        try RowIdentityLookup(from: "player", identity: ["id"])
            .missing(db, among: ids.map { [$0.databaseValue] })
            .compactMap { Int64.fromDatabaseValue($0[0]) }
    }
}
