import GRDB

// MARK: - Describe

extension DerivedSheet {
    /// The figures of a describe sheet, after its position, name and type.
    static let describeFigures = ["values", "nulls", "distinct", "min", "max", "mean", "most frequent"]

    /// `I` over `viewed`: a row per column, in the sheet's order, keyed by
    /// its name, its figures `…`: it opens at once. The sheet with figures,
    /// which scans every row (`figuresSQL`), then takes its place.
    package static func describe(of viewed: ViewedSource) -> DerivedSheet {
        let source = viewed.source
        return DerivedSheet(
            kind: .describe(figures: false), base: viewed.target, baseFilter: source.filter,
            sql: describeSQL(source, figures: false), key: [columnNameColumn],
            name: "\(source.isQuery ? "query" : RowDetail.name(source.name)): describe",
            frequencies: source.columns.compactMap { frequency(of: $0.name, in: viewed) },
            figuresSQL: describeSQL(source, figures: true))
    }

    private static func describeSQL(_ source: RowSource, figures: Bool) -> String {
        let columns = source.columns
        let dialect = source.dialect
        var rows: [String] = []
        for (index, column) in columns.enumerated() {
            let name = dialect.literal(column.name.databaseValue)
            let type = dialect.literal(column.declaredType.databaseValue)
            let start = "SELECT \(index + 1) AS \"#\", \(name) AS \"column\", \(type) AS \"type\", "
            guard figures else {
                rows.append(start + describeFigures.map { "'…' AS \(dialect.quoted($0))" }.joined(separator: ", "))
                continue
            }
            rows.append(start + figureTerms(index, column, source).joined(separator: ", ") + " FROM \"described figures\"")
        }
        let sql = rows.joined(separator: "\nUNION ALL ") + "\nORDER BY 1"
        guard figures else { return sql }
        return "WITH \"described rows\"(\(columns.indices.map { "c\($0)" }.joined(separator: ", "))) AS (\n"
            + source.selectSQL(columns: source.columnExpressions, where: nil)
            + "\n), \"described figures\" AS (SELECT count(*) AS \"n\", "
            + columns.indices.map { statTerms($0, columns[$0], source) }.joined(separator: ", ")
            + " FROM \"described rows\")\n" + sql
    }

    /// One scan for the counts, extremes and means of every column: `v`
    /// (values), `k` (distinct), `lo`, `hi`, `m` (mean) and the column's
    /// number.
    private static func statTerms(_ index: Int, _ column: SourceColumn, _ source: RowSource) -> String {
        let value = "c\(index)"
        let distinct = comparable(index, column, source)
        let (low, high) = extremes(index, column, source)
        let terms = [
            "count(\(value)) AS \"v\(index)\"", "count(DISTINCT \(distinct)) AS \"k\(index)\"",
            "\(low) AS \"lo\(index)\"", "\(high) AS \"hi\(index)\"", "\(mean(index, column, source)) AS \"m\(index)\"",
        ]
        return terms.joined(separator: ", ")
    }

    /// The row's figures, from `stats`; the most frequent value reads the
    /// rows again, grouped.
    private static func figureTerms(_ index: Int, _ column: SourceColumn, _ source: RowSource) -> [String] {
        let quoted = source.dialect.quoted
        let grouped = comparable(index, column, source)
        let mode = "(SELECT CAST(\(grouped) AS TEXT) FROM \"described rows\" WHERE c\(index) IS NOT NULL "
            + "GROUP BY \(grouped) ORDER BY count(*) DESC, 1 LIMIT 1)"
        return [
            "\"v\(index)\" AS \(quoted("values"))", "\"n\" - \"v\(index)\" AS \(quoted("nulls"))",
            "\"k\(index)\" AS \(quoted("distinct"))", "\"lo\(index)\" AS \(quoted("min"))",
            "\"hi\(index)\" AS \(quoted("max"))", "\"m\(index)\" AS \(quoted("mean"))", "\(mode) AS \(quoted("most frequent"))",
        ]
    }

    /// What tells values apart: the column, or its text where PostgreSQL
    /// has no equality for its type (`json`).
    private static func comparable(_ index: Int, _ column: SourceColumn, _ source: RowSource) -> String {
        source.orderExpression(ofColumn: column.name)?.hasSuffix("::text") == true ? "CAST(c\(index) AS TEXT)" : "c\(index)"
    }

    /// As text, so that every row has the same types. SQLite orders any
    /// value; PostgreSQL orders a type it knows has an order (a column of a
    /// query, whose type the sheet does not know, by its text).
    private static func extremes(_ index: Int, _ column: SourceColumn, _ source: RowSource) -> (String, String) {
        let value = "c\(index)"
        if source.dialect == .sqlite || postgresOrdered(column, source) {
            return ("CAST(min(\(value)) AS TEXT)", "CAST(max(\(value)) AS TEXT)")
        }
        return ("min(CAST(\(value) AS TEXT))", "max(CAST(\(value) AS TEXT))")
    }

    /// The types PostgreSQL's `min` and `max` take (`uuid`, `bit` or a
    /// composite have none): the others are compared as text.
    private static func postgresOrdered(_ column: SourceColumn, _ source: RowSource) -> Bool {
        let type = column.declaredType.lowercased()
        let ordered = ["smallint", "integer", "bigint", "real", "double precision", "numeric", "money", "text",
                       "character", "character varying", "varchar", "char", "citext", "date", "time", "timestamp",
                       "interval", "inet", "oid"]
        return ordered.contains { type == $0 || type.hasPrefix($0 + "(") || type.hasPrefix($0 + " ") }
            && source.orderExpression(ofColumn: column.name)?.hasSuffix("::text") != true
    }

    /// Of numbers only: SQLite's by their storage class, PostgreSQL's by
    /// their declared type.
    private static func mean(_ index: Int, _ column: SourceColumn, _ source: RowSource) -> String {
        let value = "c\(index)"
        guard source.dialect != .sqlite else {
            return "avg(CASE WHEN typeof(\(value)) IN ('integer', 'real') THEN \(value) END)"
        }
        let type = column.declaredType.lowercased()
        let numeric = ["smallint", "integer", "bigint", "real", "double precision"].contains(type) || type.hasPrefix("numeric")
        return numeric ? "round(avg(\(value))::numeric, 4)" : "NULL::numeric"
    }
}
