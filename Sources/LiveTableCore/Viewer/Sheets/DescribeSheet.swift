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

    /// The columns whose figures one scan computes: a statement's target
    /// list has a limit (PostgreSQL's 1,664 entries, SQLite's 2,000
    /// columns). A batch reads only its own columns, and its rows come from
    /// one reference to its figures: SQLite copies a common table
    /// expression at each reference, which made a statement per row of
    /// 1,000 columns take minutes to compile.
    static let describeBatch = 100

    private static func describeSQL(_ source: RowSource, figures: Bool) -> String {
        let dialect = source.dialect
        let labels = "\"k\".column1 AS \"#\", \"k\".column2 AS \"column\", \"k\".column3 AS \"type\", "
        guard figures else {
            let dots = describeFigures.map { "'…' AS \(dialect.quoted($0))" }.joined(separator: ", ")
            return "SELECT " + labels + dots + " FROM " + names(source.columns.indices, source) + "\nORDER BY 1"
        }
        var scans: [String] = []
        var selects: [String] = []
        for first in stride(from: 0, to: source.columns.count, by: describeBatch) {
            let batch = first..<min(first + describeBatch, source.columns.count)
            let rows = "\"described rows \(first / describeBatch)\""
            let stats = "\"described figures \(first / describeBatch)\""
            scans.append("\(rows)(\(batch.map { "c\($0)" }.joined(separator: ", "))) AS (\n"
                + source.selectSQL(columns: batch.map { source.columnExpressions[$0] }, where: nil) + "\n)")
            scans.append("\(stats) AS (SELECT count(*) AS \"n\", "
                + batch.map { statTerms($0, source.columns[$0], source) }.joined(separator: ", ") + " FROM \(rows))")
            // Each figure picked from the batch's one row by the column's number.
            let terms = batch.map { figureTerms($0, source.columns[$0], source, rows: rows) }
            let picks = describeFigures.indices.map { figure in
                "CASE \"k\".column1 " + zip(batch, terms).map { "WHEN \($0 + 1) THEN \($1[figure])" }.joined(separator: " ")
                    + " END AS " + dialect.quoted(describeFigures[figure])
            }
            selects.append("SELECT " + labels + picks.joined(separator: ", ") + " FROM \(stats), " + names(batch, source))
        }
        return "WITH " + scans.joined(separator: ",\n") + "\n" + selects.joined(separator: "\nUNION ALL ") + "\nORDER BY 1"
    }

    /// `(VALUES (1, 'id', 'INTEGER'), …) AS "k"`: each column's number,
    /// name and declared type.
    private static func names(_ indices: Range<Int>, _ source: RowSource) -> String {
        let literal = source.dialect.literal
        return "(VALUES " + indices.map { index in
            let column = source.columns[index]
            return "(\(index + 1), \(literal(column.name.databaseValue)), \(literal(column.declaredType.databaseValue)))"
        }.joined(separator: ", ") + ") AS \"k\""
    }

    /// One scan (of a batch) for the counts, extremes and means of each
    /// column: `v` (values), `k` (distinct), `lo`, `hi`, `m` (mean) and the
    /// column's number.
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

    /// The row's figures, from its batch's `stats`; the most frequent value
    /// reads the batch's `rows` again, grouped.
    private static func figureTerms(_ index: Int, _ column: SourceColumn, _ source: RowSource, rows: String) -> [String] {
        let grouped = comparable(index, column, source)
        let mode = "(SELECT CAST(\(grouped) AS TEXT) FROM \(rows) WHERE c\(index) IS NOT NULL "
            + "GROUP BY \(grouped) ORDER BY count(*) DESC, 1 LIMIT 1)"
        return ["\"v\(index)\"", "\"n\" - \"v\(index)\"", "\"k\(index)\"", "\"lo\(index)\"", "\"hi\(index)\"", "\"m\(index)\"", mode]
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
