import GRDB

/// Which of a window's departed rows (`WindowDiff.departedRows`) the table
/// no longer holds, as opposed to rows moved out by a new sort value: one
/// primary key search per identity, whatever the table's size. The table,
/// not the filtered source, is looked up: a row filtered out is not deleted.
struct RowIdentityLookup: Equatable, Sendable {
    let source: RowSource
    let identity: [String]

    /// `from`: a table name, quoted where needed.
    init(from: String, identity: [String], dialect: SQLDialect) {
        self.source = RowSource(
            name: from, columns: [], identity: .none, isQuery: false, prefix: "", querySQL: nil, from: from,
            columnExpressions: [], dialect: dialect)
        self.identity = identity
    }

    /// With `IS`, so that the key's index is used whatever the values (SQLite
    /// plans `a IS ?` as `a = ?` on a key that holds no NULL).
    func statement(for values: [DatabaseValue]) -> (sql: String, arguments: [DatabaseValue]) {
        let (condition, arguments) = source.dialect.matching(identity, values)
        return (source.selectSQL(columns: ["1"], where: condition) + " LIMIT 1", arguments)
    }

    /// An identity with the wrong number of values counts as missing.
    func missing(_ db: some RowReading, among identities: [[DatabaseValue]]) throws -> [[DatabaseValue]] {
        guard !identities.isEmpty, !identity.isEmpty else { return [] }
        return try identities.filter { values in
            guard values.count == identity.count else { return true }
            let (sql, arguments) = statement(for: values)
            return try db.fetchInt(sql, arguments: arguments) == nil
        }
    }
}
