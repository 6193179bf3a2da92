import Foundation

extension Error {
    /// What the error says, on one line: for the status line and for the
    /// one-line messages of the command line.
    ///
    /// For example:
    ///
    /// ```swift
    /// state.status.error = "Write failed: \(error.oneLineDescription)"
    /// ```
    public var oneLineDescription: String {
        let text = (self as? LocalizedError)?.errorDescription ?? String(describing: self)
        return text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
