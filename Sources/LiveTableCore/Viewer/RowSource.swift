import GRDB

/// What the viewer pages through: a table, a view, or a read-only query.
///
/// A source knows the SQL that selects its columns and its row identity,
/// every identifier quoted. A query is validated before anything runs:
/// one statement, read-only (`sqlite3_stmt_readonly`), that returns rows.
///
/// For example:
///
/// ```swift
/// let source = try database.read { db in
///     try RowSource.query("SELECT name, score FROM player WHERE score > 100", in: db)
/// }
/// print(source.columnNames) // ["name", "score"]
/// ```
public struct RowSource: Equatable, Sendable {
    /// The table's name, or the query's text.
    public var name: String
    /// The columns the viewer shows, in order.
    public var columns: [ViewerColumn]
    /// How a row is identified.
    public var identity: RowIdentity
    /// True for a query (false for a table or view).
    public var isQuery: Bool

    /// `WITH … ` before the SELECT, for a query (empty for a table).
    let prefix: String
    /// The query as given, without its final semicolon (nil for a table).
    let querySQL: String?
    /// What the SELECT reads from.
    let from: String
    /// The SQL expressions of the columns, in order.
    public let columnExpressions: [String]

    /// The names of the columns.
    public var columnNames: [String] { columns.map(\.name) }

    /// The source of a table or view.
    ///
    /// For example:
    ///
    /// ```swift
    /// let table = try database.read { db in try ViewerTable.named("player", in: db) }
    /// let source = RowSource.table(table)
    /// ```
    public static func table(_ table: ViewerTable) -> RowSource {
        RowSource(
            name: table.name,
            columns: table.columns,
            identity: table.identity,
            isQuery: false,
            prefix: "",
            querySQL: nil,
            from: table.name.quotedSQLIdentifier,
            columnExpressions: table.columns.map(\.name.quotedSQLIdentifier))
    }

    /// The source of a read-only query, validated without running it.
    ///
    /// The query must be one statement that `sqlite3_stmt_readonly` calls
    /// read-only and that returns columns; it is then paged as a common
    /// table expression whose columns are renamed by position, so that
    /// duplicate or computed column names (`SELECT a, a`, `count(*)`) are
    /// no obstacle.
    ///
    /// For example:
    ///
    /// ```swift
    /// try RowSource.query("DELETE FROM player", in: db) // throws ViewerError.notReadOnly
    /// ```
    ///
    /// - throws: A `ViewerError`: `.emptyQuery`, `.multipleStatements`,
    ///   `.notReadOnly`, `.noResultColumns` or `.invalidQuery`.
    public static func query(_ sql: String, in db: Database) throws -> RowSource {
        let statement = try validatedStatement(sql, in: db)
        let names = statement.columnNames
        // The statement's own text, without the `;` and what follows it,
        // and with a line break before the closing parenthesis in case it
        // ends with a `--` comment.
        let body = String(statement.sql.trimmingTrailingSemicolons())
        let positional = names.indices.map { "c\($0)" }
        let prefix = "WITH \"source\"(\(positional.joined(separator: ", "))) AS (\n\(body)\n) "
        let source = RowSource(
            name: sql,
            columns: names.map { ViewerColumn(name: $0, declaredType: "", isIndexed: false) },
            identity: .none,
            isQuery: true,
            prefix: prefix,
            querySQL: body,
            from: "\"source\"",
            columnExpressions: positional)
        // A statement that is not a SELECT (a PRAGMA, EXPLAIN) can not
        // be a common table expression.
        do {
            let wrapped = try db.makeStatement(sql: source.selectSQL(where: nil, orderBy: nil, limit: false))
            guard wrapped.isReadonly else { throw ViewerError.notReadOnly }
        } catch let error as DatabaseError {
            throw ViewerError.invalidQuery(reason: "only a SELECT can be viewed (\(error.message ?? "\(error.resultCode)"))")
        }
        return source
    }

