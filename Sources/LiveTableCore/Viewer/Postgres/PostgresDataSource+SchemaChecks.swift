import Foundation
import OpenCombine
import OpenCombineDispatch
import PostgresClient
import Synchronization

// MARK: - The schema check of the live windows, paced

/// What the live windows of a `PostgresDataSource` know of the schema of
/// the source on screen: the source as the catalog last described it
/// (`PostgresDataSource.current(_:_:)`), when, and the columns (names and
/// type OIDs) its window statements returned then.
///
/// PostgreSQL has no cheap schema version: the check is a query of the
/// catalog (`schemaVersionSQL`), planned and run at every commit, that
/// cost the server about as much as all the window's other statements
/// together (0.4–0.7 ms of 0.85–1.2 ms a read, pg_stat_statements with
/// planning, on a loaded test machine). So a window read checks the
/// schema only
/// - when the last check is older than `interval` (1 s), or was of
///   another source;
/// - when a window statement returns other columns than after the last
///   check: libpq describes every result for free, and a column retyped
///   (`ALTER COLUMN … TYPE`) keeps its name but not its type;
/// - when a window statement is refused: a column or the table dropped or
///   renamed (42703, 42P01), a key bound back that no longer reads as
///   its column's type.
///
/// And a window read without the check is followed, at most `interval`
/// later, by one with it, unless a checked read came first
/// (`PostgresDataSource.windows(of:_:)`): what no window statement shows (a
/// column added, an index or the identity changed, the table replaced by
/// one of the same columns) is seen within that time of the last commit,
/// even when no other commit follows. One such check waits a source: the
/// reads of a burst of commits that come while it waits make it read
/// their request (the latest) instead of waiting each for its own: a
/// wait on a dispatch queue can not be cancelled, and one a read piled
/// up on the queue, its read replaced or not.
final class PostgresSchemaChecks: Sendable {
    /// A check: the source asked for, as the catalog described it, when,
    /// and the shown columns of the window statements of that read.
    private struct Check {
        var asked: ViewedSource
        var current: ViewedSource
        var time: ContinuousClock.Instant
        var columns: Set<[PostgresColumn]>
    }

    /// The longest time a window read trusts the last check.
    let interval: TimeInterval
    private let state = Mutex(State())

    /// The last check, and the waits for later ones.
    private struct State {
        var last: Check?
        var checks = 0
        /// The source of each scheduled wait for a later check, and the check
        /// it makes when it ends: the latest asked for, nil when cancelled.
        var later: [(source: ViewedSource, check: PostgresLaterCheck?)] = []
        var laterWaits = 0
    }

    init(interval: TimeInterval) {
        self.interval = interval
    }

    /// The number of checks so far (the tests count them).
    var count: Int {
        state.withLock { $0.checks }
    }

    /// The number of waits for a later check scheduled so far (the tests
    /// count them).
    var laterWaitCount: Int {
        state.withLock { $0.laterWaits }
    }

    /// Makes `check` the later check of `source`: true when no wait for
    /// one is scheduled, and the caller schedules it; false when one is,
    /// which makes `check` when it ends.
    func awaitLater(_ check: PostgresLaterCheck, of source: ViewedSource) -> Bool {
        state.withLock { state in
            if let index = state.later.firstIndex(where: { $0.source == source }) {
                state.later[index].check = check
                return false
            }
            state.later.append((source, check))
            state.laterWaits += 1
            return true
        }
    }

    /// Withdraws `check`, cancelled, unless a later one replaced it.
    func withdraw(_ check: PostgresLaterCheck, of source: ViewedSource) {
        state.withLock { state in
            guard let index = state.later.firstIndex(where: { $0.source == source }), state.later[index].check === check else { return }
            state.later[index].check = nil
        }
    }

    /// The later check of `source` that its wait, ended, makes: nil when
    /// it was cancelled. A read without the check schedules a new wait
    /// from now on.
    func laterDue(_ source: ViewedSource) -> PostgresLaterCheck? {
        state.withLock { state in
            guard let index = state.later.firstIndex(where: { $0.source == source }) else { return nil }
            return state.later.remove(at: index).check
        }
    }

    /// The source to read `viewed` with, as last checked, and the shown
    /// columns its statements should return, when that check is recent;
    /// nil when the schema should be checked.
    func recent(_ viewed: ViewedSource, at now: ContinuousClock.Instant) -> (current: ViewedSource, columns: Set<[PostgresColumn]>)? {
        state.withLock { state in
            guard let last = state.last, viewed == last.asked || viewed == last.current,
                  now - last.time < .nanoseconds(Int64(interval * 1e9))
            else { return nil }
            return (last.current, last.columns)
        }
    }

