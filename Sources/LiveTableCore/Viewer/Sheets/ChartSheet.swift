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
    /// `x` as a point in time, or NULL where it is none; comparable with
    /// a bucket's edges.
    var time: @Sendable (_ x: String, _ kind: ChartTime) -> String
    /// The seconds from `lo` to `hi`, two of `time`'s values.
    var seconds: @Sendable (_ lo: String, _ hi: String) -> String
    /// The start of the bucket of `unit` (`'minute'`…`'month'`) holding the
    /// time of `x`, a value of the column: one reading of its text.
    var bucket: @Sendable (_ x: String, _ kind: ChartTime, _ unit: String) -> String
    /// The start of the next bucket of `unit` after the one starting at `t`.
    var nextBucket: @Sendable (_ t: String, _ unit: String) -> String
    /// A statement of the rows per bucket (`"from"`, `"count"`) of `rows`'
    /// `"value"`, beside `"range"`'s `"unit"`, where the database counts
    /// them quicker than a `GROUP BY` of `bucket`; nil where it does not.
    var bucketCounts: (@Sendable (_ rows: String) -> String)?
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

/// How a time column holds its times.
package enum ChartTime: Hashable, Sendable {
    /// Dates and times (on SQLite, ISO 8601 text or numbers of Unix seconds).
    case instant
    /// Numbers of Unix seconds, by the column's type and name.
    case unixSeconds
    /// A time of day: on 2000-01-01, as SQLite reads `13:45`.
    case timeOfDay
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
        let indexed = described.isIndexed && !source.isQuery
        let rows = source.selectSQL(columns: [expression + " AS \"value\""], where: nil)
        let sql: String
        let timeKind = isTimeOfDay(described) ? ChartTime.timeOfDay : isNumeric(described) ? .unixSeconds : .instant
        if time {
            sql = timeSeriesSQL(rows: rows, kind: timeKind, indexed: indexed, spelling)
        } else {
            sql = histogramSQL(
                rows: rows, integers: described.declaredType.lowercased().contains("int"), indexed: indexed,
                ranges: indexed && spelling.countsIndexRanges(described.declaredType), spelling)
        }
        var sheet = DerivedSheet(
            kind: .chart(column: column, time: time), base: viewed.target, baseFilter: source.filter, sql: sql,
            key: [time ? "from" : "bin"], name: "\(column): \(time ? "rows per time" : "histogram")")
        sheet.chartTime = timeKind
        return sheet
    }

    /// A date or time type, a text column (SQLite's dates are ISO 8601
    /// text), or a name that says so (`created_at`, `updated`, `time`), on
    /// numbers of Unix seconds or on a column of any type.
    static func isTime(_ column: SourceColumn) -> Bool {
        let type = column.declaredType.lowercased()
        if type.contains("date") || type.contains("timestamp") || isTimeOfDay(column) { return true }
        if ["char", "clob", "text"].contains(where: type.contains) { return true }
        let words = column.name.lowercased().split { !$0.isLetter && !$0.isNumber }
        let timeWords: Set<Substring> = ["at", "ts", "time", "timestamp", "date", "datetime", "epoch", "created", "updated"]
        return words.last.map(timeWords.contains) ?? false
    }

    /// A time of day: SQLite's `TIME`, PostgreSQL's `time` and `timetz`.
    static func isTimeOfDay(_ column: SourceColumn) -> Bool {
        let type = column.declaredType.lowercased()
        return type.hasPrefix("time") && !type.hasPrefix("timestamp")
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
    /// hundred; empty buckets too, from the first bucket with rows to the
    /// last.
    ///
    /// Each value's time is read once, for its bucket; where the database
    /// counts buckets quicker than a `GROUP BY` (`bucketCounts`: SQLite,
    /// which would sort every row), it counts them so. The span that
    /// chooses the unit comes from the least and the greatest value as
    /// stored (on an indexed column, two index searches; elsewhere one
    /// scan that reads no time): ISO 8601 text sorts as its time does. A
    /// column whose texts do not (mixed formats) may get a coarser or finer
    /// unit, never a wrong count. Only where an extreme is no time at all
    /// (`n/a`) are the times of every row read for it.
    private static func timeSeriesSQL(rows: String, kind: ChartTime, indexed: Bool, _ spelling: ChartSpelling) -> String {
        let span = spelling.seconds("\"lo\"", "\"hi\"")
        let time = { (x: String) in spelling.time(x, kind) }
        let extremes = indexed
            ? "SELECT (SELECT min(\"value\") FROM (\n\(rows)\n) AS \"r\") AS \"least\", "
                + "(SELECT max(\"value\") FROM (\n\(rows)\n) AS \"r\") AS \"greatest\""
            : "SELECT min(\"value\") AS \"least\", max(\"value\") AS \"greatest\" FROM (\n\(rows)\n) AS \"r\""
        let read = { (extreme: String, aggregate: String) in
            "coalesce(\(time("\"\(extreme)\""))," +
                " (SELECT \(aggregate)(\(time("\"value\""))) FROM (\n\(rows)\n) AS \"r\"))"
        }
        let next = spelling.nextBucket("\"from\"", "\"unit\"")
        let counts = spelling.bucketCounts?(rows) ?? """
            SELECT \(spelling.bucket("\"value\"", kind, "\"unit\"")) AS "from", count(*) AS "count"
            FROM (
            \(rows)
            ) AS "r", "range" GROUP BY 1
            """
        return """
            WITH RECURSIVE "extremes" AS (\(extremes)
            ), "range" AS (
              SELECT "lo", "hi", CASE WHEN \(span) <= 7200 THEN 'minute' WHEN \(span) <= 345600 THEN 'hour'
                WHEN \(span) <= 8640000 THEN 'day' ELSE 'month' END AS "unit"
              FROM (SELECT \(read("least", "min")) AS "lo", \(read("greatest", "max")) AS "hi" FROM "extremes") AS "times"
            ), "counts" AS (
            \(counts)
            ), "ends" AS (SELECT min("from") AS "first", max("from") AS "last" FROM "counts"),
            "bins"("bin", "from") AS (
              SELECT 0, "first" FROM "ends" WHERE "first" IS NOT NULL
              UNION ALL SELECT "bin" + 1, \(next) FROM "bins", "range", "ends" WHERE \(next) <= "last"
            )
            SELECT "bin", "from", \(next) AS "to",
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
        let value = time ? ChartSpelling.of(dialect).time(quoted, chartTime) : quoted
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
