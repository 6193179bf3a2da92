import Foundation
import OpenCombine
import OpenCombineDispatch
import PostgresClient
import Synchronization

// MARK: - The schema check of the live windows, paced

/// What the live windows know of the schema of the source on screen: the
/// source as the catalog last described it, when, and the columns its
/// window statements returned then.
///
/// PostgreSQL has no cheap schema version: the check is a catalog query
/// that costs the server about as much as all the window's other statements
/// (0.4–0.7 ms of 0.85–1.2 ms a read). So a window read checks the schema
/// only when the last check is older than `interval` or of another source;
/// when a statement returns other columns than then (libpq describes every
/// result for free, and `ALTER COLUMN … TYPE` keeps the name, not the
/// type); or when a statement is refused (a column or table dropped).
///
/// A read without the check is followed, within `interval`, by one with it,
/// so that what no window statement shows (a column added, an index, the
/// table replaced by a same-columned one) is seen even when no other commit
/// follows. One such wait a source: a burst's reads replace its request
/// rather than pile up waits, which a dispatch queue can not cancel.
final class PostgresSchemaChecks: Sendable {
    private struct Check {
        var asked: ViewedSource
        var current: ViewedSource
        var time: ContinuousClock.Instant
        /// nil after the open, which read the catalog but no window: the
        /// first window's columns are taken as they come.
        var columns: Set<[PostgresColumn]>?
    }

    let interval: TimeInterval
    private let state = Mutex(State())

    private struct State {
        var last: Check?
        var checks = 0
        /// The check each wait makes when it ends: the latest asked for, nil
        /// when cancelled.
        var later: [(source: ViewedSource, check: PostgresLaterCheck?)] = []
        var laterWaits = 0
    }

    init(interval: TimeInterval) {
        self.interval = interval
    }

    /// For the tests, as `laterWaitCount`.
    var count: Int {
        state.withLock { $0.checks }
    }

    var laterWaitCount: Int {
        state.withLock { $0.laterWaits }
    }

    /// True when no wait is scheduled yet, and the caller schedules it;
    /// false when one is, which makes `check` when it ends.
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

    /// Unless a later one replaced it.
    func withdraw(_ check: PostgresLaterCheck, of source: ViewedSource) {
        state.withLock { state in
            guard let index = state.later.firstIndex(where: { $0.source == source }), state.later[index].check === check else { return }
            state.later[index].check = nil
        }
    }

    func laterDue(_ source: ViewedSource) -> PostgresLaterCheck? {
        state.withLock { state in
            guard let index = state.later.firstIndex(where: { $0.source == source }) else { return nil }
            return state.later.remove(at: index).check
        }
    }

    /// The open read the catalog at `time`: the source's first window is
    /// read without another check.
    func opened(_ viewed: ViewedSource, at time: ContinuousClock.Instant) {
        state.withLock { state in
            state.last = Check(asked: viewed, current: viewed, time: time, columns: nil)
        }
    }

    /// An unchecked read's columns, taken when the open left none.
    func shows(_ columns: Set<[PostgresColumn]>, of current: ViewedSource) -> Bool {
        state.withLock { state in
            guard let last = state.last, last.current == current else { return false }
            guard let known = last.columns else {
                state.last?.columns = columns
                return true
            }
            return columns.isSubset(of: known)
        }
    }

    /// nil when the schema should be checked.
    func recent(_ viewed: ViewedSource, at now: ContinuousClock.Instant) -> (current: ViewedSource, columns: Set<[PostgresColumn]>?)? {
        state.withLock { state in
            guard let last = state.last, viewed == last.asked || viewed == last.current,
                  now - last.time < .nanoseconds(Int64(interval * 1e9))
            else { return nil }
            return (last.current, last.columns)
        }
    }

    /// The source as the last check found it: a live window keeps asking for
    /// the one it opened, which after a schema change would be found changed,
    /// and read again from the catalog, at every check.
    func latest(_ viewed: ViewedSource) -> ViewedSource {
        state.withLock { state in
            guard let last = state.last, viewed == last.asked || viewed == last.current else { return viewed }
            return last.current
        }
    }

    /// The check found the source unchanged: its columns stand.
    func confirmed(_ current: ViewedSource, at time: ContinuousClock.Instant) {
        state.withLock { state in
            state.checks += 1
            if state.last?.current == current { state.last?.time = time }
        }
    }

