// MARK: - Dates and times as SQLite reads them

/// Proleptic Gregorian dates from 0000-01-01 to 9999-12-31, in UTC: the
/// times `TimeBucketCounts` reads itself. Where SQLite versions could read
/// a value differently (a day past its month's end, `24:00`, a fraction
/// that rounds to the next minute), the readers say nil, and SQLite's own
/// `strftime` reads it.
enum CivilTime {
    /// 0000-01-01 00:00:00 and 9999-12-31 23:59:59, in Unix seconds.
    static let firstSecond: Int64 = -62_167_219_200
    static let lastSecond: Int64 = 253_402_300_799

    /// The Unix minute of Unix seconds, as SQLite's `unixepoch` counts it:
    /// milliseconds from Julian day 0, rounded (SQLite 3.40) or cut
    /// (earlier), nil where the two differ in minute.
    static func unixMinute(ofUnixSeconds seconds: Double) -> Int? {
        let julianEpoch = 210_866_760_000_000.0
        let scaled = seconds * 1000 + julianEpoch
        guard scaled >= 0, scaled < 464_269_060_800_000 else { return nil }
        let minute = { (milliseconds: Double) in (Int(milliseconds) - Int(julianEpoch)).floorDivided(by: 60_000) }
        let rounded = minute(scaled + 0.5)
        guard rounded == minute(scaled), inRange(rounded) else { return nil }
        return rounded
    }

    /// The Unix minute of ISO 8601 text: `YYYY-MM-DD`, then a space or `T`
    /// and `HH:MM`, `:SS`, a fraction, and `Z` or `±HH:MM`; or a time of
    /// day alone, on 2000-01-01. Nil for any other text.
    static func unixMinute(ofISO8601 text: UnsafeBufferPointer<UInt8>) -> Int? {
        var reader = ByteReader(text: text)
        var days = daysFromCivil(year: 2000, month: 1, day: 1)
        if text.count >= 10, text[4] == UInt8(ascii: "-") {
            guard let year = reader.digits(4), reader.skip("-"), let month = reader.digits(2), reader.skip("-"),
                let day = reader.digits(2), (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year)
            else { return nil }
            days = daysFromCivil(year: year, month: month, day: day)
            if reader.atEnd { return days * 1440 }
            guard reader.skip(" ") || reader.skip("T") else { return nil }
        }
        guard let hour = reader.digits(2), hour <= 23, reader.skip(":"), let minute = reader.digits(2), minute <= 59
        else { return nil }
        if reader.skip(":") {
            guard let second = reader.digits(2), second <= 59 else { return nil }
            if reader.skip(".") {
                // SQLite rounds to the millisecond where it adds an offset.
                guard let fraction = reader.fraction(), fraction.isFinite, Double(second) + fraction < 59.9995
                else { return nil }
            }
        }
        var offset = 0
        if reader.skip("Z") || reader.skip("z") {
        } else if let sign = reader.sign() {
            guard let hours = reader.digits(2), hours <= 14, reader.skip(":"), let minutes = reader.digits(2), minutes <= 59
            else { return nil }
            offset = sign * (hours * 60 + minutes)
        }
        let unixMinute = days * 1440 + hour * 60 + minute - offset
        guard reader.atEnd, inRange(unixMinute) else { return nil }
        return unixMinute
    }

    /// The start of the bucket of `unit` holding `unixMinute`.
    static func bucketStart(ofUnixMinute unixMinute: Int, _ unit: TimeBucketUnit) -> Int {
        switch unit {
        case .minute: return unixMinute
        case .hour: return unixMinute.floorDivided(by: 60) * 60
        case .day: return unixMinute.floorDivided(by: 1440) * 1440
        case .month:
            let date = civil(fromDays: unixMinute.floorDivided(by: 1440))
            return daysFromCivil(year: date.year, month: date.month, day: 1) * 1440
        }
    }

    /// `YYYY-MM-DD HH:MM:00`, as `strftime` writes a bucket's start.
    static func text(ofUnixMinute unixMinute: Int) -> String {
        let date = civil(fromDays: unixMinute.floorDivided(by: 1440))
        let inDay = unixMinute - unixMinute.floorDivided(by: 1440) * 1440
        let padded = { (number: Int, width: Int) in
            let digits = String(number)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(date.year, 4))-\(padded(date.month, 2))-\(padded(date.day, 2)) "
            + "\(padded(inDay / 60, 2)):\(padded(inDay % 60, 2)):00"
    }

    private static func inRange(_ unixMinute: Int) -> Bool {
        unixMinute >= Int(firstSecond / 60) && unixMinute <= Int(lastSecond / 60)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 (the civil-from-days algorithms of H. Hinnant).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = y.floorDivided(by: 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = shifted.floorDivided(by: 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// Reads ASCII from the front of a text.
private struct ByteReader {
    let text: UnsafeBufferPointer<UInt8>
    var index = 0

    var atEnd: Bool { index == text.count }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard index < text.count, text[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    /// `count` decimal digits as a number.
    mutating func digits(_ count: Int) -> Int? {
        guard index + count <= text.count else { return nil }
        var number = 0
        for byte in text[index..<(index + count)] {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            number = number * 10 + Int(byte - 0x30)
        }
        index += count
        return number
    }

    /// One digit or more after a point, as SQLite sums them.
    mutating func fraction() -> Double? {
        var value = 0.0
        var scale = 1.0
        while index < text.count, text[index] >= 0x30, text[index] <= 0x39 {
            value = value * 10 + Double(text[index] - 0x30)
            scale *= 10
            index += 1
        }
        return scale > 1 ? value / scale : nil
    }

    /// +1 or -1 after a sign, nil and nothing read when none is there.
    mutating func sign() -> Int? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }
}

extension Int {
    /// The quotient rounded down (`-1 / 60` is -1, not 0).
    func floorDivided(by divisor: Int) -> Int {
        let quotient = self / divisor
        return self % divisor != 0 && (self < 0) != (divisor < 0) ? quotient - 1 : quotient
    }
}
