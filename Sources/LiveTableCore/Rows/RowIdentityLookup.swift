import GRDB

/// Which rows a table no longer holds, looked up by identity (the rowid,
/// or the columns of a primary key): how a screen tells the rows deleted
/// among the departed rows of a window (`WindowDiff.departedRows`) from
/// those that an update of their sort values moved out of it.
///
/// Each identity is one search of the table's primary key (or rowid), so
/// the cost is proportional to the number of rows looked up, whatever the
/// size of the table. Both screens use it: the Hall of Fame on the
/// `player` table's `id`, the viewer on the identity of a table
/// (`RowSource.identityLookup`); a view or a query has no identity, and
/// no lookup.
///
/// For example:
///
/// ```swift
/// let lookup = RowIdentityLookup(from: "player", identity: ["id"])
/// let deleted = try reader.read { db in try lookup.missing(db, among: [[1.databaseValue], [2.databaseValue]]) }
/// ```
struct RowIdentityLookup: Equatable, Sendable {
    /// What the lookup reads from: a quoted table name.
    let from: String
    /// The SQL expressions of the identity columns, quoted.
    let identity: [String]

    /// Creates a lookup of the rows of `from`, identified by the values of
    /// the `identity` expressions (SQL, quoted where needed).
    init(from: String, identity: [String]) {
        self.from = from
        self.identity = identity
    }

    /// The identities among `identities` that no row of the table has:
    /// in the order given, each a list of values in the order of
    /// `identity` (one whose number of values differs counts as missing).
    ///
    /// - parameter db: A database connection.
    /// - parameter identities: The identities to look up.
    /// - returns: The identities of `identities` that the table lacks.
    func missing(_ db: Database, among identities: [[DatabaseValue]]) throws -> [[DatabaseValue]] {
        guard !identities.isEmpty, !identity.isEmpty else { return [] }
        // One cached statement, run once per identity: each run is one
        // search of the key, with `IS` so that the key's index is used
        // whatever the values (SQLite plans `a IS ?` as `a = ?` on a key
        // that holds no NULL).
        let condition = identity.map { "\($0) IS ?" }.joined(separator: " AND ")
        let statement = try db.cachedStatement(sql: "SELECT 1 FROM \(from) WHERE \(condition) LIMIT 1")
        return try identities.filter { values in
            guard values.count == identity.count else { return true }
            return try Int.fetchOne(statement, arguments: StatementArguments(values)) == nil
        }
    }
}
