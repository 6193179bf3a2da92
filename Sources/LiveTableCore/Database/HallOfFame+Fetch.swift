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

// MARK: - Keyset

/// Keyset paging on the index of an ordering.
///
/// The sort key of a player is three columns (`Ordering.sortColumns`):
/// (score DESC, name, id) or (name, score DESC, id). Since the directions
/// are mixed, a row value comparison such as `(score, name, id) < (?, ?, ?)`
/// can not seek the index. So the players before a key are three disjoint index ranges,
/// each one an index search, visited from the closest to the key:
///
/// 1. same first two columns, id before;
/// 2. same first column, second column before;
/// 3. first column before.
///
/// The players from a key on are the three mirror ranges (the key
/// itself included). Each statement is `INDEXED BY` the index of the
/// ordering, so that the plan never depends on the query planner's
/// guesses. Statements are cached by the connection: compiling them
/// would cost more than running them.
///
/// The key values are bound as the database stores them, whatever their
/// type: a score of `-1e30` or `'abc'` is bound as that real or that text,
/// and SQLite's comparisons put it where the index does.
private struct Keyset {
    /// One index range: a WHERE clause, its arguments, and the order in
    /// which to read it.
    struct Range {
        var condition: String
        var arguments: StatementArguments
        var order: String
    }

    enum End { case start, end }

    let ordering: Ordering
    let index: String
    let columns: [SortColumn]
    let forwardOrder: String
    let backwardOrder: String

    init(_ ordering: Ordering) {
        self.ordering = ordering
        index = ordering.indexName
        columns = ordering.sortColumns
        forwardOrder = ordering.orderByClause
        backwardOrder = ordering.reversedOrderByClause
    }

