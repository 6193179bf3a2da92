import Foundation
import GRDB

/// What the viewer pages through: a table, a view, or a read-only query,
/// with the SQL of its columns and identity in its database's dialect.
package struct RowSource: Equatable, Sendable {
    package var name: String
    package var columns: [SourceColumn]
    package var identity: RowIdentity
    package var isQuery: Bool
    /// The identity columns the table's own order sorts descending.
    package var descendingIdentityColumns: Set<String> = []

    /// Set by `filtered(_:in:)`, which SQLite validates, or by
    /// `applyingFilter(_:)` for another database.
    package private(set) var filter: String?

    /// Selected with each row; a row whose token did not change is not
    /// compared cell by cell. PostgreSQL's `xmin` (the transaction that
    /// wrote the row's version); nil for SQLite, whose statements stay as
    /// they are, and for views and queries, whose rows have none.
    package var changeToken: String?

    /// A query's own top-level `ORDER BY`, as far as the engine keeps it.
    package var queryOrder: QueryOrder?
    /// A table's; none for a view or a query.
    package var foreignKeys: [ForeignKey] = []

    /// `WITH … ` before the SELECT, for a query.
    private(set) var prefix: String
    /// Without its final semicolon.
    let querySQL: String?
    let from: String
    package let columnExpressions: [String]
    package let dialect: SQLDialect
    /// Where they differ from `columnExpressions`: PostgreSQL orders no
    /// `json`, `xml` or `point` value, ordered by their text instead.
    var orderExpressions: [String]?
    /// For a source without identity: tells apart rows that the types'
    /// equality takes for equal but print differently (PostgreSQL's `1.0`
    /// and `1.00`), since the engine tells keys apart byte for byte.
    var tieBreakExpression: String?
    /// PostgreSQL's long values cut on the server, so that a refresh never
    /// moves a value of 100 MB. Keys and exports read the columns whole.
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

    package var columnNames: [String] { columns.map(\.name) }

    /// `table`'s name is qualified by its schema when it has one.
    package static func table(_ table: TableSchema, dialect: SQLDialect) -> RowSource {
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
        source.foreignKeys = table.foreignKeys
        // A view's rows, and a foreign table's, have no system columns.
        if table.kind == .table || table.kind == .materializedView {
            source.changeToken = dialect.changeToken
        }
        return source
    }

    /// A query its database validated (SQLite: `query(_:in:)`), paged as a
    /// common table expression whose columns are renamed by position, so
    /// that duplicate or computed names (`SELECT a, a`) are no obstacle.
    /// The sheet names its columns uniquely (`id`, `id 2`): its keys, sort
    /// and filters find a column by its name. The header keeps the query's.
    package static func query(_ sql: String, columnNames: [String], dialect: SQLDialect) -> RowSource {
        // A line break before the closing parenthesis, in case the query
        // ends with a `--` comment.
        let body = String(sql.trimmingTrailingSemicolons())
        let positional = columnNames.indices.map { "c\($0)" }
        let names = uniqueNames(columnNames)
        var source = RowSource(
            name: sql,
            columns: zip(names, columnNames).map { name, heading in
                var column = SourceColumn(name: name, declaredType: "", isIndexed: false)
                column.heading = name == heading ? nil : heading
                return column
            },
            identity: .none,
            isQuery: true,
            prefix: queryPrefix(body, columns: positional, names: names, filter: nil, dialect: dialect),
            querySQL: body,
            from: "\"\(wrapperName(body))\"",
            columnExpressions: positional,
            dialect: dialect)
        source.queryOrder = QueryOrder(query: body, columnNames: columnNames, dialect: dialect)
        return source
    }

    /// A query whose rows `columns` tell apart (a group's value), NULL
    /// included: the selection follows its row as the other values change.
    package func keyed(byColumns columns: [String], named name: String) -> RowSource {
        var source = self
        source.identity = .primaryKey(columns)
        source.name = name
        return source
    }

    /// Refuses, before the database compiles it, a query that could not
    /// stand inside the parentheses that page it: a `)` that closes nothing,
    /// or a `(`, string, quoted name or comment left open. The database would
    /// say so in words about the wrapper, or accept it: SQLite ends a `/*`
    /// comment with the text, which would then hide the wrapper's `)`.
    static func checkEnclosable(query sql: String, dialect: SQLDialect) throws {
        if let problem = SQLToken.enclosureProblem(sql, dialect.lexicon) {
            throw SourceError.invalidQuery(reason: problem.description)
        }
    }

    /// `WITH "source"(c0, c1, …) AS (…) `, filtered by the sheet's column
    /// `names`: the query's rows are named so first (`"source rows"`).
    static func queryPrefix(
        _ body: String, columns: [String], names: [String], filter: String?, dialect: SQLDialect
    ) -> String {
        let wrapper = "\"\(wrapperName(body))\"(\(columns.joined(separator: ", "))) AS (\n"
        guard let filter else { return "WITH " + wrapper + body + "\n) " }
        let rows = wrapperName(body, base: "source rows")
        let named = "\"\(rows)\"(\(names.map(dialect.quoted).joined(separator: ", "))) AS (\n\(body)\n), "
        return "WITH " + named + wrapper + "SELECT * FROM \"\(rows)\" WHERE (\n\(filter)\n)\n) "
    }

    /// The name of the wrapper around `body`: `source`, or `source 2`… when
    /// the query names it (a table called `source`, which SQLite would read
    /// as the wrapper itself, a circular reference).
    static func wrapperName(_ body: String, base: String = "source") -> String {
        let text = body.lowercased()
        var name = base
        var number = 1
        while text.contains(name) {
            number += 1
            name = "\(base) \(number)"
        }
        return name
    }

    /// `id`, `id 2`: a name met again takes the first number free.
    static func uniqueNames(_ names: [String]) -> [String] {
        let all = Set(names)
        var taken: Set<String> = []
        return names.map { name in
            var unique = name
            var number = 1
            while taken.contains(unique) || (number > 1 && all.contains(unique)) {
                number += 1
                unique = "\(name) \(number)"
            }
            taken.insert(unique)
            return unique
        }
    }

    // MARK: - Filter

    /// Checked to be one expression, not compiled: the database must then
    /// compile a filtered statement and refuse it unless it is read-only and
    /// has no parameters of its own (`$1` in a PostgreSQL filter would take
    /// the engine's first argument). SQLite's `filtered(_:in:)` does both.
    package func applyingFilter(_ expression: String?) throws -> RowSource {
        var source = self
        if let querySQL {
            source.prefix = Self.queryPrefix(
                querySQL, columns: columnExpressions, names: columnNames, filter: nil, dialect: dialect)
        }
        source.filter = nil
        let text = expression?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard !text.isEmpty else { return source }
        if let problem = Self.expressionProblem(text, dialect.lexicon) {
            throw SourceError.invalidFilter(reason: problem)
        }
        source.filter = text
        if let querySQL {
            source.prefix = Self.queryPrefix(
                querySQL, columns: columnExpressions, names: columnNames, filter: text, dialect: dialect)
        }
        return source
    }

    /// An unbalanced parenthesis or an open string, quoted name or comment
    /// would let it end its `WHERE (…)` (and an `OR TRUE` after it switch
    /// off the window's conditions); a `;` would end the statement. Read
    /// with the dialect's tokens: `$$($$ = 'x') OR (TRUE) OR ($$)$$ = ''`
    /// is balanced only to a scan that does not know `$$` strings.
    private static func expressionProblem(_ expression: String, _ lexicon: SQLLexicon) -> String? {
        switch SQLToken.enclosureProblem(expression, lexicon) {
        case .unbalancedParentheses?:
            return "unbalanced parentheses: a filter is one expression"
        case let problem?:
            return problem.description
        case nil:
            // Under each reading of PostgreSQL's strings.
            let semicolon = SQLToken.readings(lexicon).contains { backslashEscapes in
                SQLToken.scan(expression, lexicon, backslashEscapes: backslashEscapes).tokens.contains { $0.isSymbol(";") }
            }
            return semicolon ? "a filter is one expression, without ;" : nil
        }
    }

    // MARK: - SQL

    func selectSQL(
        extra: [String] = [], indexedBy index: String? = nil,
        where condition: SQLFragment?, orderBy: String?, limit: Bool) -> String
    {
        selectSQL(
            columns: columnExpressions + extra, indexedBy: index, where: [condition].compactMap { $0 },
            orderBy: orderBy, limit: limit)
    }

    func selectSQL(
        columns: [String], indexedBy index: String? = nil,
        where condition: SQLFragment?, orderBy: String? = nil, limit: Bool = false) -> String
    {
        selectSQL(
            columns: columns, indexedBy: index, where: [condition].compactMap { $0 }, orderBy: orderBy, limit: limit)
    }

    /// Every statement built from parts is built here. Each condition
    /// stands in its own parentheses on lines of its own (a `--` comment
    /// ends with its line), so that `a OR b` after the filter `f` reads
    /// `(f) AND (a OR b)`. The dialect writes the placeholders (`?`, or
    /// `$1…$n` numbered in argument order); the filter's and the query's
    /// text stay as given.
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

    private func whereCondition(_ conditions: [SQLFragment], numbering number: inout Int) -> String? {
        let filters = querySQL == nil ? [filter].compactMap { $0 } : []
        var all = filters
        for condition in conditions {
            all.append(condition.sql(dialect, numbering: &number))
        }
        guard !all.isEmpty else { return nil }
        return all.map { "(\n\($0)\n)" }.joined(separator: " AND ")
    }

    func expression(ofColumn name: String) -> String? {
        columns.firstIndex { $0.name == name }
            .map { columnExpressions[$0] }
    }

    func orderExpression(ofColumn name: String) -> String? {
        columns.firstIndex { $0.name == name }
            .map { (orderExpressions ?? columnExpressions)[$0] }
    }

    /// All columns when there is no identity.
    var identityExpressions: [String] {
        switch identity {
        case let .rowid(name): return [name]
        case let .primaryKey(names) where isQuery:
            // Its own columns, renamed by position (`keyed(byColumns:named:)`).
            return names.compactMap(orderExpression(ofColumn:))
        case let .primaryKey(names): return names.map { dialect.quoted($0) }
        case .none: return (orderExpressions ?? columnExpressions) + [tieBreakExpression].compactMap { $0 }
        }
    }
}

extension StringProtocol {
    func trimmingTrailingSemicolons() -> SubSequence {
        var text = self[...]
        while let last = text.last, last == ";" || last.isWhitespace {
            text = text.dropLast()
        }
        return text
    }
}

extension String {
    /// Its own double quotes doubled, which GRDB's
    /// `quotedDatabaseIdentifier` does not, and a foreign name may hold any.
    var quotedSQLIdentifier: String {
        "\"" + replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// As SQL folds names, and as SQLite's `lower()`.
    var lowercasedASCII: String {
        String(String.UnicodeScalarView(unicodeScalars.map { scalar in
            ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32) ?? scalar : scalar
        }))
    }
}
