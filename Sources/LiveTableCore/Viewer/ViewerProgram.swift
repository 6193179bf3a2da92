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
    public func start() -> [AppCommand<ViewerMessage, ViewerSlot>] {
        var commands: [AppCommand<ViewerMessage, ViewerSlot>] = [
            .observe(slot: .pollingReports, pollingReports.subject.eraseToAnyPublisher()),
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
    public func command(for effect: ViewerEffect) -> AppCommand<ViewerMessage, ViewerSlot> {
        let database = self.database
        switch effect {
        case .listTables:
            // The names at once (one query); their counts follow
            // (`countTables`).
            return .observe(slot: .tables, read(background: true, { db in
                try TableSchema.list(db).map { PickerEntry(name: $0.name, kind: $0.kind, count: nil, isCounting: true) }
            }, ViewerMessage.tablesListed, { error, _ in ViewerMessage.tablesFailed(error) }))
        case let .retryListing(seconds):
            return .observe(slot: .tables, Just(ViewerMessage.retryListing)
                .delay(for: .nanoseconds(Int(max(0, seconds) * 1e9)), scheduler: DispatchQueue.main.ocombine)
                .eraseToAnyPublisher())
        case let .countTables(from, names, kinds):
            return .observe(
                slot: .read(.tableCounts),
                Self.countTables(from: from, names: names, kinds: kinds, in: database))
        case let .open(target, sortColumn, descending):
            return .observe(slot: .read(.open), read(background: false, { db in
                try ViewedSource.open(target, sortColumn: sortColumn, descending: descending, in: db)
            }, ViewerMessage.opened, ViewerMessage.openFailed))
        case let .observe(viewed, request):
            let reports = pollingReports
            let commits = (self.commits ?? polling.commits(path: database.path, onPolled: { note, reason in
                DispatchQueue.main.async { reports.subject.send(.commitsPolled(note: note, reason: reason)) }
            })).paced(ViewerPacing.window)
            // One window at a time: a new window replaces the old one, and
            // interrupts its read if it runs.
            return .observe(slot: .read(.window), Self.observe(viewed, request, in: database, commits: commits))
        case let .stop(read):
            // Cancelled: its ticket interrupts the read that runs.
            return .observe(slot: .read(read), Empty<ViewerMessage, Never>().eraseToAnyPublisher())
        case let .count(source):
            return .observe(slot: .read(.count), Self.count(source, in: database))
        case let .search(viewed, search):
            // On the background reader: a search without an index reads
            // rows until one matches, and must not hold up the windows.
            return .observe(slot: .read(.search), read(background: true, { db in
                try search.run(db, viewed.source, viewed.ordering)
            }, ViewerMessage.searched, { error, _ in ViewerMessage.searchFailed(error) }))
        case let .filter(viewed, expression):
            return .observe(slot: .read(.filter), read(background: true, { db in
                try viewed.filtered(expression, in: db)
            }, { ViewerMessage.filtered($0.viewed, scannedRows: $0.scannedRows) },
            { error, _ in ViewerMessage.filterFailed(error) }))
        case let .pauseCounting(seconds):
            return .observe(slot: .read(.count), Just(ViewerMessage.countPauseEnded)
                .delay(for: .nanoseconds(Int(max(0, seconds) * 1e9)), scheduler: DispatchQueue.main.ocombine)
                .eraseToAnyPublisher())
        case let .highlightTimer(deadline):
            // One timer: the slot cancels the previous one.
            return .timer(slot: .highlightTimer, at: deadline, message: ViewerMessage.highlightTick)
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

    /// One read, off the main thread, whose value or error (and what kind
    /// of failure it is) comes back as a message on the main queue. A
    /// read whose subscription is cancelled (replaced in its slot, or
    /// stopped) is interrupted if it runs.
    private func read<T: Sendable>(
        background: Bool,
        _ value: @escaping @Sendable (Database) throws -> T,
        _ success: @escaping (T) -> ViewerMessage,
        _ failure: @escaping (String, ViewerFailureKind) -> ViewerMessage) -> AnyPublisher<ViewerMessage, Never>
    {
        let database = self.database
        return Deferred { () -> AnyPublisher<ViewerMessage, Never> in
            let ticket = ReadTicket()
            return (background ? database.backgroundReader : database.reader)
                .readPublisher { db in try database.run(background: background, ticket: ticket) { try value(db) } }
                .handleEvents(receiveCancel: { ticket.abandon() })
                .map(success)
                .catch { error in Just(failure(Self.describe(error, database), ViewerFailureKind(error))) }
                .eraseToAnyPublisher()
        }.eraseToAnyPublisher()
    }

    /// Counts the picker's entries from index `from`, named `names`, one
    /// read each on the background reader, each within
    /// `PickerEntry.countTimeLimit`: a slow view counts as nil ("?"). After
    /// each count, the counts so far come back in `.tablesCounted`: the
    /// loop keeps the latest of its messages, which holds all before it.
    nonisolated private static func countTables(
        from: Int, names: [String], kinds: [TableSchema.Kind], in database: ViewerDatabase
    ) -> AnyPublisher<ViewerMessage, Never>
    {
        Deferred { () -> AnyPublisher<ViewerMessage, Never> in
            let counting = TableCounting()
            return counting.subject
                .handleEvents(
                    receiveCancel: { counting.cancel() },
                    receiveRequest: { _ in
                        guard counting.start() else { return }
                        countQueue.async {
                            var counts: [RowCount?] = []
                            var lastSent = ContinuousClock.now
                            for (name, kind) in zip(names, kinds) {
                                guard let ticket = counting.nextTicket() else { return }
                                counts.append(try? database.read(background: true, ticket: ticket) { db in
                                    try RowSource.table(TableSchema.named(name, kind: kind, in: db)).quickRowCount(db)
                                })
                                // The counts so far, every 50 ms and at the
                                // end: many small tables make few messages.
                                if counts.count == names.count || ContinuousClock.now - lastSent >= .milliseconds(50) {
                                    counting.send(.tablesCounted(from: from, names: names, counts: counts))
                                    lastSent = ContinuousClock.now
                                }
                            }
                            counting.finish()
                        }
                    })
                .receive(on: DispatchQueue.main.ocombine)
                .eraseToAnyPublisher()
        }.eraseToAnyPublisher()
    }

    /// The windows of `request` on `viewed`, as they change: a
    /// `ValueObservation` on the screen's reader, which sees the commits of
    /// other processes. Its read is interrupted when it is cancelled.
    ///
    /// A transient failure (a lock held longer than the busy timeout, a hot
    /// journal) is sent as `.windowFailed(_, .transient)`, and the window is
    /// read again on the next commit: by the observation, which goes on,
    /// when its fetch failed; by a new observation, after the next commit
    /// (`nextOtherProcessCommit`), when the observation could not start,
    /// or every `retryDelay` seconds while the watch of commits can not
    /// open the file either.
    nonisolated private static func observe(
        _ viewed: ViewedSource, _ request: RowWindowRequest, in database: ViewerDatabase,
        commits: OtherProcessCommits) -> AnyPublisher<ViewerMessage, Never>
    {
        Deferred { () -> AnyPublisher<ViewerMessage, Never> in
            let ticket = ReadTicket()
            return ValueObservation
                .tracking { db -> WindowRead in
                    do {
                        return try database.run(background: false, ticket: ticket) {
                            .window(try ViewerWindow.fetch(db, viewed, request))
                        }
                    } catch where ViewerFailureKind(error) == .transient {
                        return .failed(Self.describe(error, database))
                    }
                }
                .publisher(in: database.reader)
                .includingOtherProcesses(commits)
                .handleEvents(receiveCancel: { ticket.abandon() })
                // Stamped as it arrives: `viewerUpdate` reads no clock.
                .map { read -> ViewerMessage in
                    switch read {
                    case let .window(window): return .window(window, now: .now)
                    case let .failed(error): return .windowFailed(error, .transient)
                    }
                }
                .catch { error -> AnyPublisher<ViewerMessage, Never> in
                    let kind = ViewerFailureKind(error)
                    let failed = Just(ViewerMessage.windowFailed(Self.describe(error, database), kind))
                    guard kind == .transient else { return failed.eraseToAnyPublisher() }
                    return failed
                        .append(database.reader.nextOtherProcessCommit(commits)
                            // The watch of commits could not open the file
                            // either (locked, or a hot journal): tried again
                            // in a second, as the watch itself would.
                            .catch { _ in
                                Just(()).delay(for: .seconds(Self.retryDelay), scheduler: DispatchQueue.main.ocombine)
                            }
                            .flatMap { observe(viewed, request, in: database, commits: commits) })
                        .eraseToAnyPublisher()
                }
                .eraseToAnyPublisher()
        }.eraseToAnyPublisher()
    }

    /// How long a failed window waits before it is read again, while
    /// nothing tells of the next commit: 1 s.
    nonisolated static let retryDelay = 1

    /// Where counts run: a serial queue, so that the value of a count
    /// reaches the main queue before its completion (on a concurrent queue
    /// the completion could overtake it, and the count would be lost).
    nonisolated private static let countQueue = DispatchQueue(label: "livetable.viewer.count", qos: .utility)

    /// Counts the rows of `source` on the background reader, in short
    /// reads, off the main thread; the count, and how long it took, come
    /// back on the main queue.
    /// Nonisolated: its closure runs on a global queue, not the main actor.
    nonisolated private static func count(_ source: RowSource, in database: ViewerDatabase) -> AnyPublisher<ViewerMessage, Never> {
        Deferred { () -> AnyPublisher<ViewerMessage, Never> in
            // Left (another count, another source): interrupted.
            let ticket = ReadTicket()
            return Just(())
                .receive(on: countQueue.ocombine)
                .map { _ -> ViewerMessage in
                    let start = ContinuousClock.now
                    do {
                        let count = try source.countRows(
                            chunk: RowSource.countChunk,
                            read: { body in try database.read(background: true, ticket: ticket, body) },
                            betweenReads: {})
                        let (seconds, attoseconds) = (ContinuousClock.now - start).components
                        return .counted(count.value, isExact: count.isExact,
                                        seconds: Double(seconds) + Double(attoseconds) * 1e-18)
                    } catch {
                        return .countFailed(Self.describe(error, database))
                    }
                }
                .handleEvents(receiveCancel: { ticket.abandon() })
                .receive(on: DispatchQueue.main.ocombine)
                .eraseToAnyPublisher()
        }.eraseToAnyPublisher()
    }

    /// An error in one line, naming the file for SQLite's errors.
    nonisolated private static func describe(_ error: any Error, _ database: ViewerDatabase) -> String {
        if let error = error as? SourceError {
            return error.description
        }
        if error is DatabaseError {
            return SourceError(reading: database.path, error: error).description
        }
        return error.oneLineDescription
    }
}

/// A value of the window observation: a window, or why it can not be read
/// for now (a transient failure, after which the observation goes on).
private enum WindowRead: Sendable {
    case window(ViewerWindow)
    case failed(String)
}

/// The counts of one `countTables` effect: its subject, and the ticket of
/// the count that runs, abandoned when the effect is cancelled.
// @unchecked Sendable: `isCancelled` and `ticket` are only accessed with
// `lock` held; the subject is thread-safe.
private final class TableCounting: @unchecked Sendable {
    let subject = PassthroughSubject<ViewerMessage, Never>()
    private let lock = NSLock()
    private var isCancelled = false
    private var ticket: ReadTicket?
    private var isStarted = false

    /// True the first time only: the counts start at the first demand.
    func start() -> Bool {
        lock.withLock {
            defer { isStarted = true }
            return !isStarted
        }
    }

    /// The ticket of the next count, nil once cancelled.
    func nextTicket() -> ReadTicket? {
        lock.withLock {
            guard !isCancelled else { return nil }
            let ticket = ReadTicket(timeLimit: PickerEntry.countTimeLimit)
            self.ticket = ticket
            return ticket
        }
    }

    func cancel() {
        let ticket = lock.withLock {
            isCancelled = true
            return self.ticket
        }
        ticket?.abandon()
    }

    func send(_ message: ViewerMessage) {
        subject.send(message)
    }

    func finish() {
        subject.send(completion: .finished)
    }
}

/// The reports of the window observations that poll the file because
/// inotify is not available.
// @unchecked Sendable: its subject is sent to and subscribed on the main queue only.
private final class PollingReports: @unchecked Sendable {
    let subject = PassthroughSubject<ViewerMessage, Never>()
}

/// The viewer's long-lived subscriptions, each replaced by the next in its
/// slot: one read of each kind (`ViewerRead`) at a time.
public enum ViewerSlot: Hashable, Sendable {
    /// The polling fallback's reports of the window observations.
    case pollingReports
    /// The list of tables, or the wait before it is listed again.
    case tables
    /// A read of the view: the window, the count, a search…
    case read(ViewerRead)
    /// The one timer of the fading highlights.
    case highlightTimer
}
