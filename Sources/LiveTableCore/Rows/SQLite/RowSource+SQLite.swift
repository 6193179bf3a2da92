import CSQLite
import GRDB

// MARK: - SQLite only

// What follows compiles statements with SQLite (validation of a query or a
// filter, the authorizer's refusals) and reads SQLite's schema: a second
// database provides the same by its own means (see `RowReading`), and makes
// its sources with `RowSource.table(_:dialect:)`, `query(_:columnNames:dialect:)`
// and `applyingFilter(_:)`.

extension RowSource {
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
    ///   `.notReadOnly`, `.noResultColumns` or `.invalidQuery` (also for
    ///   unbalanced parentheses or an unterminated string or comment, see
    ///   `checkEnclosable(query:dialect:)`).
    public static func query(_ sql: String, in db: Database) throws -> RowSource {
        try checkEnclosable(query: sql, dialect: .sqlite)
        let statement = try validatedStatement(sql, in: db)
        // The statement's own text: without what follows its `;`.
        var source = RowSource.query(statement.sql, columnNames: statement.columnNames, dialect: .sqlite)
        source.name = sql
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
    /// `error` (see `SQLiteDataSource.guardConnection(_:)`), or nil.
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
            source = .table(try TableSchema.named(name, in: db), dialect: .sqlite)
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
        let source = try applyingFilter(expression)
        guard source.filter != nil else { return source }
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
}
