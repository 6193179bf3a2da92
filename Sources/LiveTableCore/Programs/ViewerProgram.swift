import Foundation
import GRDB
import OpenCombine
import OpenCombineDispatch
import ReactiveGRDB

/// The viewer's screen, as the app loop runs it: `ViewerState`,
/// `viewerUpdate(_:_:)`, `viewerRender(_:)`, and the effects performed
/// against a `ViewerDatabase`, which is only ever read.
///
/// The window of rows is a `ValueObservation` of `ViewerWindow.fetch` on
/// the screen's reader, which also sees other processes' commits
/// (`includingOtherProcesses()`), its fetches paced during a burst of
/// commits (`ViewerPacing.window`); it fetches off the main thread, and
/// delivers on the main queue. The row count and the list of tables are
/// read on the background reader, so that a long count never holds up a
/// window. The count is made of short reads (`RowSource.countRows(in:chunk:)`)
/// and paced the same way (`ViewerPacing.count`), so that a writer of a
/// rollback-journal file is not kept waiting.
///
/// For example:
///
/// ```swift
/// let loop = AppLoop(
///     program: ViewerProgram(database: database),
///     state: .initial(fileName: "app.sqlite", opened: nil, width: 80, height: 24))
/// loop.start(host: host)
/// loop.send(.resize(width: 80, height: 24)) // lists the tables
/// ```
public struct ViewerProgram: AppProgram {
    /// The file the effects read.
    public let database: ViewerDatabase
    /// How the window observation sees other processes' commits; nil for
    /// inotify's file events, and checks at the interval of `polling`
    /// (`.commitsPolled`) when asked, or where the events are not enough.
    public var commits: OtherProcessCommits?
    /// The checks at an interval asked for (`--poll`), if any.
    public var polling: CommitPolling

    /// Where the window observations report that they poll.
    private let pollingReports = PollingReports()

    /// Creates the viewer's program on a database opened read-only.
    ///
    /// - parameter database: The file to read.
    /// - parameter commits: How other processes' commits are detected:
    ///   nil for inotify's file events, the polling fallback reported.
    /// - parameter polling: The checks at an interval asked for, if any.
    public init(database: ViewerDatabase, commits: OtherProcessCommits? = nil, polling: CommitPolling = CommitPolling()) {
        self.database = database
        self.commits = commits
        self.polling = polling
    }

    // MARK: - AppProgram

    /// Listens to the polling fallback of the window observations, and
    /// says the polling asked for; the first resize starts the reads.
    public func start() -> [AppCommand<ViewerMessage>] {
        var commands: [AppCommand<ViewerMessage>] = [
            .observe(slot: "pollingReports", pollingReports.subject.eraseToAnyPublisher()),
        ]
        if polling.interval != nil {
            let note = polling.note(path: database.path, reason: nil)
            commands.append(.perform(Just(ViewerMessage.commitsPolled(note: note, reason: nil)).eraseToAnyPublisher()))
        }
        return commands
    }

    /// Applies `message` with `viewerUpdate(_:_:)`.
    public func update(_ state: inout ViewerState, _ message: ViewerMessage) -> [ViewerEffect] {
        viewerUpdate(&state, message)
    }

    /// Draws the state with `viewerRender(_:)`.
    public func render(_ state: ViewerState) -> Screen {
        viewerRender(state)
    }

