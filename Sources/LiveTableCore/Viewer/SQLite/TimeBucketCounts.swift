import CSQLite
import Foundation

// MARK: - Rows per time bucket, in one scan

/// `livetable_time_counts(value, unit)`: an aggregate of SQLite's viewer
/// connections that counts the rows of each time bucket of `unit`
/// (`'minute'`, `'hour'`, `'day'`, else a month), and returns one JSON
/// object from each bucket's start (`"2024-01-05 10:00:00"`) to its rows.
/// Values that are no time are not counted.
///
/// A `GROUP BY` of `strftime`'s buckets sorts every row: 1.9 s for
/// 2,000,000 rows, half in `strftime`, half in the sort. This is one scan
/// that counts in a dictionary. The common forms are read here: ISO 8601
/// text of a valid date (a space or `T`, seconds, fractions, `Z` or an
/// offset), a time of day, and Unix seconds. Any other value (`now`, a
/// day number, February 30) is read by SQLite's own `strftime`, through
/// the same expression as a `GROUP BY` would use
/// (`ChartSpelling.sqlite.bucket`): the counts are `strftime`'s either way.
enum TimeBucketCounts {
    static let name = "livetable_time_counts"

    /// Registers the aggregate; false when SQLite refuses it. Direct only:
    /// a view or trigger of the file cannot call it.
    static func register(on connection: OpaquePointer) -> Bool {
        sqlite3_create_function_v2(
            connection, name, 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, nil, nil,
            { context, _, arguments in
                guard let context, let arguments else { return }
                TimeBucketCounts.step(context, arguments[0], arguments[1])
            },
            { context in
                guard let context else { return }
                TimeBucketCounts.finish(context)
            },
            nil) == SQLITE_OK
    }

    /// The counter of one run of the aggregate, kept by its context; made
    /// at its first row.
    private static func counter(_ context: OpaquePointer) -> TimeBucketCounter? {
        let size = Int32(MemoryLayout<UnsafeMutableRawPointer?>.size)
        guard let slot = sqlite3_aggregate_context(context, size)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        else { return nil }
        if let counter = slot.pointee {
            return Unmanaged<TimeBucketCounter>.fromOpaque(counter).takeUnretainedValue()
        }
        let counter = TimeBucketCounter()
        slot.pointee = Unmanaged.passRetained(counter).toOpaque()
        return counter
    }

    private static func step(_ context: OpaquePointer, _ value: OpaquePointer?, _ unit: OpaquePointer?) {
        guard let counter = counter(context) else {
            return sqlite3_result_error_nomem(context)
        }
        if counter.unit == nil {
            counter.unit = TimeBucketUnit(unit.flatMap(sqlite3_value_text).map { String(cString: $0) })
        }
        if let minute = unixMinute(of: value) {
            counter.count(minute)
        } else if let failure = counter.countAsStrftime(value, unit, on: sqlite3_context_db_handle(context)) {
            // The code too: an interrupted read stays an interruption.
            sqlite3_result_error(context, failure.message, -1)
            sqlite3_result_error_code(context, failure.code)
        }
    }

    /// Always called once the aggregate has run, or was interrupted: the
    /// counter is released here.
    private static func finish(_ context: OpaquePointer) {
        guard let slot = sqlite3_aggregate_context(context, 0)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self),
            let pointer = slot.pointee
        else { return sqlite3_result_null(context) }
        slot.pointee = nil
        let json = Unmanaged<TimeBucketCounter>.fromOpaque(pointer).takeRetainedValue().json()
        sqlite3_result_text(context, json, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
    }

    /// The Unix minute of a value in one of the common forms, nil for any
    /// other (`strftime` reads those).
    static func unixMinute(of value: OpaquePointer?) -> Int? {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER:
            let seconds = sqlite3_value_int64(value)
            guard seconds >= CivilTime.firstSecond, seconds <= CivilTime.lastSecond else { return nil }
            return Int(seconds).floorDivided(by: 60)
        case SQLITE_FLOAT:
            return CivilTime.unixMinute(ofUnixSeconds: sqlite3_value_double(value))
        case SQLITE_TEXT:
            guard let text = sqlite3_value_text(value) else { return nil }
            return CivilTime.unixMinute(ofISO8601: UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value))))
        default:
            return nil
        }
    }
}

/// The unit of a bucket, as `ChartSpelling.sqlite.bucket` names it.
enum TimeBucketUnit {
    case minute, hour, day, month

    init(_ name: String?) {
        switch name {
        case "minute": self = .minute
        case "hour": self = .hour
        case "day": self = .day
        default: self = .month
        }
    }

    var name: String {
        switch self {
        case .minute: return "minute"
        case .hour: return "hour"
        case .day: return "day"
        case .month: return "month"
        }
    }
}

/// The counts of one run: by Unix minute of the bucket's start, and by
/// `strftime`'s text for the values it read.
final class TimeBucketCounter {
    var unit: TimeBucketUnit?
    private var minutes: [Int: Int] = [:]
    private var texts: [String: Int] = [:]
    /// `strftime`'s reading of one value, prepared at its first use.
    private var strftime: OpaquePointer?

    deinit {
        sqlite3_finalize(strftime)
    }

    func count(_ unixMinute: Int) {
        minutes[CivilTime.bucketStart(ofUnixMinute: unixMinute, unit ?? .month), default: 0] += 1
    }

    /// Counts the value in `strftime`'s bucket, if it is a time; SQLite's
    /// error when the statement fails.
    func countAsStrftime(
        _ value: OpaquePointer?, _ unit: OpaquePointer?, on connection: OpaquePointer?) -> (code: Int32, message: String)?
    {
        let failure = { (code: Int32) in (code, String(cString: sqlite3_errmsg(connection))) }
        if strftime == nil {
            let sql = "SELECT " + ChartSpelling.sqlite.bucket("?2", .instant, "?1")
            let code = sqlite3_prepare_v2(connection, sql, -1, &strftime, nil)
            guard code == SQLITE_OK else { return failure(code) }
        }
        defer { sqlite3_reset(strftime) }
        sqlite3_bind_value(strftime, 1, unit)
        sqlite3_bind_value(strftime, 2, value)
        let code = sqlite3_step(strftime)
        guard code == SQLITE_ROW else { return failure(code) }
        if let text = sqlite3_column_text(strftime, 0) {
            texts[String(cString: text), default: 0] += 1
        }
        return nil
    }

    /// `{"2024-01-05 10:00:00": 12, …}`, as `strftime` spells each start.
    func json() -> String {
        var counts = texts
        for (minute, count) in minutes {
            counts[CivilTime.text(ofUnixMinute: minute), default: 0] += count
        }
        let members = counts.map { text, count in
            "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                + "\":" + String(count)
        }
        return "{" + members.joined(separator: ",") + "}"
    }
}
