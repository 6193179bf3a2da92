import GRDB

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
struct Keyset {
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
}