    /// The source that a check of `viewed` starts from: the source as
    /// the last check of it found it, or `viewed` itself. A live window
    /// keeps asking for the source it was opened with: after a change of
    /// the schema, checking that one would find it changed at every
    /// check, and read the whole source again from the catalog each time.
    func latest(_ viewed: ViewedSource) -> ViewedSource {
        state.withLock { state in
            guard let last = state.last, viewed == last.asked || viewed == last.current else { return viewed }
            return last.current
        }
    }

    /// Notes that a check started at `time` found the source `current`
    /// as last checked: its columns stand.
    func confirmed(_ current: ViewedSource, at time: ContinuousClock.Instant) {
        state.withLock { state in
            state.checks += 1
            if state.last?.current == current { state.last?.time = time }
        }
    }

    /// Notes a check started at `time`.
    func checked(_ asked: ViewedSource, as current: ViewedSource, columns: Set<[PostgresColumn]>, at time: ContinuousClock.Instant) {
        state.withLock { state in
            state.checks += 1
            state.last = Check(asked: asked, current: current, time: time, columns: columns)
        }
    }
}

/// A later check (`PostgresDataSource.laterCheck`): the window read again
/// when the schema changed since a read without the check showed
/// `shown`, and its result, for the subscriber.
// @unchecked Sendable: its constants are set before it is shared, and
// Future's promise takes its one result from any thread, under its lock.
final class PostgresLaterCheck: @unchecked Sendable {
    let request: RowWindowRequest
    let shown: ViewedSource
    let ticket = ReadTicket()
    /// The window read again, nil when the schema did not change.
    let result: Future<ViewerWindowRead?, any Error>
    private let promise: Future<ViewerWindowRead?, any Error>.Promise

    init(request: RowWindowRequest, shown: ViewedSource) {
        self.request = request
        self.shown = shown
        var promise: Future<ViewerWindowRead?, any Error>.Promise?
        result = Future { promise = $0 }
        // Future calls its closure in its init.
        self.promise = promise ?? { _ in }
    }

    /// Sends the check's result.
    func finish(_ result: Result<ViewerWindowRead?, any Error>) {
        promise(result)
    }
}

/// The shown columns of the statements of one read (`PostgresReader`).
final class PostgresShownColumns {
    var seen: Set<[PostgresColumn]> = []
}

extension PostgresDataSource {
    /// A window read by `windows(of:_:)`, and whether its source was
    /// checked against the catalog in that read.
    struct PacedWindow: Sendable {
        var window: ViewerWindow
        var isChecked: Bool
    }

    /// The window `request` of `viewed`, its schema checked as
    /// `PostgresSchemaChecks` says: without the check when the last one is
    /// recent, unless the window shows or meets a change; with it
    /// otherwise (`fetchWindow`).
    func pacedWindow(_ viewed: ViewedSource, _ request: RowWindowRequest, ticket: ReadTicket) throws -> PacedWindow {
        // A query has no schema to check: its text names what it reads.
        if !viewed.source.isQuery, let recent = schemaChecks.recent(viewed, at: .now) {
            do {
                let read = try screen.read(ticket: ticket, typedSQL: viewed.source.holdsTypedSQL) { reader in
                    try Self.window(recent.current, request, reader)
                }
                // Other columns, or other types: read it again, checked.
                if read.shown.isSubset(of: recent.columns) { return PacedWindow(window: read.window, isChecked: false) }
            } catch let error as PostgresError where error.kind == .query {
                // Refused, maybe for a change of the schema since the
                // check: the checked read says which, or fails alike.
            }
        }
        return PacedWindow(window: try fetchWindow(viewed, request, ticket: ticket), isChecked: true)
    }

    /// The window `request` of `viewed`, in one read of the screen's
    /// connection (one snapshot), checked: the source as the catalog
    /// describes it now (`current(_:_:)`, one read of the catalog), read
    /// again when its schema changed, then the window of it, the anchored
    /// row followed by its identity. The check is noted for the live
    /// windows' next reads (`PostgresSchemaChecks`), which `windows(of:_:)`
    /// paces (`pacedWindow`).
    ///
    /// For example:
    ///
    /// ```swift
    /// let window = try database.fetchWindow(viewed, request, ticket: ReadTicket())
    /// ```
    func fetchWindow(_ viewed: ViewedSource, _ request: RowWindowRequest, ticket: ReadTicket) throws -> ViewerWindow {
        let start = ContinuousClock.now
        let latest = schemaChecks.latest(viewed)
        let read = try screen.read(ticket: ticket, typedSQL: viewed.source.holdsTypedSQL) { reader in
            try Self.window(Self.current(latest, reader), request, reader)
        }
        noteCheck(viewed, read, at: start)
        return read.window
    }

