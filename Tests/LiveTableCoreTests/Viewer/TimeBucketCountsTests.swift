import Foundation
import GRDB
import XCTest
@testable import LiveTableCore

/// `livetable_time_counts` against SQLite's own `strftime` groups, on the
/// forms it reads itself and on those it leaves to `strftime`.
final class TimeBucketCountsTests: XCTestCase {
    private static let formats = [
        "minute": "%Y-%m-%d %H:%M:00", "hour": "%Y-%m-%d %H:00:00", "day": "%Y-%m-%d 00:00:00", "month": "%Y-%m-01 00:00:00",
    ]

    /// Values at the edges of what is read without `strftime`.
    private static let edges: [DatabaseValueConvertible?] = [
        "2024-02-29 10:00", "2023-02-29 10:00", "2024-02-30", "2024-04-31 08:00", "2024-01-01 24:00:00",
        "2024-01-01 23:59:59.9999", "2024-01-01 23:59:59.9994+01:00", "2024-01-01 23:59:59.9996+01:00",
        "0000-01-01 00:00:00", "0000-01-01 00:30+01:00", "0000-01-01 00:30-01:00", "9999-12-31 23:59:59",
        "9999-12-31 23:59-01:00", "9999-12-31 23:59+01:00", "2460000.5", "  2024-01-01", "2024-01-01 ",
        "2024-01-01T10:00:00z", "2024-01-01t10:00", "2024-1-01", "abc", "", "12:5", "2024-01-01 10:00:00.",
        "2024-01-01 10:00:00.5x", "2024-01-01 10:00 +02:00", "2024-01-01 10:00+15:00", "2024-01-01 10:00+14:59",
        "2024-01-01  10:00", "23:59:59.5-02:00", "00:10+00:30", "13:45", "2024-03-31T23:30:00-05:00",
        "2024-12-31T23:30:00.123456789012345678901234567890+00:45",
        -62_167_219_200, -62_167_219_201, 253_402_300_799, 253_402_300_800, 0, -1, 59, 60,
        1_700_000_039.9995, 1_700_000_039.99949999, 1_700_000_039.5, -0.0005, -0.0004, 1e20, -1e20,
        Data([0x32, 0x30]), nil,
    ]

    func testTheCountsAreStrftimesGroups() throws {
        let queue = try DatabaseQueue()
        try queue.inDatabase { db in
            XCTAssertTrue(TimeBucketCounts.register(on: try XCTUnwrap(db.sqliteConnection)))
            try db.execute(sql: "CREATE TABLE t(v)")
            for value in Self.edges + Self.randomValues(count: 20_000) {
                try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [value])
            }
            for (unit, format) in Self.formats {
                let json = try String.fetchOne(db, sql: "SELECT livetable_time_counts(v, ?) FROM t", arguments: [unit])
                let counts = try JSONDecoder().decode([String: Int].self, from: Data(try XCTUnwrap(json).utf8))
                let expected = try Row.fetchAll(db, sql: """
                    SELECT b, count(*) AS c FROM (
                      SELECT CASE WHEN typeof(v) IN ('integer', 'real') THEN strftime(?1, v, 'unixepoch')
                        ELSE strftime(?1, v) END AS b FROM t
                    ) WHERE b IS NOT NULL GROUP BY b
                    """, arguments: [format])
                let groups = Dictionary(uniqueKeysWithValues: expected.map { ($0["b"] as String, $0["c"] as Int) })
                let differing = Set(counts.keys).union(groups.keys).filter { counts[$0] != groups[$0] }.sorted()
                XCTAssertEqual(differing.prefix(5).map { "\($0): \(counts[$0] ?? 0) for \(groups[$0] ?? 0)" }, [], unit)
                XCTAssertGreaterThan(counts.count, 100, unit)
            }
        }
    }

    /// The common forms are read without `strftime`; the doubtful ones not.
    func testWhatIsReadWithoutStrftime() {
        let read = { (text: String) in
            Array(text.utf8).withUnsafeBufferPointer { CivilTime.unixMinute(ofISO8601: $0) }
        }
        XCTAssertEqual(read("1970-01-01 00:01:59"), 1)
        XCTAssertEqual(read("1970-01-01T00:01:59.999Z"), 1)
        XCTAssertEqual(read("1970-01-01T02:01+02:00"), 1)
        XCTAssertEqual(read("1969-12-31"), -1440)
        XCTAssertEqual(read("00:01"), CivilTime.daysFromCivil(year: 2000, month: 1, day: 1) * 1440 + 1)
        for doubtful in ["2023-02-29", "2024-01-01 24:00", "2024-01-01 10:00:59.9996", "now", "2024-01-01 10:00 Z"] {
            XCTAssertNil(read(doubtful), doubtful)
        }
        XCTAssertEqual(CivilTime.text(ofUnixMinute: CivilTime.bucketStart(ofUnixMinute: -1, .month)), "1969-12-01 00:00:00")
    }

    /// Texts in every form, Unix seconds as integers and reals, from 1900
    /// to 2100, from a fixed seed.
    private static func randomValues(count: Int) -> [DatabaseValueConvertible] {
        var generator = SplitMix64(seed: 28)
        let forms = [
            "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%d %H:%M", "%Y-%m-%d", "%Y-%m-%dT%H:%M:%f", "%H:%M",
        ]
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        return (0..<count).map { index in
            let seconds = Int.random(in: -2_208_988_800...4_102_444_800, using: &generator)
            switch index % 8 {
            case 6: return seconds
            case 7: return Double(seconds) + Double.random(in: 0..<1, using: &generator)
            default:
                let date = Date(timeIntervalSince1970: TimeInterval(seconds) + 0.25)
                let form = forms[index % forms.count]
                formatter.dateFormat = form
                    .replacingOccurrences(of: "%Y", with: "yyyy").replacingOccurrences(of: "%m", with: "MM")
                    .replacingOccurrences(of: "%d", with: "dd").replacingOccurrences(of: "%H", with: "HH")
                    .replacingOccurrences(of: "%M", with: "mm").replacingOccurrences(of: "%S", with: "ss")
                    .replacingOccurrences(of: "%f", with: "ss.SSS")
                let offset = index % 5 == 0 && form.hasSuffix("%S") ? ["+05:30", "-14:00", "+00:00"][index % 3] : ""
                return formatter.string(from: date) + offset
            }
        }
    }
}
