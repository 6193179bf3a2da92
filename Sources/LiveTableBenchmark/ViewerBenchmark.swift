import GRDB

/// The viewer's benchmark table: `ViewerScreenBenchmark` measures the
/// viewer on it, through the real program on the app loop.
///
/// For example:
///
/// ```swift
/// try ViewerBenchmark.makeTable(atPath: "/tmp/big.sqlite", rows: 2_000_000)
/// ```
package enum ViewerBenchmark {
    /// Creates (or replaces) the table `item(id INTEGER PRIMARY KEY, name
    /// TEXT, score INTEGER, note TEXT)` with `rows` rows and an index on
    /// `score` (not on `name`), in a rollback-journal file, as another
    /// program would.
    ///
    /// - parameter path: The database file (created if missing).
    /// - parameter rows: The number of rows.
    package static func makeTable(atPath path: String, rows: Int) throws {
        let dbQueue = try DatabaseQueue(path: path)
        defer { try? dbQueue.close() }
        try dbQueue.write { db in
            try db.execute(sql: """
                DROP TABLE IF EXISTS item;
                CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, score INTEGER, note TEXT);
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
                INSERT INTO item(name, score, note)
                SELECT printf('Name %07d', (i * 7919) % ?), (i * 104729) % 100000,
                       CASE WHEN i % 10 = 0 THEN NULL ELSE 'note ' || i END
                FROM n;
                CREATE INDEX item_on_score ON item(score);
                """, arguments: [rows, max(rows, 1)])
        }
    }
}
