import Foundation
import OpenCombine
import ReactiveGRDB

// MARK: - Live windows

extension PostgresDataSource {
    /// During a burst, 4% of the time (a slow sort's window waits 24 times
    /// its read), up to 0.1 s between reads: with its counts, a viewer stays
    /// within 5% of a server core. A lone commit is read at once.
    static let windowPacing = RefreshPacing.dutyCycle(0.04, minimumPause: 0.002, burstPause: 0.1)

    /// Read again each time the commit token moves (`PostgresCommitWatch`),
    /// paced during a burst. The server unreachable, and permission denied
    /// (a GRANT, a commit, ends it), are a `.transientFailure`: the window is
    /// read again, anchored on the selected row, once the watch reconnects,
    /// at the next commit or a second later. The schema is checked as
    /// `PostgresSchemaChecks` paces it.
    package func windows(of viewed: ViewedSource, _ request: RowWindowRequest) -> AnyPublisher<ViewerWindowRead, any Error> {
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
                    firstScreen.openAfterTheDraw()
                    let now = Just(ViewerWindowRead.window(paced.window)).setFailureType(to: (any Error).self)
                    guard !paced.isChecked else { return now.eraseToAnyPublisher() }
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

    private enum WindowRead: Sendable {
        case window(PacedWindow)
        case failure(ViewerWindowRead)
    }

    package func liveness() -> AnyPublisher<ViewerLiveness, Never> {
        commits.liveness()
    }
}
