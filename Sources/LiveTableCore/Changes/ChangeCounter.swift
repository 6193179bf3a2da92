/// Counts the changes delivered while the screen is paused, without changing what it shows.
/// It compares each window with the previous delivered one, not the frozen screen: a row
/// updated five times counts five changes.
package struct ChangeCounter<RowID: Hashable & Sendable>: Equatable, Sendable {
    package private(set) var changeCount: Int

    /// The change of the row count since the pause, or nil when unknown.
    package var rowCountChange: Int? {
        guard let startRowCount, let lastRowCount else { return nil }
        return lastRowCount - startRowCount
    }

    /// The mark of a paused screen: "paused — 1 change", "paused — 12 changes".
    package var text: String {
        "paused \u{2014} \(changeCount) " + (changeCount == 1 ? "change" : "changes")
    }

    package private(set) var window: WindowSnapshot<RowID>?

    /// The row count at the pause (or the first one known after it).
    private var startRowCount: Int?
    private var lastRowCount: Int?

    package init(since window: WindowSnapshot<RowID>?) {
        self.changeCount = 0
        self.window = window
        self.startRowCount = window?.rowCount
        self.lastRowCount = window?.rowCount
    }

    package mutating func take(_ window: WindowSnapshot<RowID>, cause: WindowChange) {
        if let previous = self.window {
            changeCount += WindowDiff(from: previous, to: window, cause: cause).changeCount
        }
        self.window = window
        if let count = window.rowCount {
            if startRowCount == nil { startRowCount = count }
            lastRowCount = count
        }
    }
}
