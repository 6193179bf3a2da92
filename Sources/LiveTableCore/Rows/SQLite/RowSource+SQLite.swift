import CSQLite
import GRDB

// MARK: - SQLite only

// Compiles statements with SQLite and reads its schema: another database
// validates by its own means, and makes its sources with `table(_:dialect:)`,
// `query(_:columnNames:dialect:)` and `applyingFilter(_:)`.

extension RowSource {
    /// Validated without running it: one statement, read-only as
    /// `sqlite3_stmt_readonly` says, returning columns.
    package static func query(_ sql: String, in db: Database) throws -> RowSource {
        try checkEnclosable(query: sql, dialect: .sqlite)
        let statement = try validatedStatement(sql, in: db)
        var source = RowSource.query(statement.sql, columnNames: statement.columnNames, dialect: .sqlite)
        source.name = sql
        // A statement that is not a SELECT (a PRAGMA, EXPLAIN) can not be a
        // common table expression.
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

    /// What the authorizer refused (see `SourceAuthorizer`), or nil.
    private static func denial(_ error: DatabaseError, in db: Database) -> SourceAuthorizer.Denial? {
        // SQLite says "not authorized" (SQLITE_AUTH), or "not authorized to
        // use function: …" (SQLITE_ERROR).
        guard error.resultCode == .SQLITE_AUTH || error.message?.hasPrefix("not authorized") == true else {
            return nil
        }
        return SourceAuthorizer.lastDenial(in: db) ?? .write
    }

    private static func queryError(_ denial: SourceAuthorizer.Denial) -> SourceError {
        switch denial {
        case .write, .pragma(_, _?): return .notReadOnly
        case .function, .pragma: return .invalidQuery(reason: denial.reason)
        }
    }

    /// Nothing binds parameters, so such a statement could only fail later,
    /// with a count of missing arguments.
    private static func parameterProblem(_ statement: Statement) -> String? {
        guard sqlite3_bind_parameter_count(statement.sqliteStatement) > 0 else { return nil }
        return "parameters (?, :name, @name, $name) have no value here: write the values in the SQL"
    }

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
        if Self.hasMore(statements) {
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

    /// For a table or view that another process altered or dropped, or a
    /// query whose tables changed.
    package func reloaded(_ db: Database) throws -> RowSource {
        var source: RowSource
        if let querySQL {
            source = try RowSource.query(querySQL, in: db)
            source.name = name
            source.identity = identity
        } else {
            source = .table(try TableSchema.named(name, in: db), dialect: .sqlite)
        }
        return try source.filtered(filter, in: db)
    }

    /// Changes each time a process changes the schema: when to `reloaded(_:)`.
    package static func schemaVersion(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
    }

    // MARK: - Filter

    /// Validated without running anything: one expression on the source's
    /// columns, in a statement that compiles alone and is read-only. A table
    /// or view is filtered in each statement's `WHERE`, where SQLite can use
    /// an index; a query inside its common table expression.
    /// Whether a statement follows the first: compiling it tells, and it
    /// is never run. One that does not compile counts.
    private static func hasMore(_ statements: SQLStatementCursor) -> Bool {
        do {
            return try statements.next() != nil
        } catch {
            return true
        }
    }

    package func filtered(_ expression: String?, in db: Database) throws -> RowSource {
        let source = try applyingFilter(expression)
        guard source.filter != nil else { return source }
        do {
            let statements = try db.allStatements(sql: source.selectSQL(where: nil, orderBy: nil, limit: false))
            guard let statement = try statements.next() else {
                throw SourceError.invalidFilter(reason: "the filter is empty")
            }
            if Self.hasMore(statements) {
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
