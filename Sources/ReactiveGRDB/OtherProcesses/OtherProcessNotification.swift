import Foundation
import Synchronization

/// The transaction in which a watch makes GRDB notify the observations of
/// a writer after another process's commit, for the shared publishers that
/// asked for it: GRDB notifies them all, and the value publishers drop the
/// values that it alone caused.
enum OtherProcessNotification {
    private static let key = "ReactiveGRDB.OtherProcessNotification"

    /// Whether the current thread runs the notification: GRDB tells the
    /// observations of a commit on the writer's queue, during the commit.
    static var isRunning: Bool {
        Thread.current.threadDictionary[key] != nil
    }

    static func run<T>(_ body: () throws -> T) rethrows -> T {
        Thread.current.threadDictionary[key] = true
        defer { Thread.current.threadDictionary[key] = nil }
        return try body()
    }

    /// The changes an observation was told since its last value: a value
    /// that follows notifications only is dropped.
    final class Filter: Sendable {
        private let state = Mutex((changes: 0, notifications: 0, isFirst: true))

        /// Called on the writer's queue, during the commit.
        func databaseDidChange() {
            let isNotification = OtherProcessNotification.isRunning
            state.withLock { state in
                state.changes += 1
                if isNotification { state.notifications += 1 }
            }
        }

        /// Whether the value that arrives follows notifications only. The
        /// first value, fetched at the start, is kept, and the changes told
        /// before it are left for the next one: they come before its
        /// delivery, not always before its fetch. A value that follows no
        /// change is kept.
        func dropsValue() -> Bool {
            state.withLock { state in
                if state.isFirst {
                    state.isFirst = false
                    return false
                }
                defer { (state.changes, state.notifications) = (0, 0) }
                return state.changes > 0 && state.changes == state.notifications
            }
        }
    }
}
