import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// The bins and buckets of `.` (issue 28 §3) against each database's own
/// `GROUP BY` of the same bins, the time unit chosen from the span, and the
/// bars as drawn.
final class ViewerChartBinsTests: XCTestCase {
    /// Reals, a text and a NULL (neither counted): twenty bins of equal
    /// width between the least and the greatest, the greatest in the last.
    func testHistogramOfRealsEqualsGroupByOfTheSameBins() throws {
        let (driver, cli) = try sqliteChart("""
            CREATE TABLE m(id integer PRIMARY KEY, x real);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
            INSERT INTO m SELECT i, ((i * 37) % 101) / 7.0 - 3 FROM n;
            INSERT INTO m VALUES (501, 'n/a'), (502, NULL);
            """, keys: "l.")
        let expected = try cli("""
            WITH r AS (SELECT min(x) AS lo, max(x) AS hi FROM m WHERE typeof(x) = 'real')
            SELECT CASE WHEN x >= hi THEN 19 ELSE CAST((x - lo) / ((hi - lo) / 20) AS INTEGER) END AS bin, count(*)
            FROM m, r WHERE typeof(x) = 'real' GROUP BY 1 ORDER BY 1;
            """)
        let bins = driver.state.table?.chartBin?.bins ?? []
        XCTAssertEqual(bins.count, 20)
        XCTAssertEqual(Self.counted(driver), expected)
        XCTAssertEqual(bins.map(\.count).reduce(0, +), 500)
        XCTAssertEqual(ChartDrawing.number(bins[0].from), -3)
        XCTAssertEqual(ChartDrawing.number(bins[19].to), 100.0 / 7 - 3)
        XCTAssertTrue(driver.lines[2].hasPrefix(" -3.00 – -2.29 │"), driver.lines[2])
    }

    /// An indexed column's bins are counted as ranges of its index: the
    /// same counts as `GROUP BY`, filtered too; integers in bins of 50.
    func testIndexedColumnsEqualGroupBy() throws {
        let (driver, cli) = try sqliteChart("""
            CREATE TABLE m(id integer PRIMARY KEY, x real, k integer);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
            INSERT INTO m SELECT i, (i * 7919 % 1000) / 13.0, i * 7919 % 1000 FROM n;
            INSERT INTO m VALUES (2001, 'n/a', 'n/a');
            CREATE INDEX m_x ON m(x); CREATE INDEX m_k ON m(k);
            """, keys: "l.")
        let reals = { (condition: String) in """
            WITH r AS (SELECT min(x) AS lo, max(x) AS hi FROM m WHERE typeof(x) = 'real' AND \(condition))
            SELECT CASE WHEN x >= hi THEN 19 ELSE CAST((x - lo) / ((hi - lo) / 20) AS INTEGER) END AS bin, count(*)
            FROM m, r WHERE typeof(x) = 'real' AND \(condition) GROUP BY 1 ORDER BY 1;
            """ }
        XCTAssertEqual(Self.counted(driver), try cli(reals("1")))
        try driver.type("ql.")
        XCTAssertEqual(Self.counted(driver), try cli("SELECT k / 50, count(*) FROM m WHERE typeof(k) = 'integer' GROUP BY 1 ORDER BY 1;"))
        try driver.type("qf")
        try driver.send(.key(.paste("id % 3 = 0")))
        try driver.send(.key(.enter))
        try driver.type("h.")
        XCTAssertEqual(Self.counted(driver), try cli(reals("id % 3 = 0")))
    }

    /// The same on PostgreSQL: a float and an integer column, indexed.
    func testPostgresIndexedColumnsEqualGroupBy() throws {
        let name = "viewerChartIndexed"
        let dataSource = try PostgresTestDatabase.open(name, sql: """
            CREATE TABLE m(id integer PRIMARY KEY, x double precision, k bigint);
            INSERT INTO m SELECT i, (i * 7919 % 1000) / 13.0, i * 7919 % 1000 FROM generate_series(1, 2000) AS i;
            CREATE INDEX m_x ON m(x); CREATE INDEX m_k ON m(k);
            """)
        let driver = try ViewerDriver(dataSource: dataSource, target: .table("m"), width: 80, height: 24) {
            _ = try PostgresTestDatabase.write(name, $0)
        }
        try driver.type("l.")
        XCTAssertEqual(Self.counted(driver), try PostgresTestDatabase.write(name, """
            WITH r AS (SELECT min(x) AS lo, max(x) AS hi FROM m)
            SELECT CASE WHEN x >= hi THEN 19 ELSE floor((x - lo) / ((hi - lo) / 20)) END AS bin, count(*)
            FROM m, r GROUP BY 1 ORDER BY 1;
            """) + "\n")
        try driver.type("ql.")
        XCTAssertEqual(Self.counted(driver), try PostgresTestDatabase.write(name, "SELECT k / 50, count(*) FROM m GROUP BY 1 ORDER BY 1;") + "\n")
        try driver.send(.key(.enter))
        XCTAssertEqual(driver.state.table?.viewed.source.filter, "\"k\" >= 0 AND \"k\" < 50")
        XCTAssertEqual(driver.state.table?.rowCount, 100)
    }

