import Foundation
import GRDB
import OpenCombine
import OpenCombineDispatch
import ReactiveGRDB

// MARK: - Live windows

extension SQLiteDataSource {
    /// A `ValueObservation` of `ViewerWindow.fetch` on the screen's reader
    /// that sees other processes' commits, paced during a burst.
    ///
    /// A transient failure (a lock held past the busy timeout, a hot journal)
    /// is sent as `.transientFailure`, and the window is read again: by the
    /// observation, which goes on, when a fetch failed; by a new observation
    /// after the next commit when it could not start, or every `retryDelay`
    /// seconds while the watch of commits can not open the file either.
    package func windows(of viewed: ViewedSource, _ request: RowWindowRequest) -> AnyPublisher<ViewerWindowRead, any Error> {
        let reports = livenessReports
        let path = self.path
        let commits = (self.commits ?? polling.commits(path: path, onPolled: { note, reason in
            let liveness = Self.unseenCommits(path: path, reason: reason) ?? ViewerLiveness(note: note, reason: reason)
            DispatchQueue.main.async { reports.subject.send(liveness) }
        })).paced(windowPacing)
        return Self.observe(viewed, request, in: self, commits: commits)
    }

    /// By the CPU in WAL mode, where a read never blocks the writer; by the
    /// writer's lock otherwise. Read from the header as each observation starts.
    package var windowPacing: RefreshPacing {
        ViewerPacing.window(isWAL: Self.isWAL(path: path))
    }

    /// Read without releasing the connections' locks.
    static func isWAL(path: String) -> Bool {
        RemoteWALFile.isInWALMode(path: path)
    }

    package func liveness() -> AnyPublisher<ViewerLiveness, Never> {
        // Merged by hand: OpenCombine has no `merge`.
        let reports = Publishers.Sequence<[AnyPublisher<ViewerLiveness, Never>], Never>(
            sequence: [livenessReports.subject.eraseToAnyPublisher(), walChecks()]
        ).flatMap { $0 }.eraseToAnyPublisher()
        // Said before the first window: the title never says `live`.
        if let unseen = Self.unseenCommits(path: path, reason: nil) {
            return reports.prepend(unseen).eraseToAnyPublisher()
        }
        guard polling.interval != nil else { return reports }
        return reports
            .prepend(ViewerLiveness(note: polling.note(path: path, reason: nil), reason: nil))
            .eraseToAnyPublisher()
    }

    /// On a network or FUSE file system, the header read at each poll: a
    /// writer that turns the file to WAL (or a file put in its place that is
    /// not) changes whether other machines' commits can be seen.
    private func walChecks() -> AnyPublisher<ViewerLiveness, Never> {
        guard let fileSystem = RemoteFileSystem(containingFileAt: path) else {
            return Empty().eraseToAnyPublisher()
        }
        let path = self.path, polling = self.polling
        let interval = polling.interval ?? OtherProcessCommits.fallbackPollingInterval
        return Deferred { () -> AnyPublisher<ViewerLiveness, Never> in
            let subject = PassthroughSubject<ViewerLiveness, Never>()
            // nonisolated(unsafe): sent to on the main queue only.
            nonisolated(unsafe) let mainSubject = subject
            var wasWAL = RemoteWALFile(path: path) != nil
            // Off the main queue: a stalled mount stalls this read only.
            let queue = DispatchQueue(label: "livetable.viewer.walChecks")
            let timer = queue.ocombine.schedule(after: queue.ocombine.now, interval: .milliseconds(Int(interval * 1000))) {
                let unseen = Self.unseenCommits(path: path, reason: nil)
                guard (unseen != nil) != wasWAL else { return }
                wasWAL = unseen != nil
                let reason = fileSystem.description
                let liveness = unseen ?? ViewerLiveness(note: polling.note(path: path, reason: reason), reason: reason)
                DispatchQueue.main.async { mainSubject.send(liveness) }
            }
            return subject.handleEvents(receiveCancel: { timer.cancel() }).eraseToAnyPublisher()
        }.eraseToAnyPublisher()
    }

    /// nil for any file but a WAL file on a network or FUSE file system (or
    /// when ReactiveGRDB's `reason`, if given, is another).
    static func unseenCommits(path: String, reason: String?) -> ViewerLiveness? {
        guard let file = RemoteWALFile(path: path), reason == nil || reason == file.description else { return nil }
        return ViewerLiveness(
            note: "WAL on \(file.fileSystem.name)",
            reason: "WAL on a \(file.fileSystem): other machines' commits can't be seen; "
                + "use journal_mode=DELETE, or view it on the writer's machine",
            seesOtherMachines: false)
    }

    /// While nothing tells of the next commit.
    static let retryDelay = 1

    private static func observe(
        _ viewed: ViewedSource, _ request: RowWindowRequest, in database: SQLiteDataSource,
        commits: OtherProcessCommits) -> AnyPublisher<ViewerWindowRead, any Error>
    {
        Deferred { () -> AnyPublisher<ViewerWindowRead, any Error> in
            let ticket = ReadTicket()
            let connection = database.connections.current
            let reader = connection.reader
            return ValueObservation
                .tracking { db -> ViewerWindowRead in
                    do {
                        return try connection.run(background: false, ticket: ticket) {
                            .window(try ViewerWindow.fetch(db, viewed, request))
                        }
                    } catch where failureKind(of: error) == .transient {
                        return .transientFailure(error)
                    }
                }
                .publisher(in: reader)
                .includingOtherProcesses(commits)
                .handleEvents(receiveCancel: { ticket.abandon() })
                .catch { error -> AnyPublisher<ViewerWindowRead, any Error> in
                    if error is DatabaseFileChangedError {
                        // Opened again by the next open, even if the file
                        // at the path looks the same by then.
                        database.connections.markStale(reader)
                    }
                    guard failureKind(of: error) == .transient else {
                        return Fail(error: error).eraseToAnyPublisher()
                    }
                    return Just(ViewerWindowRead.transientFailure(error))
                        .setFailureType(to: (any Error).self)
                        .append(database.reader.nextOtherProcessCommit(commits)
                            // The watch could not open the file either (locked,
                            // a hot journal): tried again in a second.
                            .catch { _ in
                                Just(()).delay(for: .seconds(retryDelay), scheduler: DispatchQueue.main.ocombine)
                            }
                            .setFailureType(to: (any Error).self)
                            .flatMap { observe(viewed, request, in: database, commits: commits) })
                        .eraseToAnyPublisher()
                }
                .eraseToAnyPublisher()
        }.eraseToAnyPublisher()
    }
}

/// From the window observations that poll because inotify is not available.
// @unchecked Sendable: its subject is sent to and subscribed on the main queue only.
final class LivenessReports: @unchecked Sendable {
    let subject = PassthroughSubject<ViewerLiveness, Never>()
}
