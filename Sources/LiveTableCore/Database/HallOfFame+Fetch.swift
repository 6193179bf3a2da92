import Dispatch
import GRDB
import ReactiveGRDB

extension HallOfFame {
    /// Below this many players before (or after) the anchor, the rank of a
    /// window is counted exactly; beyond, it is estimated. Counting stops
    /// at the limit, so it costs at most this many index entries.
    static let exactRankLimit = 1000

    /// Fetches the Hall of Fame for a window of players, in one read, at a
    /// cost that does not depend on the number of players.
    ///
    /// Call it in a single read (a `read` or a `ValueObservation` fetch),
    /// so that the count, the max score and the players agree.
    ///
    /// For example:
    ///
    /// ```swift
    /// let request = WindowRequest(ordering: .byScore, anchor: .first, before: 0, after: 20)
    /// let hallOfFame = try appDatabase.writer.read { db in
    ///     try HallOfFame.fetch(db, request)
    /// }
    /// ```
    ///
    /// Every statement is an index search:
    ///
    /// - the player count comes from the trigger-maintained `playerStats`;
    /// - the max score comes from the score index;
    /// - the players are paged by keyset on the index of the ordering,
    ///   never with `OFFSET`;
    /// - a `.player` anchor is looked up by its primary key, to follow the
    ///   player to its current sort key (see `WindowAnchor.player`);
    /// - the rank of the window is exact for the `.first` and `.last`
    ///   anchors, and for a `.player` anchor near either end of the
    ///   ordering. Elsewhere it is estimated from small histograms, and
    ///   `rankIsExact` is false.
    ///
    /// - parameter db: A database connection.
    /// - parameter request: The window of players.
    /// - returns: A Hall of Fame.
    public static func fetch(_ db: Database, _ request: WindowRequest) throws -> HallOfFame {
        try fetch(db, request, exactRankLimit: exactRankLimit)
    }

    /// Fetches the Hall of Fame, counting exact ranks up to `exactRankLimit`
    /// players (tests lower it to reach the estimates with few players).
    static func fetch(_ db: Database, _ request: WindowRequest, exactRankLimit: Int) throws -> HallOfFame {
        let before = max(0, request.before)
        let after = max(0, request.after)
        let keyset = Keyset(request.ordering)
        let playerCount = try AppDatabase.playerCount(db)
        let maxScore = try AppDatabase.maxScore(db)

        func hallOfFame(
            _ players: [Player], firstRank: Int, rankIsExact: Bool = true,
            reachesStart: Bool, reachesEnd: Bool) -> HallOfFame
        {
            HallOfFame(
                playerCount: playerCount, maxScore: maxScore, request: request, players: players,
                firstRank: firstRank, rankIsExact: rankIsExact,
                reachesStart: reachesStart, reachesEnd: reachesEnd)
        }

        switch request.anchor {
        case .first:
            // One more row than needed tells whether the window reaches the end.
            let rows = try keyset.fetchPlayers(db, keyset.all(db, from: .start), limit: after + 1)
            return hallOfFame(
                Array(rows.prefix(after)), firstRank: 0,
                reachesStart: true, reachesEnd: rows.count <= after)

        case .last:
            let size = before + after
            let rows = try keyset.fetchPlayers(db, keyset.all(db, from: .end), limit: size + 1)
            let players = Array(rows.prefix(size).reversed())
            return hallOfFame(
                players, firstRank: playerCount - players.count,
                reachesStart: rows.count <= size, reachesEnd: true)

        case let .player(anchor):
            // The anchor follows its player by id, in this same read, so
            // that the window holds the player wherever its new score moved
            // it. A deleted player leaves the window at the key it was given.
            let key = try keyset.currentKey(db, of: anchor) ?? request.ordering.sortKey(of: anchor)
            let rowsBefore = try keyset.fetchPlayers(db, keyset.before(key), limit: before + 1)
            let rowsFrom = try keyset.fetchPlayers(db, keyset.from(key), limit: after + 1)
            let playersBefore = Array(rowsBefore.prefix(before).reversed())
            let playersFrom = Array(rowsFrom.prefix(after))

            // The rank of the anchor key: the number of players before it.
            let anchorRank: Int
            var rankIsExact = true
            let countBefore = try keyset.countPlayers(db, keyset.before(key), limit: exactRankLimit)
            if countBefore < exactRankLimit {
                anchorRank = countBefore
            } else {
                let countFrom = try keyset.countPlayers(db, keyset.from(key), limit: exactRankLimit)
                if countFrom < exactRankLimit {
                    anchorRank = playerCount - countFrom
                } else {
                    // Both counts reached the limit, so the rank is in
                    // exactRankLimit...(playerCount - exactRankLimit).
                    let estimate = try keyset.estimatedRank(db, of: key, playerCount: playerCount)
                    anchorRank = min(
                        max(estimate, exactRankLimit, playersBefore.count),
                        playerCount - exactRankLimit,
                        playerCount - playersFrom.count)
                    rankIsExact = false
                }
            }
            return hallOfFame(
                playersBefore + playersFrom,
                firstRank: anchorRank - playersBefore.count,
                rankIsExact: rankIsExact,
                reachesStart: rowsBefore.count <= before,
                reachesEnd: rowsFrom.count <= after)
        }
    }
}