    /// One value: one bin. No value: the chart says so.
    func testOneValueIsOneBinAndNoValueSaysSo() throws {
        let (driver, _) = try sqliteChart("CREATE TABLE m(id integer PRIMARY KEY, x real); INSERT INTO m VALUES (1, 2.5), (2, 2.5);", keys: "l.")
        XCTAssertEqual(driver.state.table?.chartBin?.bins.map(\.count), [2])
        let (empty, _) = try sqliteChart("CREATE TABLE m(id integer PRIMARY KEY, x real); INSERT INTO m VALUES (1, NULL);", keys: "l.")
        XCTAssertEqual(empty.state.table?.chartBin?.bins.count, 0)
        XCTAssertTrue(empty.lines[12].contains("No numbers in x"), empty.lines.joined(separator: "\n"))
    }

    /// ISO 8601 text (with `T` and a zone too) and Unix seconds, in minutes,
    /// hours, days or months as the span asks, equal `strftime`'s groups.
    func testTimeBucketsFollowTheSpan() throws {
        let cases: [(seconds: Int, unit: String, format: String)] = [
            (60, "minute", "%Y-%m-%d %H:%M:00"), (1_800, "hour", "%Y-%m-%d %H:00:00"),
            (86_400, "day", "%Y-%m-%d 00:00:00"), (1_000_000, "month", "%Y-%m-01 00:00:00"),
        ]
        for (step, unit, format) in cases {
            let (driver, cli) = try sqliteChart("""
                CREATE TABLE e(id integer PRIMARY KEY, created_at text, seen_at integer);
                WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 59)
                INSERT INTO e SELECT i, strftime(CASE i % 2 WHEN 0 THEN '%Y-%m-%dT%H:%M:%SZ' ELSE '%Y-%m-%d %H:%M:%S' END,
                  1764547200 + i * \(step) + (i * 7) % \(step), 'unixepoch'), 1764547200 + i * \(step) FROM n;
                """, keys: "l.")
            let bins = driver.state.table?.chartBin?.bins ?? []
            XCTAssertEqual(bins.first?.unit, unit)
            let expected = try cli("SELECT strftime('\(format)', created_at), count(*) FROM e GROUP BY 1 ORDER BY 1;")
            XCTAssertEqual(Self.counted(driver, key: 1), expected, unit)
            try driver.type("ql.")
            XCTAssertEqual(driver.state.table?.chartBin?.bins.first?.unit, unit, "Unix seconds")
            let seconds = try cli("SELECT strftime('\(format)', seen_at, 'unixepoch'), count(*) FROM e GROUP BY 1 ORDER BY 1;")
            XCTAssertEqual(Self.counted(driver, key: 1), seconds, unit)
        }
    }

    /// Unix seconds and a date on PostgreSQL, per day, equal its `GROUP BY`.
    func testPostgresUnixSecondsAndDatesPerDay() throws {
        let name = "viewerChartBins"
        let dataSource = try PostgresTestDatabase.open(name, sql: """
            CREATE TABLE e(id integer PRIMARY KEY, seen_at bigint, day date);
            INSERT INTO e SELECT i, 1764547200 + i * 25000, date '2026-12-01' + i / 3 FROM generate_series(0, 59) AS i;
            """)
        let driver = try ViewerDriver(dataSource: dataSource, target: .table("e"), width: 80, height: 24) {
            _ = try PostgresTestDatabase.write(name, $0)
        }
        try driver.type("l.")
        XCTAssertEqual(driver.state.table?.chartBin?.bins.first?.unit, "day")
        let expected = try PostgresTestDatabase.write(name, """
            SELECT to_char(date_trunc('day', to_timestamp(seen_at) AT TIME ZONE 'UTC'), 'YYYY-MM-DD HH24:MI:SS'), count(*)
            FROM e GROUP BY 1 ORDER BY 1;
            """)
        XCTAssertEqual(Self.counted(driver, key: 1), expected + "\n")
        try driver.send(.key(.enter))
        XCTAssertEqual(driver.state.table?.window?.rows.count, 4, "0, 25,000, 50,000 and 75,000 s")
        try driver.type("qql.")
        XCTAssertEqual(driver.state.table?.chartBin?.bins.count, 20)
        XCTAssertEqual(driver.state.table?.chartBin?.bins.map(\.count), Array(repeating: 3, count: 20))
    }