    /// The sort key of the player of `anchor.id` as the table now stores
    /// it, or nil if it does not exist: one search of the primary key. The
    /// values are read as stored, not decoded, so that they bind back
    /// exactly (a blob name stays a blob).
    func currentKey(_ db: Database, of anchor: Player) throws -> [DatabaseValue]? {
        guard let id = anchor.id else { return nil }
        let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT id, name, score FROM player WHERE id = ?"),
            arguments: [id])
        return row.map { row in columns.map { row[$0.name.rawValue] as DatabaseValue } }
    }

    /// The players strictly before `key`, backwards.
    func before(_ key: [DatabaseValue]) -> [Range] {
        (0..<columns.count).reversed().map { position in
            range(key, equalUpTo: position, comparison: columns[position].descending ? ">" : "<", order: backwardOrder)
        }
    }

    /// The players from `key` on, `key` included, forwards.
    func from(_ key: [DatabaseValue]) -> [Range] {
        (0..<columns.count).reversed().map { position in
            let inclusive = position == columns.count - 1
            let comparison = columns[position].descending
                ? (inclusive ? "<=" : "<")
                : (inclusive ? ">=" : ">")
            return range(key, equalUpTo: position, comparison: comparison, order: forwardOrder)
        }
    }

    /// All players, forwards from the start or backwards from the end.
    ///
    /// Rather than a bare `ORDER BY … LIMIT` (a bounded index scan, that
    /// EXPLAIN reports as a SCAN), the range starts from the extreme value
    /// of the first column, read from the index: every statement of the
    /// Hall of Fame is then an index search, which a test checks.
    func all(_ db: Database, from end: End) throws -> [Range] {
        let first = columns[0].name.rawValue
        // The start of a descending column is its maximum.
        let fromMaximum = (end == .start) == columns[0].descending
        let extreme = try DatabaseValue.fetchOne(
            db.cachedStatement(sql: "SELECT \(fromMaximum ? "MAX" : "MIN")(\(first)) FROM player"))
            ?? .null
        // On an empty table the extreme is NULL, and the range is empty.
        return [Range(
            condition: "\(first) \(fromMaximum ? "<=" : ">=") ?",
            arguments: [extreme],
            order: end == .start ? forwardOrder : backwardOrder)]
    }

    private func range(
        _ key: [DatabaseValue], equalUpTo position: Int, comparison: String, order: String) -> Range
    {
        let conditions = columns[..<position].map { "\($0.name.rawValue) = ?" }
            + ["\(columns[position].name.rawValue) \(comparison) ?"]
        return Range(
            condition: conditions.joined(separator: " AND "),
            arguments: StatementArguments(key[...position]),
            order: order)
    }

    /// Up to `limit` players from `ranges`, in order.
    func fetchPlayers(_ db: Database, _ ranges: [Range], limit: Int) throws -> [Player] {
        var players: [Player] = []
        for range in ranges where players.count < limit {
            let rows = try Row.fetchCursor(
                db.cachedStatement(sql: """
                    SELECT id, name, score FROM player INDEXED BY \(index) \
                    WHERE \(range.condition) ORDER BY \(range.order) LIMIT ?
                    """),
                arguments: range.arguments + [limit - players.count])
            while let row = try rows.next() {
                players.append(Player(row: row))
            }
        }
        return players
    }

    /// The number of players in `ranges`, counting no further than `limit`.
    func countPlayers(_ db: Database, _ ranges: [Range], limit: Int) throws -> Int {
        var count = 0
        for range in ranges where count < limit {
            count += try Int.fetchOne(
                db.cachedStatement(sql: """
                    SELECT COUNT(*) FROM (SELECT 1 FROM player INDEXED BY \(index) \
                    WHERE \(range.condition) LIMIT ?)
                    """),
                arguments: range.arguments + [limit - count])!
        }
        return count
    }

    // MARK: Rank estimate

    /// Estimates the number of players before `key`, in constant time.
    ///
    /// SQLite's B-trees do not count the entries of a subtree, so an exact
    /// rank in the middle of the table costs a scan. Instead, triggers
    /// maintain two histograms: players per score bucket (16 scores wide,
    /// 66 buckets at most) and per name bucket (the first two characters
    /// of the name, a few dozen buckets for the demo names). The estimate
    /// adds the buckets before the key's bucket, and a share of the key's
    /// bucket: interpolated on the score, and, for the position among
    /// equal scores or equal name prefixes, the share of players on the
    /// other side of the other column (assuming names and scores are
    /// independent, as random players are).
    func estimatedRank(_ db: Database, of key: [DatabaseValue], playerCount: Int) throws -> Int {
        guard playerCount > 0 else { return 0 }
        let total = Double(playerCount)
        let score = key[ordering.position(of: .score)]
        let name = key[ordering.position(of: .name)]
        let scoreBuckets = try ScoreBuckets(db, score: score)
        let nameBuckets = try NameBuckets(db, name: name)
        // The histograms count higher scores and smaller names: the
        // directions of both sort keys. The leading column decides.
        if columns[0].name == .score {
            let shareOfSmallerNames = (nameBuckets.countBefore + nameBuckets.countInBucket / 2) / total
            let inBucket = scoreBuckets.countInBucket
                * scoreBuckets.shareAbove(tieShare: shareOfSmallerNames)
            return Int(scoreBuckets.countAbove + inBucket)
        } else {
            let shareOfHigherScores = (scoreBuckets.countAbove
                + scoreBuckets.countInBucket * scoreBuckets.shareAbove(tieShare: 0.5)) / total
            return Int(nameBuckets.countBefore + nameBuckets.countInBucket * shareOfHigherScores)
        }
    }
}

/// The score histogram, seen from a score.
private struct ScoreBuckets {
    /// The bucket of the score, or nil if it is not an integer bucket.
    var bucket: Int?
    /// The score, if it is an integer.
    var score: Int?
    /// Players in buckets of higher scores.
    var countAbove: Double
    /// Players in the bucket of the score.
    var countInBucket: Double

