import Dispatch
import GRDB
import ReactiveGRDB

extension HallOfFame {
    /// Below this many players before (or after) the anchor, the rank of a
    /// window is counted exactly; beyond, it is estimated. Counting stops
    /// at the limit, so it costs at most this many index entries.
    static let exactRankLimit = 1000

    /// The player table as the window engine reads it: the columns that
    /// `Player(stored:_:_:)` decodes, and the id (`INTEGER PRIMARY KEY`,
    /// the rowid under another name) as the row identity that a player
    /// anchor follows. The schema is the app's own: a test holds
    /// this source against the one read from the schema.
    static let source = RowSource(
        name: "player",
        columns: [
            SourceColumn(name: "id", declaredType: "INTEGER", isIndexed: true, isNotNull: true),
            SourceColumn(name: "name", declaredType: "TEXT", isIndexed: true, isNotNull: true),
            SourceColumn(name: "score", declaredType: "INTEGER", isIndexed: true, isNotNull: true),
        ],
        identity: .rowid("id"),
        isQuery: false,
        prefix: "",
        querySQL: nil,
        from: "player",
        columnExpressions: ["id", "name", "score"], dialect: .sqlite)

    /// Fetches the Hall of Fame for a window of players in one read, so that the count, the max score and
    /// the players agree. Every statement reads an index (the count in `playerStats`, the max score's,
    /// players by keyset, never `OFFSET`): the cost does not grow with the table.
    package static func fetch(_ db: Database, _ request: WindowRequest) throws -> HallOfFame {
        try fetch(db, request, exactRankLimit: exactRankLimit)
    }

    /// Fetches the Hall of Fame, counting exact ranks up to `exactRankLimit`
    /// players (tests lower it to reach the estimates with few players).
    static func fetch(_ db: Database, _ request: WindowRequest, exactRankLimit: Int) throws -> HallOfFame {
        let ordering = request.ordering
        let rowOrdering = ordering.rowOrdering
        let playerCount = try AppDatabase.playerCount(db)
        let maxScore = try AppDatabase.maxScore(db)

        // The anchor follows its player by id, in this same read, so that
        // the window holds the player wherever its new score moved it. A
        // deleted (or never inserted) player leaves the window at the key
        // it was given.
        let anchor: RowAnchor
        switch request.anchor {
        case .first: anchor = .first
        case .last: anchor = .last
        case let .player(player):
            let given = ordering.rowPosition(of: player)
            anchor = .position(try rowOrdering.currentPosition(of: given, in: source, db) ?? given)
        }
        let window = try RowWindow.fetch(db, source, RowWindowRequest(
            ordering: rowOrdering, anchor: anchor, before: request.before, after: request.after))
        let players = window.rows.map { Player(stored: $0[0], $0[1], $0[2]) }

        let firstRank: Int
        var rankIsExact = true
        switch anchor {
        case .first:
            firstRank = 0
        case .last:
            firstRank = playerCount - players.count
        case let .position(position):
            // The window holds up to `before` players before the anchor key,
            // then up to `after` from it on.
            let countBefore = window.positions.prefix { ordering.compare($0.key, position.key) < 0 }.count
            let countFrom = players.count - countBefore
            // The rank of the anchor key: the number of players before it.
            let anchorRank: Int
            let allBefore = try rowOrdering.countRows(db, in: source, before: position, limit: exactRankLimit)
            if allBefore < exactRankLimit {
                anchorRank = allBefore
            } else {
                let allFrom = try rowOrdering.countRows(db, in: source, from: position, limit: exactRankLimit)
                if allFrom < exactRankLimit {
                    anchorRank = playerCount - allFrom
                } else {
                    // Both counts reached the limit, so the rank is in
                    // exactRankLimit...(playerCount - exactRankLimit).
                    let estimate = try ordering.estimatedRank(db, of: position.key, playerCount: playerCount)
                    anchorRank = min(
                        max(estimate, exactRankLimit, countBefore),
                        playerCount - exactRankLimit,
                        playerCount - countFrom)
                    rankIsExact = false
                }
            }
            firstRank = anchorRank - countBefore
        }
        return HallOfFame(
            playerCount: playerCount, maxScore: maxScore, request: request, players: players,
            firstRank: firstRank, rankIsExact: rankIsExact,
            reachesStart: window.reachesStart, reachesEnd: window.reachesEnd)
    }
}
