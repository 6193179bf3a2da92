import GRDB

// MARK: - The chart sheet

/// How each database spells what a chart needs; one per database, in its
/// folder (`ChartSpelling+SQLite.swift`, `ChartSpelling+Postgres.swift`).
/// `x` stands for a value of the column.
struct ChartSpelling: Sendable {
    /// A condition that keeps the numbers (SQLite stores any value anywhere).
    var isNumber: @Sendable (_ x: String) -> String
    /// `x` as a number that compares with the edges of a bin.
    var number: @Sendable (_ x: String) -> String
    /// The whole part of a number that is not negative, as an integer.
    var integerPart: @Sendable (_ x: String) -> String
    /// `x` as a point in time (`unixSeconds`: the column holds numbers of
    /// seconds), or NULL where it is none; comparable with a bucket's edges.
    var time: @Sendable (_ x: String, _ unixSeconds: Bool) -> String
    /// The seconds from `lo` to `hi`, two of `time`'s values.
    var seconds: @Sendable (_ lo: String, _ hi: String) -> String
    /// The start of the bucket of `unit` (`'minute'`…`'month'`) holding `t`.
    var bucket: @Sendable (_ t: String, _ unit: String) -> String
    /// The start of the next bucket of `unit` after the one starting at `t`.
    var nextBucket: @Sendable (_ t: String, _ unit: String) -> String
    /// Counting the rows of a range of an index is quicker than grouping
    /// them: the bins of an indexed column of this declared type are
    /// counted so, where the edges compare with it through the index.
    var countsIndexRanges: @Sendable (_ declaredType: String) -> Bool
    /// Grouping the rows by value, then the groups by bin, is quicker than
    /// a second scan: the extremes and the bins come from the groups.
    var groupsValuesFirst: Bool

    static func of(_ dialect: SQLDialect) -> ChartSpelling {
        dialect == .sqlite ? .sqlite : .postgres
    }
}

extension DerivedSheet {
    /// The bins of a histogram; fewer when every value is the same (one).
    static let chartBins = 20
    /// The result columns of a chart sheet, one row per bin or bucket:
    /// its number from 0, its edges, its rows, the most rows of any bin,
    /// and the bucket's unit (`number` for a histogram).
    static let chartColumns = ["bin", "from", "to", "count", "most", "unit"]

    /// `.` on `column` of `viewed`: a histogram of its numbers, or the rows
    /// per time bucket of a date or time column (`isTime(_:)`). One
    /// statement, its extremes in the same read as its counts, so that it
    /// stays live as any query. Nil when the sheet has no such column.
    package static func chart(of column: String, in viewed: ViewedSource) -> DerivedSheet? {
        let source = viewed.source
        guard let expression = source.orderExpression(ofColumn: column),
            let described = source.columns.first(where: { $0.name == column })
        else { return nil }
        let spelling = ChartSpelling.of(source.dialect)
        let time = isTime(described)
        let sql: String
        if time {
            let value = spelling.time(expression, isNumeric(described))
            sql = timeSeriesSQL(rows: source.selectSQL(columns: [value + " AS \"value\""], where: nil), spelling)
        } else {
            let rows = source.selectSQL(columns: [expression + " AS \"value\""], where: nil)
            let indexed = described.isIndexed && !source.isQuery
            sql = histogramSQL(
                rows: rows, integers: described.declaredType.lowercased().contains("int"), indexed: indexed,
                ranges: indexed && spelling.countsIndexRanges(described.declaredType), spelling)
        }
        return DerivedSheet(
            kind: .chart(column: column, time: time), base: viewed.target, baseFilter: source.filter, sql: sql,
            key: [time ? "from" : "bin"], name: "\(column): \(time ? "rows per time" : "histogram")",
            chartUnixSeconds: time && isNumeric(described))
    }

    /// A date or time type, a text column (SQLite's dates are ISO 8601
    /// text), or a name that says so (`created_at`, `updated`, `time`), on
    /// numbers of Unix seconds or on a column of any type.
    static func isTime(_ column: SourceColumn) -> Bool {
        let type = column.declaredType.lowercased()
        if type.contains("date") || type.contains("timestamp") { return true }
        if ["char", "clob", "text"].contains(where: type.contains) { return true }
        let words = column.name.lowercased().split { !$0.isLetter && !$0.isNumber }
        let timeWords: Set<Substring> = ["at", "ts", "time", "timestamp", "date", "datetime", "epoch", "created", "updated"]
        return words.last.map(timeWords.contains) ?? false
    }

