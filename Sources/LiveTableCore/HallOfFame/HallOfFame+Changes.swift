import GRDB

// MARK: - Change highlighting

extension HallOfFame {
    package static let nameCell = 0
    package static let scoreCell = 1

    /// The players of the window as change highlighting compares them:
    /// each identified by its id, with its name and score as cells (see
    /// `nameCell` and `scoreCell`), which hold the whole sort key of both
    /// orderings. A player without an id (a replaced table may hold
    /// one) can not be told from another, and is left out.
    package var changeSnapshot: WindowSnapshot<Int64> {
        WindowSnapshot(
            rows: players.compactMap { player in
                player.id.map { id in
                    WindowSnapshot.Row(id: id, cells: [player.name.databaseValue, player.score.databaseValue])
                }
            },
            reachesStart: reachesStart, reachesEnd: reachesEnd, rowCount: playerCount)
    }
}
