import GRDB

// MARK: - Sheets written by the viewer

/// A sheet the viewer writes over another one: a query on what that sheet
/// runs (its filter, not its order), opened and kept live as any query,
/// with rows told apart by `key`, so that the selection stays on its row
/// (a group) while the other values change.
package struct DerivedSheet: Hashable, Sendable {
    package enum Kind: Hashable, Sendable {
        /// `#`: each distinct value of the column, NULL included, with its
        /// count, its share of the rows and a bar, the most frequent first.
        case frequency(column: String)
        /// `I`: a row per column of the sheet below, with its figures; until
        /// they are computed (`figures` false), its names and types only.
        case describe(figures: Bool)
        /// `C`: one row per column of the table (`ColumnsSheet.swift`).
        case columns(table: String)
        /// `.`: a histogram of the column, or its rows per time bucket
        /// (`ChartSheet.swift`), drawn as a chart.
        case chart(column: String, time: Bool)
    }

    package var kind: Kind
    /// The sheet it was opened over, and the filter that sheet had.
    package var base: ViewerTarget
    package var baseFilter: String?
    /// In the dialect of the database it was written for; empty for
    /// `.columns`, which each database writes from its catalog as it opens.
    package var sql: String
    /// The result columns that tell its rows apart.
    package var key: [String]
    /// For the title: `status: frequency`.
    package var name: String
    /// A describe sheet's: each column's frequency sheet, for `#` on its row.
    package var frequencies: [DerivedSheet] = []
    /// A describe sheet's without figures: the SQL of the one with them.
    package var figuresSQL: String?
    /// A frequency sheet's: its column is grouped by its text (PostgreSQL's
    /// `json`, which has no equality), and its groups are filtered so.
    package var groupsByText = false
    /// A time chart's: how its column holds its times.
    package var chartTime = ChartTime.instant

    /// The bar of the most frequent value, in characters.
    static let barWidth = 20

    /// The frequency table of `column` over `viewed`; nil when it has no
    /// such column.
    package static func frequency(of column: String, in viewed: ViewedSource) -> DerivedSheet? {
        let source = viewed.source
        guard let expression = source.orderExpression(ofColumn: column) else { return nil }
        let rows = source.selectSQL(columns: [expression + " AS \"value\""], where: nil)
        let bar = String(repeating: "█", count: barWidth)
        // One statement for both dialects: `round` of a numeric or a real,
        // `substr` counts characters. The query may end with a comment: the
        // parentheses close on lines of their own.
        let sql = """
            SELECT "value" AS \(source.dialect.quoted(column)), "count",
              round(100.0 * "count" / sum("count") OVER (), 1) AS "%",
              substr('\(bar)', 1, CAST(round(\(barWidth).0 * "count" / max("count") OVER ()) AS INTEGER)) AS "bar"
            FROM (SELECT "value", count(*) AS "count" FROM (
            \(rows)
            ) AS "rows" GROUP BY "value") AS "groups"
            ORDER BY 2 DESC, 1
            """
        var sheet = DerivedSheet(
            kind: .frequency(column: column), base: viewed.target, baseFilter: source.filter, sql: sql,
            key: [column], name: "\(column): frequency")
        sheet.groupsByText = expression.hasSuffix("::text")
        return sheet
    }

    /// The filter that keeps the rows of the group `value` on the base
    /// sheet, after the filter it had (on lines of its own: it may end with
    /// a `--` comment).
    func groupFilter(_ value: DatabaseValue, dialect: SQLDialect) -> String? {
        guard case let .frequency(column) = kind else { return nil }
        let operand = dialect.quoted(column) + (groupsByText ? "::text" : "")
        let condition = value.isNull ? "\(operand) IS NULL" : "\(operand) = \(dialect.literal(value))"
        guard let baseFilter else { return condition }
        return "(\n\(baseFilter)\n)\nAND \(condition)"
    }
}

extension RowSource {
    /// A sheet's query, keyed as the sheet says.
    func keyed(by sheet: DerivedSheet) -> RowSource {
        keyed(byColumns: sheet.key, named: sheet.name)
    }
}