    /// The publisher that performs `effect` against the database, or the
    /// host's part (suspend, quit).
    public func command(for effect: ViewerEffect) -> AppCommand<ViewerMessage> {
        let database = self.database
        switch effect {
        case .listTables:
            return .observe(slot: "tables", read(background: true, { db in
                try ViewerTable.all(db).map { table in
                    PickerEntry(name: table.name, kind: table.kind, count: try? RowSource.table(table).quickRowCount(db))
                }
            }, ViewerMessage.tablesListed, ViewerMessage.tablesFailed))
        case let .open(target, sortColumn, descending):
            return .observe(slot: "open", read(background: false, { db in
                try ViewedSource.open(target, sortColumn: sortColumn, descending: descending, in: db)
            }, ViewerMessage.opened, ViewerMessage.openFailed))
        case let .observe(viewed, request):
            let reports = pollingReports
            let commits = (self.commits ?? polling.commits(path: database.path, onPolled: { note, reason in
                DispatchQueue.main.async { reports.subject.send(.commitsPolled(note: note, reason: reason)) }
            })).paced(ViewerPacing.window)
            // One window at a time: a new window replaces the old one.
            return .observe(slot: "window", ValueObservation
                .tracking { db in try ViewerWindow.fetch(db, viewed, request) }
                .publisher(in: database.reader)
                .includingOtherProcesses(commits)
                // Stamped as it arrives: `viewerUpdate` reads no clock.
                .map { ViewerMessage.window($0, now: .now) }
                .catch { error in Just(ViewerMessage.windowFailed(Self.describe(error, database))) }
                .eraseToAnyPublisher())
        case .stopObserving:
            let nothing = Empty<ViewerMessage, Never>().eraseToAnyPublisher()
            return .observe(slot: "window", nothing)
        case let .count(source):
            return .observe(slot: "count", Self.count(source, in: database))
        case let .search(viewed, search):
            // On the background reader: a search without an index reads
            // rows until one matches, and must not hold up the windows.
            return .observe(slot: "search", read(background: true, { db in
                try search.run(db, viewed.source, viewed.ordering)
            }, ViewerMessage.searched, ViewerMessage.searchFailed))
        case let .filter(viewed, expression):
            return .observe(slot: "filter", read(background: true, { db in
                try viewed.filtered(expression, in: db)
            }, { ViewerMessage.filtered($0.viewed, scannedRows: $0.scannedRows) }, ViewerMessage.filterFailed))
        case let .pauseCounting(seconds):
            return .observe(slot: "count", Just(ViewerMessage.countPauseEnded)
                .delay(for: .nanoseconds(Int(max(0, seconds) * 1e9)), scheduler: DispatchQueue.main.ocombine)
                .eraseToAnyPublisher())
        case let .highlightTimer(deadline):
            // One timer: the slot cancels the previous one.
            return .timer(slot: "highlightTimer", at: deadline, message: ViewerMessage.highlightTick)
        case .resume:
            // Stamped as it is handled: `viewerUpdate` reads no clock.
            return .perform(Just(()).map { ViewerMessage.resumed(now: .now) }.eraseToAnyPublisher())
        case let .findDeletedRows(source, ids):
            // Each lookup runs to its end: one window's departed rows must
            // not cancel another's. A failed lookup notes nothing: the
            // window observation reports what fails in the file.
            guard let lookup = source.identityLookup else {
                return .perform(Empty().eraseToAnyPublisher())
            }
            return .perform(database.reader
                .readPublisher { db in
                    try lookup.missing(db, among: ids.map(\.values)).map(StoredKey.init)
                }
                .map { ViewerMessage.deletedRowsFound(source, $0) }
                .catch { _ in Empty<ViewerMessage, Never>() }
                .eraseToAnyPublisher())
        case .suspend:
            return .suspend
        case .quit:
            return .quit
        }
    }

    // MARK: - Reads

    /// One read, off the main thread, whose value or error comes back as a
    /// message on the main queue.
    private func read<T: Sendable>(
        background: Bool,
        _ value: @escaping @Sendable (Database) throws -> T,
        _ success: @escaping (T) -> ViewerMessage,
        _ failure: @escaping (String) -> ViewerMessage) -> AnyPublisher<ViewerMessage, Never>
    {
        let database = self.database
        return (background ? database.backgroundReader : database.reader)
            .readPublisher(value: value)
            .map(success)
            .catch { error in Just(failure(Self.describe(error, database))) }
            .eraseToAnyPublisher()
    }

    /// Where counts run: a serial queue, so that the value of a count
    /// reaches the main queue before its completion (on a concurrent queue
    /// the completion could overtake it, and the count would be lost).
    nonisolated private static let countQueue = DispatchQueue(label: "livetable.viewer.count", qos: .utility)

    /// Counts the rows of `source` on the background reader, in short
    /// reads, off the main thread; the count, and how long it took, come
    /// back on the main queue.
    /// Nonisolated: its closure runs on a global queue, not the main actor.
    nonisolated private static func count(_ source: RowSource, in database: ViewerDatabase) -> AnyPublisher<ViewerMessage, Never> {
        Just(())
            .receive(on: countQueue.ocombine)
            .map { _ -> ViewerMessage in
                let start = ContinuousClock.now
                do {
                    let count = try source.countRows(in: database.backgroundReader)
                    let (seconds, attoseconds) = (ContinuousClock.now - start).components
                    return .counted(count.value, isExact: count.isExact,
                                    seconds: Double(seconds) + Double(attoseconds) * 1e-18)
                } catch {
                    return .countFailed(Self.describe(error, database))
                }
            }
            .receive(on: DispatchQueue.main.ocombine)
        .eraseToAnyPublisher()
    }

    /// An error in one line, naming the file for SQLite's errors.
    nonisolated private static func describe(_ error: any Error, _ database: ViewerDatabase) -> String {
        if let error = error as? ViewerError {
            return error.description
        }
        if error is DatabaseError {
            return ViewerError(reading: database.path, error: error).description
        }
        return error.oneLineDescription
    }
}

/// The reports of the window observations that poll the file because
/// inotify is not available.
// @unchecked Sendable: its subject is sent to and subscribed on the main queue only.
private final class PollingReports: @unchecked Sendable {
    let subject = PassthroughSubject<ViewerMessage, Never>()
}
