import Foundation
import GRDB
import OpenCombine
import ReactiveGRDB
import Synchronization

extension AppDatabase {
    /// Makes the Hall of Fame observations see the changes that other
    /// processes commit, with ReactiveGRDB's
    /// `includingOtherProcesses(_:)`.
    ///
    /// GRDB sees the changes of its own connections only: a player inserted
    /// by another livetable, or by `sqlite3`, would stay off screen until
    /// the app's next own write. With this call, the observations that
    /// `observeHallOfFame(_:scheduling:)` returns fetch a fresh value after
    /// each commit of another process, within a few milliseconds, and
    /// never wait for the app's own writes to do so.
    ///
    /// Call it before starting the observations: it applies to the
    /// observations started while the returned cancellable lives.
    ///
    /// For example:
    ///
    /// ```swift
    /// let appDatabase = try AppDatabase.open(path: "/tmp/players.sqlite")
    /// let externalChanges = appDatabase.observeExternalChanges()
    /// let cancellable = appDatabase.observeHallOfFame(request).sink(
    ///     receiveCompletion: { _ in },
    ///     receiveValue: { hallOfFame in print(hallOfFame.playerCount) })
    /// ```
    ///
    /// - parameter polling: The checks at an interval asked for, if any,
    ///   besides inotify's file events.
    /// - parameter onPollingFallback: Called once, on an unspecified
    ///   queue, with a one-line reason, if the database is checked every
    ///   `OtherProcessCommits.fallbackPollingInterval` (or the interval of
    ///   `polling`): inotify is not available, or the file is on a network
    ///   or FUSE file system (`RemoteFileSystem`).
    /// - returns: A cancellable that stops applying to new observations
    ///   when it is cancelled or deinitialized.
    public func observeExternalChanges(
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