    init(_ db: Database, score: DatabaseValue) throws {
        self.score = Score(databaseValue: score).integerValue
        bucket = try Int.fetchOne(db.cachedStatement(sql: "SELECT \(SQL.scoreBucket(":score"))"), arguments: ["score": score])
        countAbove = try Double.fetchOne(
            db.cachedStatement(sql: "SELECT total(playerCount) FROM playerScoreBucket WHERE bucket > ?"),
            arguments: [bucket])!
        countInBucket = try Double.fetchOne(
            db.cachedStatement(sql: "SELECT total(playerCount) FROM playerScoreBucket WHERE bucket = ?"),
            arguments: [bucket])!
    }

    /// The share of the bucket's players that sort before a player of
    /// this score, in descending score order: those with a higher score,
    /// plus `tieShare` of those with the same score. Scores are assumed
    /// uniform in the bucket; the open-ended buckets count for a half.
    func shareAbove(tieShare: Double) -> Double {
        guard let bucket, let score, (0..<SQL.scoreBucketCount).contains(bucket) else {
            return 0.5
        }
        let width = Double(SQL.scoreBucketWidth)
        let highest = Double((bucket + 1) * SQL.scoreBucketWidth - 1)
        return (highest - Double(score) + tieShare) / width
    }
}

/// The name histogram, seen from a name.
private struct NameBuckets {
    /// Players in buckets of smaller names.
    var countBefore: Double
    /// Players in the bucket of the name.
    var countInBucket: Double

    init(_ db: Database, name: DatabaseValue) throws {
        let bucket = try Int.fetchOne(db.cachedStatement(sql: "SELECT \(SQL.nameBucket(":name"))"), arguments: ["name": name])
        countBefore = try Double.fetchOne(
            db.cachedStatement(sql: "SELECT total(playerCount) FROM playerNameBucket WHERE bucket < ?"),
            arguments: [bucket])!
        countInBucket = try Double.fetchOne(
            db.cachedStatement(sql: "SELECT total(playerCount) FROM playerNameBucket WHERE bucket = ?"),
            arguments: [bucket])!
    }
}

// MARK: - Observation

extension AppDatabase {
    /// Returns a publisher of the Hall of Fame for a window of players.
    ///
    /// Each value is fetched in a single read: the player count, the max
    /// score and the players always agree. The cost of each value does not
    /// depend on the number of players (see `HallOfFame.fetch(_:_:)`).
    /// Consecutive equal values are not published.
    ///
    /// For example:
    ///
    /// ```swift
    /// let request = WindowRequest(ordering: .byScore, anchor: .first, before: 0, after: 20)
    /// let cancellable = appDatabase.observeHallOfFame(request).sink(
    ///     receiveCompletion: { _ in },
    ///     receiveValue: { hallOfFame in print(hallOfFame.players) })
    /// ```
    ///
    /// - parameter request: The window of players.
    /// - parameter scheduler: A `ValueObservationScheduler`. By default,
    ///   values are delivered asynchronously on the main dispatch queue.
    /// - returns: A publisher of Hall of Fame values.
    public func observeHallOfFame(
        _ request: WindowRequest,
        scheduling scheduler: some ValueObservationScheduler = .async(onQueue: .main))
    -> DatabasePublishers.Value<HallOfFame>
    {
        // A constant region, as with `trackingConstantRegion`, so that a
        // DatabasePool fetches fresh values on a reader, concurrently with
        // writes. The region is given rather than recorded from the first
        // fetch, because which statements a fetch runs depends on the
        // anchor: the whole player table is observed, whatever the first
        // fetch read. The statistics tables change with it (triggers).
        let publisher = ValueObservation
            .tracking(regions: [Table("player"), Table("playerStats")]) { db in
                try HallOfFame.fetch(db, request)
            }
            .removeDuplicates()
            .publisher(in: writer, scheduling: scheduler)
        return otherProcessCommits.withLock { $0 }.map(publisher.includingOtherProcesses) ?? publisher
    }
}
