import CSQLite
import Foundation
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
    public var columns: [SourceColumn]
    /// How a row is identified.
    public var identity: RowIdentity
    /// True for a query (false for a table or view).
    public var isQuery: Bool
    /// The identity columns that the table's own order sorts in descending
    /// order (`TableSchema.descendingKeyColumns`).
    public var descendingIdentityColumns: Set<String> = []

    /// The SQL expression that rows must satisfy (`livetable view`'s `f`),
    /// nil for all rows; set by `filtered(_:in:)`, which validates it.
    public private(set) var filter: String?

    /// `WITH … ` before the SELECT, for a query (empty for a table).
    private(set) var prefix: String
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
    /// let table = try database.read { db in try TableSchema.named("player", in: db) }
    /// let source = RowSource.table(table)
    /// ```
    public static func table(_ table: TableSchema) -> RowSource {
        RowSource(
            name: table.name,
            columns: table.columns,
            identity: table.identity,
            isQuery: false,
            descendingIdentityColumns: table.descendingKeyColumns,
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
    /// try RowSource.query("DELETE FROM player", in: db) // throws SourceError.notReadOnly
    /// ```
    ///
    /// - throws: A `SourceError`: `.emptyQuery`, `.multipleStatements`,
    ///   `.notReadOnly`, `.noResultColumns` or `.invalidQuery`.
    public static func query(_ sql: String, in db: Database) throws -> RowSource {
        let statement = try validatedStatement(sql, in: db)
        let names = statement.columnNames
        // The statement's own text, without the `;` and what follows it,
        // and with a line break before the closing parenthesis in case it
        // ends with a `--` comment.
        let body = String(statement.sql.trimmingTrailingSemicolons())
        let positional = names.indices.map { "c\($0)" }
        let prefix = queryPrefix(body, columns: positional, filter: nil)
        let source = RowSource(
            name: sql,
            columns: names.map { SourceColumn(name: $0, declaredType: "", isIndexed: false) },
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
            guard wrapped.isReadonly else { throw SourceError.notReadOnly }
        } catch let error as DatabaseError {
            if let denial = denial(error, in: db) {
                throw queryError(denial)
            }
            throw SourceError.invalidQuery(reason: "only a SELECT can be viewed (\(error.message ?? "\(error.resultCode)"))")
        }
        return source
    }

    /// What the authorizer refused in the statement that failed with
    /// `error` (see `ViewerDatabase.guardConnection(_:)`), or nil.
    private static func denial(_ error: DatabaseError, in db: Database) -> SourceAuthorizer.Denial? {
        // SQLite says "not authorized" (SQLITE_AUTH), or "not authorized to
        // use function: …" (SQLITE_ERROR).
        guard error.resultCode == .SQLITE_AUTH || error.message?.hasPrefix("not authorized") == true else {
            return nil
        }
        return SourceAuthorizer.lastDenial(in: db) ?? .write
    }

    /// The error of a query that the authorizer refused: a write (or a
    /// PRAGMA that sets) is not read-only; a function off the list is named.
    private static func queryError(_ denial: SourceAuthorizer.Denial) -> SourceError {
        switch denial {
        case .write, .pragma(_, _?): return .notReadOnly
        case .function, .pragma: return .invalidQuery(reason: denial.reason)
        }
    }

    /// The refusal of a statement with parameters (`?`, `?1`, `:name`,
    /// `@name`, `$name`): nothing binds them, so it could only fail later,
    /// with a count of missing arguments.
    private static func parameterProblem(_ statement: Statement) -> String? {
        guard sqlite3_bind_parameter_count(statement.sqliteStatement) > 0 else { return nil }
        return "parameters (?, :name, @name, $name) have no value here: write the values in the SQL"
    }

    /// `WITH "source"(c0, c1, …) AS (…) `: the query, renamed by position,
    /// and filtered by the names of its own columns when `filter` is set.
    private static func queryPrefix(_ body: String, columns: [String], filter: String?) -> String {
        var select = body
        if let filter {
            select = "SELECT * FROM (\n\(body)\n) WHERE (\n\(filter)\n)"
        }
        return "WITH \"source\"(\(columns.joined(separator: ", "))) AS (\n\(select)\n) "
    }

    /// One statement, read-only, returning columns.
    private static func validatedStatement(_ sql: String, in db: Database) throws -> Statement {
        let statements: SQLStatementCursor
        let statement: Statement
        do {
            statements = try db.allStatements(sql: sql)
            guard let first = try statements.next() else {
                throw SourceError.emptyQuery
            }
            statement = first
        } catch let error as DatabaseError {
            if let denial = denial(error, in: db) {
                throw queryError(denial)
            }
            throw SourceError.invalidQuery(reason: error.message ?? "\(error.resultCode)")
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
            throw SourceError.multipleStatements
        }
        guard statement.isReadonly else {
            throw SourceError.notReadOnly
        }
        guard statement.columnCount > 0 else {
            throw SourceError.noResultColumns
        }
        if let problem = parameterProblem(statement) {
            throw SourceError.invalidQuery(reason: problem)
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
    /// - throws: `SourceError.noSuchTable` when the table is gone, or the
    ///   error of the query that no longer compiles.
    public func reloaded(_ db: Database) throws -> RowSource {
        var source: RowSource
        if let querySQL {
            source = try RowSource.query(querySQL, in: db)
            source.name = name
        } else {
            source = .table(try TableSchema.named(name, in: db))
        }
        return try source.filtered(filter, in: db)
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

    // MARK: - Filter

    /// The source with only the rows for which `expression` is true, as
    /// `WHERE (expression)` keeps them; all rows when it is nil or blank.
    ///
    /// The expression is validated without running anything: one SQL
    /// expression (its parentheses balance, so that it can not close the
    /// `WHERE` and append a clause), on the source's columns, in a
    /// statement that compiles alone and that `sqlite3_stmt_readonly`
    /// calls read-only. A table or view is filtered in the `WHERE` of each
    /// statement, where SQLite can use an index; a query inside its common
    /// table expression, by the names of its own columns.
    ///
    /// For example:
    ///
    /// ```swift
    /// let cheap = try source.filtered("price < 10 AND name LIKE 'a%'", in: db)
    /// try source.filtered("1); DELETE FROM item; --", in: db) // throws SourceError.invalidFilter
    /// ```
    ///
    /// - throws: `SourceError.invalidFilter`, with SQLite's message.
    public func filtered(_ expression: String?, in db: Database) throws -> RowSource {
        var source = self
        if let querySQL {
            source.prefix = Self.queryPrefix(querySQL, columns: columnExpressions, filter: nil)
        }
        source.filter = nil
        let text = expression?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard !text.isEmpty else { return source }
        if let problem = Self.expressionProblem(text) {
            throw SourceError.invalidFilter(reason: problem)
        }
        source.filter = text
        if let querySQL {
            source.prefix = Self.queryPrefix(querySQL, columns: columnExpressions, filter: text)
        }
        do {
            let statements = try db.allStatements(sql: source.selectSQL(where: nil, orderBy: nil, limit: false))
            guard let statement = try statements.next() else {
                throw SourceError.invalidFilter(reason: "the filter is empty")
            }
            // What follows the first statement is compiled, never run.
            let hasMore: Bool
            do {
                hasMore = try statements.next() != nil
            } catch {
                hasMore = true
            }
            if hasMore {
                throw SourceError.invalidFilter(reason: "more than one statement")
            }
            guard statement.isReadonly else {
                throw SourceError.invalidFilter(reason: "not read-only")
            }
            if let problem = Self.parameterProblem(statement) {
                throw SourceError.invalidFilter(reason: problem)
            }
        } catch let error as DatabaseError {
            throw SourceError.invalidFilter(reason: Self.denial(error, in: db)?.reason ?? error.message ?? "\(error.resultCode)")
        }
        return source
    }

    /// Why `expression` is not one expression, or nil: a parenthesis that
    /// closes what it did not open, or a string, quoted name or comment
    /// left open, would let it end the `WHERE (…)` it is put in.
    private static func expressionProblem(_ expression: String) -> String? {
        var depth = 0
        var scalars = expression.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            switch scalar {
            case "(":
                depth += 1
            case ")":
                depth -= 1
                if depth < 0 { return "unbalanced parentheses: a filter is one expression" }
            case "'", "\"", "`", "[":
                let end: Unicode.Scalar = scalar == "[" ? "]" : scalar
                guard let close = scalars.firstIndex(of: end) else { return "unterminated \(scalar)" }
                // A doubled quote is the quote itself: the scan goes on
                // after the second one.
                scalars = scalars[scalars.index(after: close)...]
            case "-" where scalars.first == "-":
                guard let newline = scalars.firstIndex(of: "\n") else { return nil }
                scalars = scalars[newline...]
            case "/" where scalars.first == "*":
                let rest = Substring(scalars.dropFirst())
                guard let close = rest.range(of: "*/") else { return "unterminated comment" }
                scalars = rest[close.upperBound...].unicodeScalars
            case ";":
                return "a filter is one expression, without ;"
            default:
                break
            }
        }
        return depth == 0 ? nil : "unbalanced parentheses: a filter is one expression"
    }

    // MARK: - SQL

    /// `[WITH …] SELECT columns, extra FROM source [INDEXED BY …] [WHERE …] [ORDER BY …] [LIMIT ?]`.
    func selectSQL(
        extra: [String] = [], indexedBy index: String? = nil,
        where condition: String?, orderBy: String?, limit: Bool) -> String
    {
        selectSQL(
            columns: columnExpressions + extra, indexedBy: index, where: [condition].compactMap { $0 },
            orderBy: orderBy, limit: limit)
    }

    /// `[WITH …] SELECT columns FROM source [INDEXED BY …] [WHERE …] [ORDER BY …] [LIMIT ?]`,
    /// the filter of a table or view joined to `condition`.
    func selectSQL(
        columns: [String], indexedBy index: String? = nil,
        where condition: String?, orderBy: String? = nil, limit: Bool = false) -> String
    {
        selectSQL(
            columns: columns, indexedBy: index, where: [condition].compactMap { $0 }, orderBy: orderBy, limit: limit)
    }

    /// Every statement of the viewer that is built from parts is built
    /// here: `[WITH …] SELECT columns FROM source [INDEXED BY …]
    /// [WHERE (filter) AND (c1) AND (c2)…] [ORDER BY …] [LIMIT ?]`.
    ///
    /// Each condition stands in its own parentheses, on lines of its own
    /// (a `--` comment in it ends with its line), so that no part can bind
    /// to its neighbour: a condition `a OR b` after the filter `f` reads
    /// `(f) AND (a OR b)`, never `f AND a OR b`. The filter of a table or
    /// view comes first; a query is filtered in its prefix.
    func selectSQL(
        columns: [String], indexedBy index: String? = nil,
        where conditions: [String], orderBy: String? = nil, limit: Bool = false) -> String
    {
        var sql = prefix + "SELECT " + columns.joined(separator: ", ") + " FROM " + from
        if let index { sql += " INDEXED BY " + index.quotedSQLIdentifier }
        if let condition = whereCondition(conditions) { sql += " WHERE " + condition }
        if let orderBy { sql += " ORDER BY " + orderBy }
        if limit { sql += " LIMIT ?" }
        return sql
    }

    /// The filter of a table or view and `conditions`, each in its own
    /// parentheses, joined by `AND`; nil when there is none.
    private func whereCondition(_ conditions: [String]) -> String? {
        let all = (querySQL == nil ? [filter].compactMap { $0 } : []) + conditions
        guard !all.isEmpty else { return nil }
        return all.map { "(\n\($0)\n)" }.joined(separator: " AND ")
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