    /// Numbers by its declared type, or of no declared type (a query's).
    static func isNumeric(_ column: SourceColumn) -> Bool {
        let type = column.declaredType.lowercased()
        let numeric = ["int", "real", "floa", "doub", "numeric", "decimal"]
        return type.isEmpty || numeric.contains(where: type.contains)
    }

    /// The numbers between the least and the greatest, in about
    /// `chartBins` bins of equal width, the last one holding the greatest;
    /// empty bins too. Integers (`integers`: by the column's declared
    /// type) in bins of a whole width, from the least: 1 to 5 in five.
    ///
    /// On an indexed column, each extreme is one index search, and where
    /// the database counts a range of an index quickly, each bin is such a
    /// count: SQLite sorts every row for a `GROUP BY` of a computed bin,
    /// five times slower. Elsewhere one scan finds both extremes, and one
    /// `GROUP BY` counts the bins. On SQLite, an integer column's one scan
    /// groups the rows by value first (`groupsValuesFirst`), and takes
    /// both from the groups: integers repeat (a quantity, a customer), and
    /// a second scan costs more than their groups. Reals rarely repeat:
    /// their groups would cost twice a scan.
    /// `ranges`: its bins are counted as ranges of its index.
    private static func histogramSQL(
        rows: String, integers: Bool, indexed: Bool, ranges: Bool, _ spelling: ChartSpelling) -> String
    {
        let number = spelling.number("\"value\"")
        let isNumber = spelling.isNumber("\"value\"")
        let extreme = { (aggregate: String) in "1.0 * \(spelling.number("\(aggregate)(\"value\")"))" }
        let grouped = !indexed && integers && spelling.groupsValuesFirst
        let values = grouped
            ? "\"values\" AS (SELECT \"value\", count(*) AS \"c\" FROM (\n\(rows)\n) AS \"r\" WHERE \(isNumber) GROUP BY 1),\n"
            : ""
        let scanned = grouped ? "\"values\"" : "(\n\(rows)\n) AS \"r\""
        let kept = grouped ? "\"c\" > 0" : isNumber
        let extremes = indexed
            ? "SELECT (SELECT \(extreme("min")) FROM (\n\(rows)\n) AS \"r\" WHERE \(isNumber)) AS \"lo\", "
                + "(SELECT \(extreme("max")) FROM (\n\(rows)\n) AS \"r\" WHERE \(isNumber)) AS \"hi\""
            : "SELECT \(extreme("min")) AS \"lo\", \(extreme("max")) AS \"hi\" FROM \(scanned) WHERE \(kept)"
        let width = integers
            ? spelling.integerPart("(\"hi\" - \"lo\" + \(chartBins)) / \(chartBins)")
            : "CASE WHEN \"hi\" > \"lo\" THEN (\"hi\" - \"lo\") / \(chartBins) ELSE 1 END"
        let count = integers
            ? spelling.integerPart("(\"hi\" - \"lo\") / \"w\"") + " + 1"
            : "CASE WHEN \"hi\" > \"lo\" THEN \(chartBins) ELSE 1 END"
        let lastTo = integers ? "\"lo\" + \"n\" * \"w\"" : "\"hi\""
        let counted: String
        if ranges {
            // A whole edge as an integer: an integer column's index then
            // serves the comparison.
            let edge = { (name: String) in integers ? spelling.integerPart("\"edges\".\"\(name)\"") : "\"edges\".\"\(name)\"" }
            let rangeCount = { (upper: String) in
                "(SELECT count(*) FROM (\n\(rows)\n) AS \"r\" WHERE \"value\" >= \(edge("from")) AND \(upper))"
            }
            counted = """
                SELECT "bin", "from", "to", CASE WHEN "bin" = "n" - 1 THEN \(rangeCount("\"value\" <= \(edge("hi"))"))
                  ELSE \(rangeCount("\"value\" < \(edge("to"))")) END AS "count"
                FROM "edges"
                """
        } else {
            counted = """
                SELECT "bin", "from", "to", coalesce("count", 0) AS "count" FROM "edges" LEFT JOIN (
                  SELECT CASE WHEN \(number) >= "hi" THEN "n" - 1
                    ELSE \(spelling.integerPart("(\(number) - \"lo\") / \"w\"")) END AS "bin",
                    \(grouped ? "sum(\"c\")" : "count(*)") AS "count"
                  FROM \(scanned), "range" WHERE \(kept) GROUP BY 1
                ) AS "counts" USING ("bin")
                """
        }
        return """
            WITH RECURSIVE \(values)"extremes" AS (\(extremes)),
            "width" AS (SELECT "lo", "hi", \(width) AS "w" FROM "extremes"),
            "range" AS (SELECT "lo", "hi", "w", \(count) AS "n" FROM "width"),
            "bins"("bin") AS (
              SELECT 0 FROM "range" WHERE "lo" IS NOT NULL
              UNION ALL SELECT "bin" + 1 FROM "bins", "range" WHERE "bin" + 1 < "n"
            ), "edges" AS (
              SELECT "bin", "n", "hi", "lo" + "w" * "bin" AS "from",
                CASE WHEN "bin" = "n" - 1 THEN \(lastTo) ELSE "lo" + "w" * ("bin" + 1) END AS "to"
              FROM "bins" CROSS JOIN "range"
            )
            SELECT "bin", "from", "to", "count", max("count") OVER () AS "most", 'number' AS "unit" FROM (
            \(counted)
            ) AS "counted"
            ORDER BY 1
            """
    }