    /// The window `request` of `viewed` (the source as the catalog
    /// describes it), read by `reader`, and the shown columns of its
    /// statements: every window of a `PostgresDataSource` is read here,
    /// checked or not.
    private static func window(
        _ viewed: ViewedSource, _ request: RowWindowRequest, _ reader: PostgresReader
    ) throws -> (window: ViewerWindow, shown: Set<[PostgresColumn]>)
    {
        let shown = PostgresShownColumns()
        let window = try ViewerWindow.fetch(reader.noting(shown), viewed, request) { $0 }
        return (window, shown.seen)
    }

    /// Notes a check of `viewed`, started at `start`, that read `read`.
    private func noteCheck(
        _ viewed: ViewedSource, _ read: (window: ViewerWindow, shown: Set<[PostgresColumn]>),
        at start: ContinuousClock.Instant)
    {
        guard !viewed.source.isQuery else { return }
        schemaChecks.checked(viewed, as: read.window.viewed, columns: read.shown, at: start)
    }

    /// Where the later checks wait and read.
    private static let laterCheckQueue = DispatchQueue(label: "livetable.postgres.schema-checks", qos: .userInitiated)

    /// The schema check, at most `schemaChecks.interval` after a read
    /// without it that showed `shown`, and the window read again with it
    /// only when the schema changed meanwhile (the rows did not, or the
    /// commit that changed them made a newer read, which cancels this
    /// one): sent only then. A failure is sent as the reads send it
    /// (`transientFailure`, or the end).
    ///
    /// One wait a source (`PostgresSchemaChecks.awaitLater`): a later
    /// check asked for while one waits replaces it, and is made when that
    /// wait ends.
    func laterCheck(
        _ viewed: ViewedSource, _ request: RowWindowRequest, shown: ViewedSource,
        transientFailure: @escaping @Sendable (any Error) -> ViewerWindowRead?
    ) -> AnyPublisher<ViewerWindowRead, any Error>
    {
        Deferred { [self] () -> AnyPublisher<ViewerWindowRead, any Error> in
            let check = PostgresLaterCheck(request: request, shown: shown)
            if schemaChecks.awaitLater(check, of: viewed) { scheduleLaterCheck(of: viewed) }
            return check.result
                .compactMap { $0 }
                .catch { error -> AnyPublisher<ViewerWindowRead, any Error> in
                    guard let read = transientFailure(error) else { return Fail(error: error).eraseToAnyPublisher() }
                    return Just(read).setFailureType(to: (any Error).self).eraseToAnyPublisher()
                }
                .handleEvents(receiveCancel: { [self] in
                    schemaChecks.withdraw(check, of: viewed)
                    check.ticket.abandon()
                })
                .receive(on: DispatchQueue.main.ocombine)
                .eraseToAnyPublisher()
        }.eraseToAnyPublisher()
    }

    /// Waits `schemaChecks.interval`, then makes the later check of
    /// `viewed` asked for last, unless it was cancelled.
    private func scheduleLaterCheck(of viewed: ViewedSource) {
        Self.laterCheckQueue.asyncAfter(deadline: .now() + schemaChecks.interval) { [self] in
            guard let check = schemaChecks.laterDue(viewed) else { return }
            check.finish(Result { try laterCheckRead(viewed, check) })
        }
    }

    /// The read of a later check: the catalog, and the window only when
    /// the source changed, read from what the catalog said (one read).
    private func laterCheckRead(_ viewed: ViewedSource, _ check: PostgresLaterCheck) throws -> ViewerWindowRead? {
        let start = ContinuousClock.now
        let typedSQL = viewed.source.holdsTypedSQL
        let read = try screen.read(ticket: check.ticket, typedSQL: typedSQL) { reader -> (window: ViewerWindow, shown: Set<[PostgresColumn]>)? in
            // From what the window showed, as last checked.
            let current = try Self.current(check.shown, reader)
            return current == check.shown ? nil : try Self.window(current, check.request, reader)
        }
        guard let read else {
            schemaChecks.confirmed(check.shown, at: start)
            return nil
        }
        noteCheck(viewed, read, at: start)
        return .window(read.window)
    }
}
