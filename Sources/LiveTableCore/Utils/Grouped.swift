/// "1,234,567": positions and counts, grouped by thousands whatever the
/// locale, so that screens are the same everywhere.
func grouped(_ number: Int) -> String {
    let digits = String(number.magnitude)
    var result = ""
    for (offset, digit) in digits.enumerated() {
        if offset > 0, (digits.count - offset) % 3 == 0 {
            result.append(",")
        }
        result.append(digit)
    }
    return number < 0 ? "-" + result : result
}