    /// One statement, read-only, returning columns.
    private static func validatedStatement(_ sql: String, in db: Database) throws -> Statement {
        let statements: SQLStatementCursor
        let statement: Statement
        do {
            statements = try db.allStatements(sql: sql)
            guard let first = try statements.next() else {
                throw ViewerError.emptyQuery
            }
            statement = first
        } catch let error as DatabaseError {
            throw ViewerError.invalidQuery(reason: error.message ?? "\(error.resultCode)")
        }
        // What follows the first statement is never run: compiling it
        // tells whether there is one (GRDB refuses the same way).
        let hasMore: Bool
        do {
            hasMore = try statements.next() != nil
        } catch {
            hasMore = true
        }
        if hasMore {
            throw ViewerError.multipleStatements
        }
        guard statement.isReadonly else {
            throw ViewerError.notReadOnly
        }
        guard statement.columnCount > 0 else {
            throw ViewerError.noResultColumns
        }
        return statement
    }

    // MARK: - Schema changes

    /// The source as the schema now describes it: for a table or view
    /// that another process altered (columns added, dropped, renamed) or
    /// dropped, or a query whose tables changed.
    ///
    /// For example:
    ///
    /// ```swift
    /// // After another process ran ALTER TABLE item ADD COLUMN color:
    /// let source = try database.read { db in try source.reloaded(db) }
    /// ```
    ///
    /// - throws: `ViewerError.noSuchTable` when the table is gone, or the
    ///   error of the query that no longer compiles.
    public func reloaded(_ db: Database) throws -> RowSource {
        if let querySQL {
            var source = try RowSource.query(querySQL, in: db)
            source.name = name
            return source
        }
        return .table(try ViewerTable.named(name, in: db))
    }

    /// SQLite's schema version: it changes each time a process changes the
    /// schema, so that a viewer knows when to call `reloaded(_:)`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let version = try database.read { db in try RowSource.schemaVersion(db) }
    /// ```
    public static func schemaVersion(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
    }

    // MARK: - SQL

    /// `[WITH …] SELECT columns, extra FROM source [INDEXED BY …] [WHERE …] [ORDER BY …] [LIMIT ?]`.
    func selectSQL(
        extra: [String] = [], indexedBy index: String? = nil,
        where condition: String?, orderBy: String?, limit: Bool) -> String
    {
        selectSQL(
            expressions: columnExpressions + extra, indexedBy: index,
            where: condition, orderBy: orderBy, limit: limit)
    }

    /// `[WITH …] SELECT expressions FROM source [INDEXED BY …] [WHERE …] [ORDER BY …] [LIMIT ?]`.
    func selectSQL(
        expressions: [String], indexedBy index: String?,
        where condition: String?, orderBy: String?, limit: Bool) -> String
    {
        var sql = prefix + "SELECT " + expressions.joined(separator: ", ") + " FROM " + from
        if let index { sql += " INDEXED BY " + index.quotedSQLIdentifier }
        if let condition { sql += " WHERE " + condition }
        if let orderBy { sql += " ORDER BY " + orderBy }
        if limit { sql += " LIMIT ?" }
        return sql
    }

    /// The SQL expression of the column named `name`.
    func expression(ofColumn name: String) -> String? {
        columns.firstIndex { $0.name == name }
            .map { columnExpressions[$0] }
    }

    /// The SQL expressions of the identity (all columns when there is none).
    var identityExpressions: [String] {
        switch identity {
        case let .rowid(name): return [name]
        case let .primaryKey(names): return names.map(\.quotedSQLIdentifier)
        case .none: return columnExpressions
        }
    }
}

extension StringProtocol {
    /// The text without the trailing `;` and blanks that end a statement.
    fileprivate func trimmingTrailingSemicolons() -> SubSequence {
        var text = self[...]
        while let last = text.last, last == ";" || last.isWhitespace {
            text = text.dropLast()
        }
        return text
    }
}

extension String {
    /// The name as a quoted SQL identifier, its own double quotes doubled.
    ///
    /// GRDB's `quotedDatabaseIdentifier` does not double them, and a name
    /// read from a foreign file may hold any character.
    var quotedSQLIdentifier: String {
        "\"" + replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
