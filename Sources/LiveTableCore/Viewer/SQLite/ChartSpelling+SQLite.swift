// MARK: - Charts on SQLite

extension ChartSpelling {
    /// Numbers sort before any text or blob, so `x < ''` keeps them and
    /// lets an index on the column find the extremes. A time is ISO 8601
    /// text, or a number of Unix seconds, whatever the column declares:
    /// `datetime` makes both one text that sorts as time does (a time of
    /// day, `13:45`, is on 2000-01-01); `strftime` reads one straight into
    /// its bucket.
    static let sqlite = ChartSpelling(
        isNumber: { "\($0) < ''" },
        number: { $0 },
        integerPart: { "CAST(\($0) AS INTEGER)" },
        time: { x, _ in "CASE WHEN typeof(\(x)) IN ('integer', 'real') THEN datetime(\(x), 'unixepoch') ELSE datetime(\(x)) END" },
        seconds: { lo, hi in "(julianday(\(hi)) - julianday(\(lo))) * 86400" },
        bucket: { x, _, unit in
            let format = "CASE \(unit) WHEN 'minute' THEN '%Y-%m-%d %H:%M:00' WHEN 'hour' THEN '%Y-%m-%d %H:00:00' "
                + "WHEN 'day' THEN '%Y-%m-%d 00:00:00' ELSE '%Y-%m-01 00:00:00' END"
            return "CASE WHEN typeof(\(x)) IN ('integer', 'real') THEN strftime(\(format), \(x), 'unixepoch') "
                + "ELSE strftime(\(format), \(x)) END"
        },
        nextBucket: { t, unit in "datetime(\(t), '+1 ' || \(unit))" },
        bucketCounts: { rows in
            """
            SELECT "key" AS "from", "value" AS "count" FROM json_each((
              SELECT \(TimeBucketCounts.name)("value", "unit") FROM (
            \(rows)
            ) AS "r", "range"))
            """
        },
        countsIndexRanges: { _ in true },
        groupsValuesFirst: true)
}