    /// A time of day (PostgreSQL's `time` and `timetz`, SQLite's `TIME`)
    /// is charted over one day, per hour here, drawn as `13:00`.
    func testTimesOfDay() throws {
        let name = "viewerChartTimeOfDay"
        let dataSource = try PostgresTestDatabase.open(name, sql: """
            CREATE TABLE s(id integer PRIMARY KEY, starts time, ends timetz);
            INSERT INTO s SELECT i, time '00:10' + i * interval '29 minutes', timetz '01:00+02' + i * interval '7 minutes'
            FROM generate_series(0, 47) AS i;
            """)
        let driver = try ViewerDriver(dataSource: dataSource, target: .table("s"), width: 80, height: 24) {
            _ = try PostgresTestDatabase.write(name, $0)
        }
        try driver.type("l.")
        XCTAssertEqual(driver.state.table?.chartBin?.bins.first?.unit, "hour")
        let expected = try PostgresTestDatabase.write(name, """
            SELECT '2000-01-01 ' || to_char(date_trunc('hour', starts::interval), 'HH24:MI:SS'), count(*)
            FROM s GROUP BY 1 ORDER BY 1;
            """)
        XCTAssertEqual(Self.counted(driver, key: 1), expected + "\n")
        XCTAssertTrue(driver.lines[2].hasPrefix("  00:00 │"), driver.lines[2])
        try driver.send(.key(.enter))
        XCTAssertEqual(driver.state.table?.window?.rows.count, 2, "00:10 and 00:39")
        try driver.type("qql.")
        XCTAssertEqual(driver.state.table?.chartBin?.bins.first?.unit, "hour")
        XCTAssertEqual(driver.state.table?.chartBin?.bins.map(\.count).reduce(0, +), 48)
        let (sqlite, cli) = try sqliteChart("""
            CREATE TABLE m(id integer PRIMARY KEY, starts TIME);
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 47)
            INSERT INTO m SELECT i, strftime('%H:%M:%S', 600 + i * 29 * 60, 'unixepoch') FROM n;
            """, keys: "l.")
        XCTAssertEqual(Self.counted(sqlite, key: 1), try cli("SELECT strftime('%Y-%m-%d %H:00:00', starts), count(*) FROM m GROUP BY 1 ORDER BY 1;"))
        XCTAssertTrue(sqlite.lines[2].hasPrefix("  00:00 │"), sqlite.lines[2])
    }

    func testWhatIsATime() {
        func column(_ name: String, _ type: String) -> SourceColumn {
            SourceColumn(name: name, declaredType: type, isIndexed: false)
        }
        XCTAssertTrue(DerivedSheet.isTime(column("x", "DATETIME")))
        XCTAssertTrue(DerivedSheet.isTime(column("x", "timestamp with time zone")))
        XCTAssertTrue(DerivedSheet.isTime(column("x", "TEXT")))
        XCTAssertTrue(DerivedSheet.isTimeOfDay(column("x", "time without time zone")))
        XCTAssertTrue(DerivedSheet.isTimeOfDay(column("x", "TIME")))
        XCTAssertFalse(DerivedSheet.isTimeOfDay(column("x", "timestamp with time zone")))
        XCTAssertTrue(DerivedSheet.isTime(column("created_at", "INTEGER")))
        XCTAssertTrue(DerivedSheet.isTime(column("updated", "")))
        XCTAssertFalse(DerivedSheet.isTime(column("amount", "INTEGER")))
        XCTAssertFalse(DerivedSheet.isTime(column("runtime", "real")))
        XCTAssertFalse(DerivedSheet.isTime(column("c", "")))
    }

    /// To an eighth of a cell; a bin with rows shows, however few.
    func testBars() {
        XCTAssertEqual(ChartDrawing.bar(8, of: 8, width: 4), "████")
        XCTAssertEqual(ChartDrawing.bar(3, of: 8, width: 4), "█▌")
        XCTAssertEqual(ChartDrawing.bar(1, of: 1_000, width: 4), "▏")
        XCTAssertEqual(ChartDrawing.bar(0, of: 8, width: 4), "")
        XCTAssertEqual(ChartDrawing.bar(5, of: 8, width: 0), "")
    }

    // MARK: - Helpers

    /// A driver at 80x24 on a file the sqlite3 CLI wrote, after `keys`.
    private func sqliteChart(_ sql: String, keys: String) throws -> (ViewerDriver, (String) throws -> String) {
        let path = try makeTemporaryDirectory().appendingPathComponent("chart.sqlite").path
        try ForeignFile.sqlite3(path, sql)
        let table = sql.contains("CREATE TABLE e(") ? "e" : "m"
        let driver = try ViewerDriver(path: path, table: table, width: 80, height: 24)
        try driver.type(keys)
        return (driver, { try ForeignFile.sqlite3(path, $0) })
    }

    /// The bins that hold rows, as the CLIs print them: `key|count` lines
    /// (`key`: the bin's number, or 1 for its start).
    static func counted(_ driver: ViewerDriver, key: Int = 0) -> String {
        let rows = driver.state.table?.window?.rows ?? []
        return rows.filter { ViewerFrequencyTests.text($0[3]) != "0" }
            .map { ViewerFrequencyTests.text($0[key]) + "|" + ViewerFrequencyTests.text($0[3]) + "\n" }.joined()
    }
}
