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
/// no lookup. A row that a filter no longer keeps is not missing: the
/// table, not the filtered source, is looked up.
///
/// For example:
///
/// ```swift
/// let lookup = RowIdentityLookup(from: "player", identity: ["id"])
/// let deleted = try reader.read { db in try lookup.missing(db, among: [[1.databaseValue], [2.databaseValue]]) }
/// ```
struct RowIdentityLookup: Equatable, Sendable {
    /// The table, unfiltered, whose statements `RowSource.selectSQL` writes.
    let source: RowSource
    /// The SQL expressions of the identity columns, quoted.
    let identity: [String]

    /// Creates a lookup of the rows of `from`, identified by the values of
    /// the `identity` expressions (SQL, quoted where needed).
    ///
    /// - parameter from: What the lookup reads from: a table name, quoted
    ///   where needed.
    /// - parameter dialect: The SQL of the table's database.
    init(from: String, identity: [String], dialect: SQLDialect) {
        self.source = RowSource(
            name: from, columns: [], identity: .none, isQuery: false, prefix: "", querySQL: nil, from: from,
            columnExpressions: [], dialect: dialect)
        self.identity = identity
    }

    /// `SELECT 1 FROM table WHERE (id IS ?) LIMIT 1`: one search of the
    /// key, with `IS` so that the key's index is used whatever the values
    /// (SQLite plans `a IS ?` as `a = ?` on a key that holds no NULL);
    /// `id = $1` in PostgreSQL (`SQLDialect.KeyEquality`). The statement
    /// and its arguments for `values`.
    func statement(for values: [DatabaseValue]) -> (sql: String, arguments: [DatabaseValue]) {
        let (condition, arguments) = source.dialect.matching(identity, values)
        return (source.selectSQL(columns: ["1"], where: condition) + " LIMIT 1", arguments)
    }

    /// The identities among `identities` that no row of the table has:
    /// in the order given, each a list of values in the order of
    /// `identity` (one whose number of values differs counts as missing).
    ///
    /// - parameter db: A database connection.
    /// - parameter identities: The identities to look up.
    /// - returns: The identities of `identities` that the table lacks.
    func missing(_ db: some RowReading, among identities: [[DatabaseValue]]) throws -> [[DatabaseValue]] {
        guard !identities.isEmpty, !identity.isEmpty else { return [] }
        // One cached statement (SQLite), run once per identity.
        return try identities.filter { values in
            guard values.count == identity.count else { return true }
            let (sql, arguments) = statement(for: values)
            return try db.fetchInt(sql, arguments: arguments) == nil
        }
    }
}
