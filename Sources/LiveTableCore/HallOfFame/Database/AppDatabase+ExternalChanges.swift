import Foundation
import GRDB
import OpenCombine
import ReactiveGRDB
import Synchronization

extension AppDatabase {
    /// Makes the Hall of Fame observations see other processes' commits (ReactiveGRDB's
    /// `includingOtherProcesses(_:)`). GRDB sees its own connections' only: a player inserted by
    /// `sqlite3` would stay off screen until the app's next write. Call it before the observations start.
    package func observeExternalChanges(
        polling: CommitPolling = CommitPolling(),
        onPollingFallback: (@Sendable (String) -> Void)? = nil) -> AnyCancellable
    {
        // Each window of the Hall of Fame is a new subscription, which
        // would report the fallback again.
        let isReported = Mutex(false)
        let commits = polling.commits(path: writer.path, onPolled: { _, reason in
            let isFirst = isReported.withLock { isReported in
                defer { isReported = true }
                return !isReported
            }
            if isFirst {
                onPollingFallback?(reason)
            }
        })
        otherProcessCommits.withLock { $0 = commits }
        return AnyCancellable { [weak self] in
            self?.otherProcessCommits.withLock { $0 = nil }
        }
    }
}
