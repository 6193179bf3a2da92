// MARK: - Charts on PostgreSQL

extension ChartSpelling {
    /// Numbers as `double precision`, whatever their type, so that the
    /// edges of a bin compare with any of them. An index counts the bins
    /// of an integer or float column only: a `numeric` one compares with a
    /// `double precision` edge through a cast, which no index serves. Times
    /// as `timestamp`; a number of Unix seconds at UTC; a time of day on
    /// 2000-01-01, as SQLite reads one.
    static let postgres = ChartSpelling(
        isNumber: { "\($0) IS NOT NULL" },
        number: { "CAST(\($0) AS double precision)" },
        integerPart: { "CAST(floor(\($0)) AS bigint)" },
        time: postgresTime,
        seconds: { lo, hi in "extract(epoch FROM (\(hi) - \(lo)))" },
        bucket: { x, kind, unit in "date_trunc(\(unit), \(ChartSpelling.postgresTime(x, kind)))" },
        nextBucket: { t, unit in "(\(t) + CAST('1 ' || \(unit) AS interval))" },
        bucketCounts: nil,
        countsIndexRanges: { type in
            ["smallint", "integer", "bigint", "real", "double precision", "int2", "int4", "int8", "float4", "float8"]
                .contains(type.lowercased())
        },
        groupsValuesFirst: false)

    private static func postgresTime(_ x: String, _ kind: ChartTime) -> String {
        switch kind {
        case .instant: "CAST(\(x) AS timestamp)"
        case .unixSeconds: "(to_timestamp(\(x)) AT TIME ZONE 'UTC')"
        case .timeOfDay: "(DATE '2000-01-01' + CAST(\(x) AS time))"
        }
    }
}
