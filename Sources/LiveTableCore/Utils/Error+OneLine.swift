import Foundation

extension Error {
    /// What the error says, on one line: for the status line, the edit
    /// form, and the one-line messages of the command line.
    package var oneLineDescription: String {
        let text = (self as? LocalizedError)?.errorDescription ?? String(describing: self)
        return text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
