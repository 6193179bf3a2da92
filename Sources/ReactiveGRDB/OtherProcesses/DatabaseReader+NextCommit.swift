import Foundation
import GRDB
import OpenCombine

extension DatabaseReader {
    /// Returns a publisher that emits once, after the next commit of
    /// another process to the database, and completes.
    ///
    /// It reads nothing on the reader's connection: the commits are
    /// detected as `includingOtherProcesses(_:)` detects them, by a
    /// connection of their own. So it can wait while the reader can not
    /// read: the file locked by another process for longer than the busy
    /// timeout, or a hot journal that only the next writer can roll back.
    /// An observation that failed then starts again after it.
    ///
    /// For example:
    ///
    /// ```swift
    /// let cancellable = dbQueue.nextOtherProcessCommit()
    ///     .sink(
    ///         receiveCompletion: { _ in },
    ///         receiveValue: { print("Another process committed") })
    /// ```
    ///
    /// - parameter commits: How the commits are detected: by default,
    ///   with inotify's file events.
    /// - returns: A publisher that emits once, or fails with a
    ///   `DatabaseFileChangedError` if the file is deleted or replaced; it
    ///   never emits for a database in memory.
    public func nextOtherProcessCommit(
        _ commits: OtherProcessCommits = .fileEvents) -> AnyPublisher<Void, Error>
    {
        Deferred { () -> AnyPublisher<Void, Error> in
            let waiter = CommitWaiter()
            do {
                let registration = try CommitWatch.register(
                    reader: self, commits: commits,
                    listener: CommitWatch.Listener(
                        onCommit: { waiter.subject.send(()) },
                        onFailure: { error in waiter.subject.send(completion: .failure(error)) },
                        onPollingFallback: commits.onPollingFallback))
                guard let registration else {
                    return Empty(completeImmediately: false).eraseToAnyPublisher()
                }
                waiter.registration = registration
            } catch {
                return Fail(error: error).eraseToAnyPublisher()
            }
            return waiter.subject
                .first()
                .handleEvents(
                    receiveCompletion: { _ in waiter.cancel() },
                    receiveCancel: { waiter.cancel() })
                .eraseToAnyPublisher()
        }.eraseToAnyPublisher()
    }
}

/// The subject and the registration of `nextOtherProcessCommit(_:)`.
// @unchecked Sendable: the subject is thread-safe, and `registration` is
// set once, before the subscription, then only cancelled (thread-safe).
private final class CommitWaiter: @unchecked Sendable {
    let subject = PassthroughSubject<Void, Error>()
    var registration: CommitWatch.Registration?

    func cancel() {
        registration?.cancel()
    }
}
