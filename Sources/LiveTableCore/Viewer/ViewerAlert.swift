import Foundation
import OpenCombine

// MARK: - Alerts

/// `--alert` and `!`: the table's rows that match a SQL condition, read
/// through the data source's windows as the screen's rows are (again after
/// each commit). A row that starts matching rings the bell; every matching
/// row on screen is marked, and the title counts them.
package struct ViewerAlert: Equatable, Sendable {
    package var expression: String
    /// The table filtered by the condition, once the data source checked it
    /// as it checks a filter (read-only); nil while it is checked.
    package var viewed: ViewedSource?
    /// The matching rows at the last read; nil before the first.
    package var matching: Set<StoredKey>?
    package var count = 0
    /// False when more than `rowLimit` rows match: `count` is a lower bound.
    package var isComplete = true
    var isObserved = false

    /// Enough to mark the rows on any screen and to count a few pages.
    package static let rowLimit = 1_000

    package init(expression: String, viewed: ViewedSource? = nil) {
        self.expression = expression
        self.viewed = viewed
    }

    /// The first `rowLimit` matching rows, in the table's order.
    static func request(for viewed: ViewedSource) -> RowWindowRequest {
        RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: rowLimit)
    }

    /// Takes a read of the matching rows, and returns those that started
    /// matching since the one before (none at the first read).
    mutating func take(_ window: ViewerWindow) -> [StoredKey] {
        let ids = window.changeSnapshot(rowCount: nil).rows.map(\.id)
        let previous = matching
        matching = Set(ids)
        count = ids.count
        isComplete = window.window.reachesEnd
        guard let previous else { return [] }
        return ids.filter { !previous.contains($0) }
    }

    /// For the title: "3", "1,000+".
    package var countText: String {
        grouped(count) + (isComplete ? "" : "+")
    }
}

/// What the alert's reads send back.
package enum ViewerAlertMessage: Equatable, Sendable {
    /// The condition passed the data source's checks: the table filtered by it.
    case checked(ViewedSource)
    case checkFailed(String)
    case window(ViewerWindow)
    case failed(String, ViewerFailureKind)
}

/// What the alert asks the program for.
package enum ViewerAlertEffect: Equatable, Sendable {
    /// Checks the condition on the sheet, as a filter is checked.
    case check(ViewedSource, String)
    case observe(ViewedSource)
    /// Stops the alert's reads.
    case stop
    case bell
}

// MARK: - Waiting from scripts

extension ViewerAlert {
    /// `--until`: the first window holding a row of `viewed` (a source
    /// filtered by the condition), read at subscription and after each
    /// commit through the data source's live windows, as the screen reads
    /// its own. Transient failures (a lock) are read again; others end it.
    package static func firstMatch(
        of viewed: ViewedSource, in dataSource: any ViewerDataSource) -> AnyPublisher<ViewerWindow, any Error>
    {
        dataSource.windows(of: viewed, RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 1))
            .compactMap { read -> ViewerWindow? in
                guard case let .window(window) = read, !window.window.rows.isEmpty else { return nil }
                return window
            }
            .first()
            .eraseToAnyPublisher()
    }
}
