import GRDB

// MARK: - Rank estimate

extension Ordering {
    /// Estimates the number of players before `key`, in constant time. SQLite's B-trees do not count a
    /// subtree's entries, so triggers keep two histograms (players per 16-score bucket, and per first two
    /// characters of the name): the estimate adds the buckets before the key's, and a share of its own.
    func estimatedRank(_ db: Database, of key: [DatabaseValue], playerCount: Int) throws -> Int {
        guard playerCount > 0 else { return 0 }
        let total = Double(playerCount)
        let score = key[position(of: .score)]
        let name = key[position(of: .name)]
        let scoreBuckets = try ScoreBuckets(db, score: score)
        let nameBuckets = try NameBuckets(db, name: name)
        // The histograms count higher scores and smaller names: the
        // directions of both sort keys. The leading column decides.
        if sortColumns[0].name == .score {
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
    var bucket: Int?
    var score: Int?
    var countAbove: Double
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
    var countBefore: Double
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