    /// The rows per minute, hour, day or month: the finest unit that
    /// keeps the buckets between the first and the last time to about a
    /// hundred; empty buckets too.
    private static func timeSeriesSQL(rows: String, _ spelling: ChartSpelling) -> String {
        let span = spelling.seconds("\"lo\"", "\"hi\"")
        return """
            WITH RECURSIVE "range" AS (
              SELECT "lo", "hi", CASE WHEN \(span) <= 7200 THEN 'minute' WHEN \(span) <= 345600 THEN 'hour'
                WHEN \(span) <= 8640000 THEN 'day' ELSE 'month' END AS "unit"
              FROM (SELECT min("value") AS "lo", max("value") AS "hi" FROM (\n\(rows)\n) AS "r") AS "extremes"
            ), "counts" AS (
              SELECT \(spelling.bucket("\"value\"", "\"unit\"")) AS "from", count(*) AS "count"
              FROM (
            \(rows)
            ) AS "r", "range" WHERE "value" IS NOT NULL GROUP BY 1
            ), "bins"("bin", "from") AS (
              SELECT 0, \(spelling.bucket("\"lo\"", "\"unit\"")) FROM "range" WHERE "lo" IS NOT NULL
              UNION ALL SELECT "bin" + 1, \(spelling.nextBucket("\"from\"", "\"unit\"")) FROM "bins", "range"
              WHERE \(spelling.nextBucket("\"from\"", "\"unit\"")) <= "hi"
            )
            SELECT "bin", "from", \(spelling.nextBucket("\"from\"", "\"unit\"")) AS "to",
              coalesce("count", 0) AS "count", max(coalesce("count", 0)) OVER () AS "most", "unit"
            FROM "bins" CROSS JOIN "range" LEFT JOIN "counts" USING ("from")
            ORDER BY 1
            """
    }

    /// The filter that keeps the rows of a chart's bin (`from` and `to`,
    /// the last bin of a histogram holding its `to`) on the base sheet,
    /// after the filter it had.
    func binFilter(from: DatabaseValue, to: DatabaseValue, isLast: Bool, dialect: SQLDialect) -> String? {
        guard case let .chart(column, time) = kind else { return nil }
        let quoted = dialect.quoted(column)
        let value = time ? ChartSpelling.of(dialect).time(quoted, chartUnixSeconds) : quoted
        let edge = { (edge: DatabaseValue) in time ? dialect.literal(edge) : Self.numberLiteral(edge, dialect) }
        let upper = !time && isLast ? "<=" : "<"
        let condition = "\(value) >= \(edge(from)) AND \(value) \(upper) \(edge(to))"
        guard let baseFilter else { return condition }
        return "(\n\(baseFilter)\n)\nAND \(condition)"
    }

    /// A bin's edge as a number, whatever the column's type: a whole one
    /// without its `.0` (PostgreSQL's numbers come as their text).
    private static func numberLiteral(_ edge: DatabaseValue, _ dialect: SQLDialect) -> String {
        guard let number = ChartDrawing.number(edge), number.isFinite else { return dialect.literal(edge) }
        if number == number.rounded(), abs(number) < 1e15 { return String(Int(number)) }
        return "\(number)"
    }
}
