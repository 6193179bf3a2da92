extension String {
    /// The text cut to its first `length` scalars, ending with "…" when
    /// something was cut off: only the scalars kept are read.
    func cut(toLength length: Int) -> String {
        var end = unicodeScalars.startIndex
        for _ in 0..<max(0, length) {
            guard end < unicodeScalars.endIndex else { return self }
            end = unicodeScalars.index(after: end)
        }
        guard end < unicodeScalars.endIndex else { return self }
        return String(unicodeScalars[..<end]) + TextWidth.ellipsis
    }
}
