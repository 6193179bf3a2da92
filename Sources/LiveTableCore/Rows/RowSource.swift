import Foundation
import GRDB

/// What the viewer pages through: a table, a view, or a read-only query.
///
/// A source knows the SQL that selects its columns and its row identity,
/// every identifier quoted, in the SQL dialect of its database
/// (`dialect`). A query is validated before anything runs: one statement,
/// read-only (`sqlite3_stmt_readonly`), that returns rows (see
/// `RowSource+SQLite.swift` for what is SQLite's alone).
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
    /// nil for all rows; set by `filtered(_:in:)`, which validates it
    /// with SQLite, or by `applyingFilter(_:)` for another database.
    public private(set) var filter: String?

    /// An expression whose value changes whenever a row does, selected
    /// with each row as its change token (PostgreSQL's `xmin`: the
    /// transaction that wrote the row's version), or nil: a row whose
    /// token did not change is not compared cell by cell
    /// (`WindowSnapshot.Row.changeToken`). Nil for SQLite, whose
    /// statements stay as they are, and for a view or a query, whose rows
    /// have none.
    public var changeToken: String?

    /// The order of a query's own top-level `ORDER BY`, as far as the
    /// window engine keeps it (`RowOrdering` opens a query in it when no
    /// column is sorted); nil for a table, a view, or a query without one.
    public var queryOrder: QueryOrder?

    /// `WITH … ` before the SELECT, for a query (empty for a table).
    private(set) var prefix: String
    /// The query as given, without its final semicolon (nil for a table).
    let querySQL: String?
    /// What the SELECT reads from.
    let from: String
    /// The SQL expressions of the columns, in order.
    public let columnExpressions: [String]
    /// How the statements of the source are written (quoting, NULLs,
    /// placeholders): `.sqlite` unless made for another database.
    public let dialect: SQLDialect
    /// The SQL expressions by which each column is ordered, where they
    /// differ from `columnExpressions`: PostgreSQL orders no `json`, `xml`
    /// or `point` value, which are then ordered by their text
    /// (`"doc"::text`). Nil: the columns themselves (SQLite orders any
    /// value).
    var orderExpressions: [String]?
    /// For a source without identity, an expression after all the columns
    /// that tells apart rows the types' equality takes for equal but that
    /// print differently (PostgreSQL's `1.0` and `1.00`, `'a'` and `'A'`
    /// under a nondeterministic collation): the engine tells keys apart
    /// byte for byte. Nil where the columns' equality is already exact.
    var tieBreakExpression: String?
    /// The SQL expressions that a window selects for its shown columns,
    /// where they differ from `columnExpressions`: PostgreSQL's long
    /// values cut on the server, so that a refresh never moves a value of
    /// 100 MB. Keys and exports read the columns whole.
    var shownExpressions: [String]?

    init(
        name: String, columns: [SourceColumn], identity: RowIdentity, isQuery: Bool,
        descendingIdentityColumns: Set<String> = [], prefix: String, querySQL: String?, from: String,
        columnExpressions: [String], dialect: SQLDialect)
    {
        self.name = name
        self.columns = columns
        self.identity = identity
        self.isQuery = isQuery
        self.descendingIdentityColumns = descendingIdentityColumns
        self.prefix = prefix
        self.querySQL = querySQL
        self.from = from
        self.columnExpressions = columnExpressions
        self.dialect = dialect
    }

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
    ///
    /// - parameter table: The table, its name qualified by its schema
    ///   when it has one (`"sales"."order"`).
    /// - parameter dialect: The SQL of the table's database.
    public static func table(_ table: TableSchema, dialect: SQLDialect) -> RowSource {
        var source = RowSource(
            name: table.name,
            columns: table.columns,
            identity: table.identity,
            isQuery: false,
            descendingIdentityColumns: table.descendingKeyColumns,
            prefix: "",
            querySQL: nil,
            from: dialect.quotedTable(table.name, schema: table.schema),
            columnExpressions: table.columns.map { dialect.quoted($0.name) },
            dialect: dialect)
        // Stored rows have a version's system columns; a view's rows, and
        // a foreign table's, have none.
        if table.kind == .table || table.kind == .materializedView {
            source.changeToken = dialect.changeToken
        }
        return source
    }

    /// The source of a query that its database has validated: one
    /// read-only statement, without parameters, whose result has the
    /// columns `columnNames` (SQLite validates with `query(_:in:)`).
    ///
    /// The query is paged as a common table expression whose columns are
    /// renamed by position, so that duplicate or computed column names
    /// (`SELECT a, a`, `count(*)`) are no obstacle. Its own `ORDER BY`,
    /// where it names columns of the result, is kept (`queryOrder`).
    ///
    /// For example:
    ///
    /// ```swift
    /// // After PostgreSQL described the prepared statement:
    /// let source = RowSource.query("SELECT name, score FROM player", columnNames: ["name", "score"], dialect: .postgres)
    /// ```
    public static func query(_ sql: String, columnNames: [String], dialect: SQLDialect) -> RowSource {
        // The statement's own text, without the `;` and what follows it,
        // and with a line break before the closing parenthesis in case it
        // ends with a `--` comment.
        let body = String(sql.trimmingTrailingSemicolons())
        let positional = columnNames.indices.map { "c\($0)" }
        var source = RowSource(
            name: sql,
            columns: columnNames.map { SourceColumn(name: $0, declaredType: "", isIndexed: false) },
            identity: .none,
            isQuery: true,
            prefix: queryPrefix(body, columns: positional, filter: nil, dialect: dialect),
            querySQL: body,
            from: "\"source\"",
            columnExpressions: positional,
            dialect: dialect)
        source.queryOrder = QueryOrder(query: body, columnNames: columnNames, dialect: dialect)
        return source
    }

    /// Refuses, before the database compiles it, a query that could not
    /// stand inside the parentheses that page it (`WITH "source" AS (…)`,
    /// PostgreSQL's `SELECT * FROM (…)`): a `)` that closes nothing, or a
    /// `(`, string, quoted name or comment left open. The database would
    /// say so later in words about the statement around it ("syntax error
    /// at or near ")"", "incomplete input"), or accept it: SQLite ends a
    /// `/*` comment with the text, which would then hide the wrapper's `)`.
    ///
    /// - throws: `SourceError.invalidQuery`, "unbalanced parentheses" or
    ///   "unterminated '".
    static func checkEnclosable(query sql: String, dialect: SQLDialect) throws {
        if let problem = SQLToken.enclosureProblem(sql, dialect.lexicon) {
            throw SourceError.invalidQuery(reason: problem.description)
        }
    }

    /// `WITH "source"(c0, c1, …) AS (…) `: the query, renamed by position,
    /// and filtered by the names of its own columns when `filter` is set.
    static func queryPrefix(_ body: String, columns: [String], filter: String?, dialect: SQLDialect) -> String {
        var select = body
        if let filter {
            select = "SELECT * FROM (\n\(body)\n)\(dialect.subqueryAlias) WHERE (\n\(filter)\n)"
        }
        return "WITH \"source\"(\(columns.joined(separator: ", "))) AS (\n\(select)\n) "
    }

    // MARK: - Filter

    /// The source with only the rows for which `expression` is true, as
    /// `WHERE (expression)` keeps them; all rows when it is nil or blank:
    /// checked to be one expression (see `filtered(_:in:)`), not compiled.
    ///
    /// The database must then compile a statement of the filtered source
    /// (`selectSQL`) and refuse it unless it is read-only and has no
    /// parameters of its own: the engine numbers its placeholders after
    /// the filter's text (`$1` in a PostgreSQL filter would take the
    /// engine's first argument). SQLite's `filtered(_:in:)` does both.
    ///
    /// For example:
    ///
    /// ```swift
    /// let cheap = try source.applyingFilter("price < 10")
    /// ```
    ///
    /// - throws: `SourceError.invalidFilter` when it is not one expression.
    public func applyingFilter(_ expression: String?) throws -> RowSource {
        var source = self
        if let querySQL {
            source.prefix = Self.queryPrefix(querySQL, columns: columnExpressions, filter: nil, dialect: dialect)
        }
        source.filter = nil
        let text = expression?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard !text.isEmpty else { return source }
        if let problem = Self.expressionProblem(text, dialect.lexicon) {
            throw SourceError.invalidFilter(reason: problem)
        }
        source.filter = text
        if let querySQL {
            source.prefix = Self.queryPrefix(querySQL, columns: columnExpressions, filter: text, dialect: dialect)
        }
        return source
    }

    /// Why `expression` is not one expression, or nil: a parenthesis that
    /// closes what it did not open, or a `(`, string, quoted name or
    /// comment left open, would let it end the `WHERE (…)` it is put in
    /// (and an `OR TRUE` after it switch off the window's conditions); a
    /// `;` would end the statement. Read through the dialect's own tokens,
    /// which know PostgreSQL's `$$…$$` strings, `E'\''` escapes and nested
    /// comments: `$$($$ = 'x') OR (TRUE) OR ($$)$$ = ''` is balanced only
    /// to a scan that does not.
    private static func expressionProblem(_ expression: String, _ lexicon: SQLLexicon) -> String? {
        switch SQLToken.enclosureProblem(expression, lexicon) {
        case .unbalancedParentheses?:
            return "unbalanced parentheses: a filter is one expression"
        case let problem?:
            return problem.description
        case nil:
            // Under each reading of PostgreSQL's strings, as the parentheses.
            let semicolon = SQLToken.readings(lexicon).contains { backslashEscapes in
                SQLToken.scan(expression, lexicon, backslashEscapes: backslashEscapes).tokens.contains { $0.isSymbol(";") }
            }
            return semicolon ? "a filter is one expression, without ;" : nil
        }
    }

    // MARK: - SQL

    /// `[WITH …] SELECT columns, extra FROM source [INDEXED BY …] [WHERE …] [ORDER BY …] [LIMIT ?]`.
    func selectSQL(
        extra: [String] = [], indexedBy index: String? = nil,
        where condition: SQLFragment?, orderBy: String?, limit: Bool) -> String
    {
        selectSQL(
            columns: columnExpressions + extra, indexedBy: index, where: [condition].compactMap { $0 },
            orderBy: orderBy, limit: limit)
    }

    /// `[WITH …] SELECT columns FROM source [INDEXED BY …] [WHERE …] [ORDER BY …] [LIMIT ?]`,
    /// the filter of a table or view joined to `condition`.
    func selectSQL(
        columns: [String], indexedBy index: String? = nil,
        where condition: SQLFragment?, orderBy: String? = nil, limit: Bool = false) -> String
    {
        selectSQL(
            columns: columns, indexedBy: index, where: [condition].compactMap { $0 }, orderBy: orderBy, limit: limit)
    }

    /// Every statement of the viewer that is built from parts is built
    /// here: `[WITH …] SELECT columns FROM source [INDEXED BY …]
    /// [WHERE (filter) AND (c1) AND (c2)…] [ORDER BY …] [LIMIT ?] [OFFSET ?]`.
    ///
    /// Each condition stands in its own parentheses, on lines of its own
    /// (a `--` comment in it ends with its line), so that no part can bind
    /// to its neighbour: a condition `a OR b` after the filter `f` reads
    /// `(f) AND (a OR b)`, never `f AND a OR b`. The filter of a table or
    /// view comes first; a query is filtered in its prefix.
    ///
    /// The placeholders of the conditions, then of the `LIMIT` and the
    /// `OFFSET`, are
    /// written by the dialect (`?`, or `$1…$n` numbered here, in the order
    /// of the arguments); the text of the filter and of a query is left
    /// as given. `INDEXED BY` is written only where the dialect has it.
    func selectSQL(
        columns: [String], indexedBy index: String? = nil,
        where conditions: [SQLFragment], orderBy: String? = nil, limit: Bool = false, offset: Bool = false
    ) -> String
    {
        var sql = prefix + "SELECT " + columns.joined(separator: ", ") + " FROM " + from
        if let index, dialect.supportsIndexedBy { sql += " INDEXED BY " + dialect.quoted(index) }
        var number = 1
        if let condition = whereCondition(conditions, numbering: &number) { sql += " WHERE " + condition }
        if let orderBy { sql += " ORDER BY " + orderBy }
        if limit {
            sql += " LIMIT " + dialect.placeholder(number)
            number += 1
        }
        if offset { sql += " OFFSET " + dialect.placeholder(number) }
        return sql
    }

    /// The filter of a table or view and `conditions`, each in its own
    /// parentheses, joined by `AND`; nil when there is none.
    private func whereCondition(_ conditions: [SQLFragment], numbering number: inout Int) -> String? {
        let filters = querySQL == nil ? [filter].compactMap { $0 } : []
        var all = filters
        for condition in conditions {
            all.append(condition.sql(dialect, numbering: &number))
        }
        guard !all.isEmpty else { return nil }
        return all.map { "(\n\($0)\n)" }.joined(separator: " AND ")
    }

    /// The SQL expression of the column named `name`.
    func expression(ofColumn name: String) -> String? {
        columns.firstIndex { $0.name == name }
            .map { columnExpressions[$0] }
    }

    /// The SQL expression by which the column named `name` is ordered
    /// (`orderExpressions`).
    func orderExpression(ofColumn name: String) -> String? {
        columns.firstIndex { $0.name == name }
            .map { (orderExpressions ?? columnExpressions)[$0] }
    }

    /// The SQL expressions of the identity (all columns when there is none).
    var identityExpressions: [String] {
        switch identity {
        case let .rowid(name): return [name]
        case let .primaryKey(names): return names.map { dialect.quoted($0) }
        case .none: return (orderExpressions ?? columnExpressions) + [tieBreakExpression].compactMap { $0 }
        }
    }
}

extension StringProtocol {
    /// The text without the trailing `;` and blanks that end a statement.
    func trimmingTrailingSemicolons() -> SubSequence {
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

    /// The text with its ASCII letters in lower case, others as they are:
    /// as SQL folds names, and as SQLite's `lower()`.
    var lowercasedASCII: String {
        String(String.UnicodeScalarView(unicodeScalars.map { scalar in
            ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32) ?? scalar : scalar
        }))
    }
}
