import Foundation
import OpenCombine
import ReactiveGRDB

// MARK: - Live windows

extension PostgresDataSource {
    /// The windows' pacing during a burst: 4% of the time (a slow sort's
    /// window waits 24 times its read), up to 0.1 s between reads. With
    /// its counts (`PostgresCountPacing`), a viewer then stays within 5%
    /// of a server core. A lone commit is read at once, as on SQLite.
    static let windowPacing = RefreshPacing.dutyCycle(0.04, minimumPause: 0.002, burstPause: 0.1)

    /// The windows of `request` on `viewed`, as they change: read off the
    /// main thread at subscription, and again each time the cluster's
    /// commit token moves (`PostgresCommitWatch`: the WAL position polled
    /// every `Settings.pollInterval`, a notification with
    /// `Settings.listenChannel`), paced during a burst of commits
    /// (`windowPacing`); delivered on the main queue.
    /// Cancelling the subscription cancels the read that runs on the
    /// server.
    ///
    /// The server unreachable (restarted, the network down, the session
    /// ended by `idle_session_timeout` or an administrator) is a
    /// `.transientFailure`, at once from the watch and from each read that
    /// fails, and so is permission denied (a GRANT, which is a commit,
    /// ends it); the publisher goes on, and the window is read again once
    /// the watch has connected again (with backoff), at the next commit,
    /// or a second later: the same request, anchored on the selected
    /// row's position, so that the selection stays on its row.
    ///
    /// The table's schema is checked against the catalog at most once a
    /// `Settings.schemaCheckInterval`, unless a window shows or meets a
    /// change, and once more at most that long after a read that skipped
    /// it (`PostgresSchemaChecks`: one such check waits at a time).
    ///
    /// All the windows of a database share one watch, and its connection:
    /// a window replaced at each scroll keeps it.
    ///
    /// For example:
    ///
    /// ```swift
    /// let cancellable = database.windows(of: viewed, request).sink(
    ///     receiveCompletion: { print($0) },
    ///     receiveValue: { read in print(read) })
    /// ```
    public func windows(of viewed: ViewedSource, _ request: RowWindowRequest) -> AnyPublisher<ViewerWindowRead, any Error> {
        let transientFailure: @Sendable (any Error) -> ViewerWindowRead? = { [self] error in
            failureKind(of: error) == .transient ? .transientFailure(error) : nil
        }
        return commits.reads(
            pacing: Self.windowPacing,
            read: { [self] ticket in WindowRead.window(try pacedWindow(viewed, request, ticket: ticket)) },
            transientFailure: { error in transientFailure(error).map(WindowRead.failure) })
            .map { [self] read -> AnyPublisher<ViewerWindowRead, any Error> in
                switch read {
                case let .window(paced):
                    let now = Just(ViewerWindowRead.window(paced.window)).setFailureType(to: (any Error).self)
                    guard !paced.isChecked else { return now.eraseToAnyPublisher() }
                    // Replaced by the next read, if one comes first.
                    return now.append(laterCheck(
                        viewed, request, shown: paced.window.viewed, transientFailure: transientFailure))
                        .eraseToAnyPublisher()
                case let .failure(failure):
                    return Just(failure).setFailureType(to: (any Error).self).eraseToAnyPublisher()
                }
            }
            .switchToLatest()
            .eraseToAnyPublisher()
    }

    /// What a read of `windows(of:_:)` gives: a window, told whether its
    /// schema was checked, or a transient failure.
    private enum WindowRead: Sendable {
        case window(PacedWindow)
        case failure(ViewerWindowRead)
    }

    /// How commits are seen, for the title, while a window shows: "polled
    /// every 0.05 s", "on standby, polled every 0.05 s", "re-read every
    /// 0.05 s: no commit token" (with the reason: the functions are
    /// missing or not permitted), "+ LISTEN tracks".
    ///
    /// For example:
    ///
    /// ```swift
    /// let cancellable = database.liveness().sink { print($0.note) }
    /// ```
    public func liveness() -> AnyPublisher<ViewerLiveness, Never> {
        commits.liveness()
    }
}
