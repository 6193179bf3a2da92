/// Counts the changes delivered while the screen is paused ("paused — 12
/// changes"), without changing what the screen shows.
///
/// The counter compares each delivered window with the previous delivered
/// one (not with the frozen screen), with the rules of `WindowDiff`: a
/// change is a row of the window whose cells changed, a row new in its
/// range, or a row that left it from within, once per delivery. So a row
/// updated five times counts five changes; rows pushed across the edges
/// of the window by changes elsewhere do not count, and `rowCountChange`
/// tells those. It keeps one window, whatever the pause lasts.
///
/// On resume, the host gives the latest window to its
/// `ChangeHighlighter`, whose window is still the frozen one: what changed
/// while paused lights up.
///
/// For example:
///
/// ```swift
/// // Space: pause.
/// state.paused = ChangeCounter(since: state.highlighter.window)
/// // A window arrives while paused.
/// state.paused?.take(newValue.changeSnapshot, cause: .update)
/// status = "paused — \(state.paused!.changeCount) changes"
/// ```
public struct ChangeCounter<RowID: Hashable & Sendable>: Equatable, Sendable {
    /// The number of changes counted since the pause.
    public private(set) var changeCount: Int

    /// The change of the row count since the pause, or nil when unknown.
    public var rowCountChange: Int? {
        guard let startRowCount, let lastRowCount else { return nil }
        return lastRowCount - startRowCount
    }

    /// The mark of a paused screen: "paused — 1 change", "paused — 12 changes".
    ///
    /// For example:
    ///
    /// ```swift
    /// ChangeCounter<Int64>(since: nil).text // "paused — 0 changes"
    /// ```
    public var text: String {
        "paused \u{2014} \(changeCount) " + (changeCount == 1 ? "change" : "changes")
    }

    /// The window last delivered.
    public private(set) var window: WindowSnapshot<RowID>?

    /// The row count at the pause (or the first one known after it).
    private var startRowCount: Int?
    /// The latest known row count.
    private var lastRowCount: Int?

    /// Starts counting from the window on screen.
    ///
    /// For example:
    ///
    /// ```swift
    /// let counter = ChangeCounter(since: state.highlighter.window)
    /// ```
    ///
    /// - parameter window: The window on screen, or nil if none yet.
    public init(since window: WindowSnapshot<RowID>?) {
        self.changeCount = 0
        self.window = window
        self.startRowCount = window?.rowCount
        self.lastRowCount = window?.rowCount
    }

    /// Counts the changes of a delivered window.
    ///
    /// For example:
    ///
    /// ```swift
    /// counter.take(newValue.changeSnapshot, cause: .update)
    /// ```
    ///
    /// - parameter window: The delivered window.
    /// - parameter cause: `.update` when it answers the same request as
    ///   the previous one; after a `.navigation`, only changed cells count.
    public mutating func take(_ window: WindowSnapshot<RowID>, cause: WindowChange) {
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
