import Foundation

// MARK: - The changes log

extension ViewerState {
    /// `L`: the changes seen while open, as a sheet.
    mutating func openChangesLog() -> [ViewerEffect] {
        message = .notice("the changes log is not there yet")
        return []
    }
}