    func checked(_ asked: ViewedSource, as current: ViewedSource, columns: Set<[PostgresColumn]>, at time: ContinuousClock.Instant) {
        state.withLock { state in
            state.checks += 1
            state.last = Check(asked: asked, current: current, time: time, columns: columns)
        }
    }
}

/// A later check: the window read again only if the schema changed since a
/// read without the check showed `shown`.
// @unchecked Sendable: its constants are set before it is shared, and
// Future's promise takes its one result from any thread, under its lock.
final class PostgresLaterCheck: @unchecked Sendable {
    let request: RowWindowRequest
    let shown: ViewedSource
    let ticket = ReadTicket()
    /// nil when the schema did not change.
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

    func finish(_ result: Result<ViewerWindowRead?, any Error>) {
        promise(result)
    }
}

final class PostgresShownColumns {
    var seen: Set<[PostgresColumn]> = []
}

extension PostgresDataSource {
    struct PacedWindow: Sendable {
        var window: ViewerWindow
        var isChecked: Bool
    }

    /// Without the check when the last one is recent, unless the window
    /// shows or meets a change.
    func pacedWindow(_ viewed: ViewedSource, _ request: RowWindowRequest, ticket: ReadTicket) throws -> PacedWindow {
        // A query has no schema to check: its text names what it reads.
        if !viewed.source.isQuery, let recent = schemaChecks.recent(viewed, at: .now) {
            do {
                let read = try screen.read(ticket: ticket, typedSQL: viewed.source.holdsTypedSQL) { reader in
                    try Self.window(recent.current, request, reader)
                }
                if schemaChecks.shows(read.shown, of: recent.current) {
                    return PacedWindow(window: read.window, isChecked: false)
                }
            } catch let error as PostgresError where error.kind == .query {
                // Refused, maybe for a schema change: the checked read says.
            }
        }
        return PacedWindow(window: try fetchWindow(viewed, request, ticket: ticket), isChecked: true)
    }

    /// One read (one snapshot): the catalog, the source read again if its
    /// schema changed, then its window.
    func fetchWindow(_ viewed: ViewedSource, _ request: RowWindowRequest, ticket: ReadTicket) throws -> ViewerWindow {
        let start = ContinuousClock.now
        let latest = schemaChecks.latest(viewed)
        let read = try screen.read(ticket: ticket, typedSQL: viewed.source.holdsTypedSQL) { reader in
            try Self.window(Self.current(latest, reader), request, reader)
        }
        noteCheck(viewed, read, at: start)
        return read.window
    }

    /// Every window of a `PostgresDataSource` is read here, checked or not.
    private static func window(
        _ viewed: ViewedSource, _ request: RowWindowRequest, _ reader: PostgresReader
    ) throws -> (window: ViewerWindow, shown: Set<[PostgresColumn]>)
    {
        let shown = PostgresShownColumns()
        let window = try ViewerWindow.fetch(reader.noting(shown), viewed, request) { $0 }
        return (window, shown.seen)
    }

    private func noteCheck(
        _ viewed: ViewedSource, _ read: (window: ViewerWindow, shown: Set<[PostgresColumn]>),
        at start: ContinuousClock.Instant)
    {
        guard !viewed.source.isQuery else { return }
        schemaChecks.checked(viewed, as: read.window.viewed, columns: read.shown, at: start)
    }

    private static let laterCheckQueue = DispatchQueue(label: "livetable.postgres.schema-checks", qos: .userInitiated)

    /// Sent only when the schema changed meanwhile (else the rows did not,
    /// or their commit made a newer read, which cancels this one). A later
    /// check asked for while one waits replaces it.
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

    private func scheduleLaterCheck(of viewed: ViewedSource) {
        Self.laterCheckQueue.asyncAfter(deadline: .now() + schemaChecks.interval) { [self] in
            guard let check = schemaChecks.laterDue(viewed) else { return }
            check.finish(Result { try laterCheckRead(viewed, check) })
        }
    }

    /// The catalog, and the window only when the source changed (one read).
    private func laterCheckRead(_ viewed: ViewedSource, _ check: PostgresLaterCheck) throws -> ViewerWindowRead? {
        let start = ContinuousClock.now
        let typedSQL = viewed.source.holdsTypedSQL
        let read = try screen.read(ticket: check.ticket, typedSQL: typedSQL) { reader -> (window: ViewerWindow, shown: Set<[PostgresColumn]>)? in
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
