import Foundation
import GRDB

extension AppDatabase {
    // MARK: - Schema

    /// The identifier of the migration that creates the player table. A
    /// database that has tables but not this migration is not a livetable
    /// database.
    static let playerMigrationIdentifier = "createPlayer"

    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()

        migrator.registerMigration(playerMigrationIdentifier) { db in
            try db.execute(sql: """
                CREATE TABLE player (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    name TEXT NOT NULL CHECK(name <> ''),
                    score INTEGER NOT NULL
                );
                -- One index per ordering of the Hall of Fame, so that each
                -- page of players is an index search (keyset paging). Their
                -- columns are Ordering.sortColumns: a test holds them
                -- together (this SQL is frozen, as migrations are).
                CREATE INDEX player_on_score ON player(score DESC, name, id);
                CREATE INDEX player_on_name ON player(name, score DESC, id);
                """)
        }

        migrator.registerMigration("createPlayerStatistics") { db in
            // COUNT(*) scans the table: the count lives in a one-row table
            // instead, kept up to date by triggers in the transaction
            // of each change, whoever the writer is.
            //
            // The two bucket tables are small histograms (a few dozen
            // rows, whatever the number of players) that estimate the
            // rank of a player when counting the players before it would
            // cost a scan. See `HallOfFame.fetch(_:_:)`.
            let scoreBucketOfNew = SQL.scoreBucket("NEW.score")
            let scoreBucketOfOld = SQL.scoreBucket("OLD.score")
            let nameBucketOfNew = SQL.nameBucket("NEW.name")
            let nameBucketOfOld = SQL.nameBucket("OLD.name")
            try db.execute(sql: """
                CREATE TABLE playerStats (
                    id INTEGER PRIMARY KEY CHECK(id = 1),
                    playerCount INTEGER NOT NULL
                );
                INSERT INTO playerStats(id, playerCount) SELECT 1, COUNT(*) FROM player;

                CREATE TABLE playerScoreBucket (
                    bucket INTEGER PRIMARY KEY,
                    playerCount INTEGER NOT NULL
                );
                INSERT INTO playerScoreBucket(bucket, playerCount)
                    SELECT \(SQL.scoreBucket("score")), COUNT(*) FROM player GROUP BY 1;

                CREATE TABLE playerNameBucket (
                    bucket INTEGER PRIMARY KEY,
                    playerCount INTEGER NOT NULL
                );
                INSERT INTO playerNameBucket(bucket, playerCount)
                    SELECT \(SQL.nameBucket("name")), COUNT(*) FROM player GROUP BY 1;

                CREATE TRIGGER player_afterInsert AFTER INSERT ON player BEGIN
                    UPDATE playerStats SET playerCount = playerCount + 1 WHERE id = 1;
                    INSERT INTO playerScoreBucket(bucket, playerCount) VALUES (\(scoreBucketOfNew), 1)
                        ON CONFLICT(bucket) DO UPDATE SET playerCount = playerCount + 1;
                    INSERT INTO playerNameBucket(bucket, playerCount) VALUES (\(nameBucketOfNew), 1)
                        ON CONFLICT(bucket) DO UPDATE SET playerCount = playerCount + 1;
                END;

                CREATE TRIGGER player_afterDelete AFTER DELETE ON player BEGIN
                    UPDATE playerStats SET playerCount = playerCount - 1 WHERE id = 1;
                    UPDATE playerScoreBucket SET playerCount = playerCount - 1
                        WHERE bucket = \(scoreBucketOfOld);
                    UPDATE playerNameBucket SET playerCount = playerCount - 1
                        WHERE bucket = \(nameBucketOfOld);
                END;

                CREATE TRIGGER player_afterUpdateOfScore AFTER UPDATE OF score ON player
                WHEN \(scoreBucketOfOld) <> \(scoreBucketOfNew) BEGIN
                    UPDATE playerScoreBucket SET playerCount = playerCount - 1
                        WHERE bucket = \(scoreBucketOfOld);
                    INSERT INTO playerScoreBucket(bucket, playerCount) VALUES (\(scoreBucketOfNew), 1)
                        ON CONFLICT(bucket) DO UPDATE SET playerCount = playerCount + 1;
                END;

                CREATE TRIGGER player_afterUpdateOfName AFTER UPDATE OF name ON player
                WHEN \(nameBucketOfOld) <> \(nameBucketOfNew) BEGIN
                    UPDATE playerNameBucket SET playerCount = playerCount - 1
                        WHERE bucket = \(nameBucketOfOld);
                    INSERT INTO playerNameBucket(bucket, playerCount) VALUES (\(nameBucketOfNew), 1)
                        ON CONFLICT(bucket) DO UPDATE SET playerCount = playerCount + 1;
                END;
                """)
        }

        return migrator
    }()
}

// MARK: - SQL

/// SQL snippets shared by the schema and the queries.
enum SQL {
    /// A SQL function that returns a random name (writer connection only).
    static let randomNameFunction = "livetable_random_name"
    /// A SQL function that returns a random score (writer connection only).
    static let randomScoreFunction = "livetable_random_score"

    // The bucket functions below are frozen in the triggers of the
    // migration `createPlayerStatistics`, and the rank estimates call them
    // at query time: change them only with a new migration that rebuilds
    // the triggers and the buckets.

    static let scoreBucketWidth = 16
    /// The number of buckets of width `scoreBucketWidth` from score 0. Below
    /// is bucket -1, above is bucket `scoreBucketCount`: the random scores
    /// (0...1000) get 63 buckets of 16 scores.
    static let scoreBucketCount = 64

    /// The score bucket of `score`: a few dozen buckets in all, whatever
    /// the scores. The CAST keeps the bucket an integer should a foreign
    /// writer store a non-integer score.
    static func scoreBucket(_ score: String) -> String {
        """
        (CASE WHEN \(score) < 0 THEN -1 \
        WHEN \(score) >= \(scoreBucketWidth * scoreBucketCount) THEN \(scoreBucketCount) \
        ELSE CAST(\(score) AS INTEGER) / \(scoreBucketWidth) END)
        """
    }

    /// The name bucket of `name`: its first two Unicode scalars, packed in
    /// an integer that sorts like the names (code point order is UTF-8
    /// byte order, the BINARY collation; a missing second scalar is 0, and
    /// sorts first). Each demo name gets its own bucket, but Masashi and
    /// Mary, who share one.
    static func nameBucket(_ name: String) -> String {
        "ifnull((unicode(\(name)) << 21) | ifnull(unicode(substr(\(name), 2, 1)), 0), 0)"
    }
}
