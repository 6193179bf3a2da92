import Foundation
import Synchronization

/// Opened once the first window of a `PostgresDataSource` is drawn: the
/// launch's other connections (the count's, the commit watch's) wait for
/// it before they connect. Connecting forks a server process and runs
/// SCRAM on both sides: on a small machine it took the CPU from the first
/// screen, 5 to 40 ms late (issue 25, item 11). They wait `limit` at most:
/// an export or a count with no window on screen is not held up longer.
final class PostgresFirstScreenGate: Sendable {
    static let limit: TimeInterval = 0.25

    private let group = DispatchGroup()
    private let isOpen = Mutex(false)

    init() {
        group.enter()
    }

    /// After the window's screen: the loop draws it in the main queue's
    /// next turn, queued in this one.
    func openAfterTheDraw() {
        // Every window calls it: once open, nothing is queued.
        guard !isOpen.withLock({ $0 }) else { return }
        DispatchQueue.main.async { [self] in
            DispatchQueue.main.async { [self] in open() }
        }
    }

    func open() {
        let opens = isOpen.withLock { isOpen in
            defer { isOpen = true }
            return !isOpen
        }
        if opens { group.leave() }
    }

    func wait() {
        _ = group.wait(timeout: .now() + Self.limit)
    }
}
