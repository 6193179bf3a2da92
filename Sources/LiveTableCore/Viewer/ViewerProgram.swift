import Foundation
import OpenCombine
import OpenCombineDispatch

/// The viewer's screen, as the app loop runs it: `ViewerState`,
/// `viewerUpdate(_:_:)`, `viewerRender(_:)`, and the effects performed
/// against a `ViewerDataSource`, which is only ever read (`ViewCommand.swift`
/// runs it in the terminal).
///
/// The program knows no database: it runs the data source's reads off the
/// main thread, one of each kind at a time (a slot), each with a
/// `ReadTicket` that interrupts it when the screen leaves it. Counts run on
/// a serial queue of their own, so that a long count never holds up a
/// window, and are paced so that a writer is not kept waiting.
package struct ViewerProgram: AppProgram {
    package let dataSource: any ViewerDataSource
    /// Where the queries typed at `:` are kept; nil: nowhere.
    package let history: HistoryFile?

    package init(dataSource: any ViewerDataSource, history: HistoryFile? = nil) {
        self.dataSource = dataSource
        self.history = history
    }

    // MARK: - AppProgram

    /// The first resize starts the reads.
    package func start() -> [AppCommand<ViewerMessage, ViewerSlot>] {
        [.observe(slot: .liveness, dataSource.liveness()
            .map { liveness in
                guard !liveness.seesOtherMachines, let reason = liveness.reason else {
                    return ViewerMessage.liveness(note: liveness.note, reason: liveness.reason)
                }
                return ViewerMessage.commitsUnseen(note: liveness.note, reason: reason)
            }
            .eraseToAnyPublisher())]
    }

    package func update(_ state: inout ViewerState, _ message: ViewerMessage) -> [ViewerEffect] {
        viewerUpdate(&state, message)
    }

    /// A commit that changed nothing on screen draws nothing.
    package func drawsSameScreen(_ state: ViewerState, as drawn: ViewerState) -> Bool {
        state == drawn
    }

    package var comparesDrawnStates: Bool { true }

    package func render(_ state: ViewerState) -> Screen {
        viewerRender(state)
    }

    package func command(for effect: ViewerEffect) -> AppCommand<ViewerMessage, ViewerSlot> {
        let dataSource = self.dataSource
        switch effect {
        case .listTables:
            // The names at once; their counts follow (`countTables`).
            return .observe(slot: .tables, read({ ticket in
                try dataSource.listTables(ticket: ticket).map {
                    PickerEntry(name: $0.name, kind: $0.kind, count: nil, isCounting: true)
                }
            }, ViewerMessage.tablesListed, { error, _ in ViewerMessage.tablesFailed(error) }))
        case let .retryOpen(seconds):
            // In the open's slot: an open asked for meanwhile replaces it.
            return Self.after(seconds, in: .read(.open), .retryOpen)
        case let .retryListing(seconds):
            return Self.after(seconds, in: .tables, .retryListing)
        case let .countTables(from, names, kinds):
            return .observe(
                slot: .read(.tableCounts),
                Self.countTables(from: from, names: names, kinds: kinds, in: dataSource))
        case let .open(target, sortColumn, descending):
            return .observe(slot: .read(.open), read({ ticket in
                try dataSource.open(target, sortColumn: sortColumn, descending: descending, ticket: ticket)
            }, ViewerMessage.opened, ViewerMessage.openFailed))
        case let .observe(viewed, request):
            // A new window replaces the old one, and interrupts its read.
            return .observe(slot: .read(.window), Self.observe(viewed, request, in: dataSource))
        case let .stop(read):
            return .observe(slot: .read(read), Empty<ViewerMessage, Never>().eraseToAnyPublisher())
        case let .count(source, estimating):
            return .observe(slot: .read(.count), Self.count(source, estimating: estimating, in: dataSource))
        case let .search(viewed, search):
            return .observe(slot: .read(.search), read({ ticket in
                try dataSource.search(search, in: viewed, ticket: ticket)
            }, ViewerMessage.searched, { error, _ in ViewerMessage.searchFailed(error) }))
        case let .filter(viewed, expression):
            return .observe(slot: .read(.filter), read({ ticket in
                try dataSource.filter(viewed, by: expression, ticket: ticket)
            }, { ViewerMessage.filtered($0.viewed, scannedRows: $0.scannedRows) },
            { error, _ in ViewerMessage.filterFailed(error) }))
        case let .pauseCounting(seconds):
            return Self.after(seconds, in: .read(.count), .countPauseEnded)
        case let .countRowsBefore(viewed, position):
            return .observe(slot: .read(.rowsBefore), Self.countRowsBefore(viewed, position, in: dataSource))
        case let .pauseCountingRowsBefore(seconds):
            return Self.after(seconds, in: .read(.rowsBefore), .rowsBeforePauseEnded)
        case let .highlightTimer(deadline):
            return .timer(slot: .highlightTimer, at: deadline, message: ViewerMessage.highlightTick)
        case .resume:
            // Stamped as it is handled: `viewerUpdate` reads no clock.
            return .perform(Just(()).map { ViewerMessage.resumed(now: .now) }.eraseToAnyPublisher())
        case let .findDeletedRows(source, ids):
            // Each lookup runs to its end: one window's departed rows must not cancel
            // another's. A failed lookup notes nothing: the window reports failures.
            guard source.identityLookup != nil else {
                return .perform(Empty().eraseToAnyPublisher())
            }
            return .perform(Self.run { try dataSource.missingRows(of: source, among: ids, ticket: ReadTicket()) }
                .map { ViewerMessage.deletedRowsFound(source, $0) }
                .catch { _ in Empty<ViewerMessage, Never>() }
                .eraseToAnyPublisher())
        case let .readWholeRow(viewed, position):
            return .observe(slot: .read(.wholeRow), read({ ticket in
                try dataSource.wholeRow(of: viewed, at: position, ticket: ticket)
            }, { ViewerMessage.wholeRowRead(position, $0) }, { _, _ in ViewerMessage.wholeRowRead(position, nil) }))
        case let .recordQuery(sql):
            // A history that can not be written is no reason to stop.
            let history = self.history
            return .perform(Self.run { try? history?.record(sql) }
                .flatMap { _ in Empty<ViewerMessage, any Error>() }
                .catch { _ in Empty<ViewerMessage, Never>() }
                .eraseToAnyPublisher())
        case let .copyToClipboard(text):
            return .signal(.clipboard(text))
        case let .save(request):
            // The app loop asks for every message: the newest progress is kept.
            return .observe(slot: .save, ViewerSaveJob.job(request, dataSource, queue: Self.saveQueue)
                .receive(on: DispatchQueue.main.ocombine)
                .eraseToAnyPublisher())
        case .stopSaving:
            return .observe(slot: .save, Empty<ViewerMessage, Never>().eraseToAnyPublisher())
        case let .alert(alertEffect):
            return alertCommand(alertEffect)
        case .suspend:
            return .suspend
        case .quit:
            return .quit
        }
    }

    nonisolated private static let saveQueue = DispatchQueue(label: "livetable.viewer.save", qos: .utility)

    /// `message` in `seconds`, by the loop's one timer, in `slot`: a read
    /// asked for there meanwhile replaces it.
    private static func after(
        _ seconds: Double, in slot: ViewerSlot, _ message: ViewerMessage
    ) -> AppCommand<ViewerMessage, ViewerSlot> {
        .timer(slot: slot, at: .now + .nanoseconds(Int64(max(0, seconds) * 1e9)), message: { _ in message })
    }

    // MARK: - Reads

    /// A read whose subscription is cancelled (replaced in its slot, or
    /// stopped) is interrupted if it runs.
    func read<T: Sendable>(
        _ value: @escaping @Sendable (ReadTicket) throws -> T,
        _ success: @escaping (T) -> ViewerMessage,
        _ failure: @escaping (String, ViewerFailureKind) -> ViewerMessage) -> AnyPublisher<ViewerMessage, Never>
    {
        let dataSource = self.dataSource
        return Deferred { () -> AnyPublisher<ViewerMessage, Never> in
            let ticket = ReadTicket()
            return Self.run { try value(ticket) }
                .handleEvents(receiveCancel: { ticket.abandon() })
                .map(success)
                .catch { error in Just(failure(dataSource.describe(error), dataSource.failureKind(of: error))) }
                .eraseToAnyPublisher()
        }.eraseToAnyPublisher()
    }

    nonisolated private static func run<T: Sendable>(
        _ body: @escaping @Sendable () throws -> T) -> AnyPublisher<T, any Error>
    {
        future(on: readQueue, body)
            .receive(on: DispatchQueue.main.ocombine)
            .eraseToAnyPublisher()
    }

    /// A `Future`, so that its value and its completion arrive together, in order.
    nonisolated private static func future<T: Sendable>(
        on queue: DispatchQueue, _ body: @escaping @Sendable () throws -> T) -> AnyPublisher<T, any Error>
    {
        Deferred {
            Future<T, any Error> { promise in
                let promise = SendablePromise(fulfil: promise)
                queue.async { promise.fulfil(Result { try body() }) }
            }
        }
        .eraseToAnyPublisher()
    }

    /// Concurrent, since a read may wait long for its connection; the data
    /// source serializes the reads of each of its connections.
    nonisolated private static let readQueue = DispatchQueue(
        label: "livetable.viewer.read", qos: .userInitiated, attributes: .concurrent)

    /// The loop keeps the latest `.tablesCounted`, which holds all before it.
    nonisolated private static func countTables(
        from: Int, names: [String], kinds: [TableSchema.Kind], in dataSource: any ViewerDataSource
    ) -> AnyPublisher<ViewerMessage, Never>
    {
        ViewerTableCounts.job(from: from, names: names, kinds: kinds, dataSource: dataSource, queue: countQueue)
            .receive(on: DispatchQueue.main.ocombine)
            .eraseToAnyPublisher()
    }

    /// A transient failure goes on as `.windowFailed(_, .transient)`; any
    /// other is the last message.
    nonisolated private static func observe(
        _ viewed: ViewedSource, _ request: RowWindowRequest, in dataSource: any ViewerDataSource
    ) -> AnyPublisher<ViewerMessage, Never>
    {
        dataSource.windows(of: viewed, request)
            // Stamped as it arrives: `viewerUpdate` reads no clock.
            .map { read -> ViewerMessage in
                switch read {
                case let .window(window): return .window(window, now: .now)
                case let .transientFailure(error): return .windowFailed(dataSource.describe(error), .transient)
                }
            }
            .catch { error in
                Just(ViewerMessage.windowFailed(dataSource.describe(error), dataSource.failureKind(of: error)))
            }
            .eraseToAnyPublisher()
    }

    /// On the read queue: the data source serializes it with the count on
    /// their connection.
    nonisolated private static func countRowsBefore(
        _ viewed: ViewedSource, _ position: RowPosition, in dataSource: any ViewerDataSource
    ) -> AnyPublisher<ViewerMessage, Never>
    {
        timedCount(on: readQueue) { ticket in
            try dataSource.countRows(of: viewed, before: position, ticket: ticket)
        } counted: { count, seconds in
            .rowsBeforeCounted(viewed, position, count.value, isExact: count.isExact, seconds: seconds)
        } failed: { _, seconds in
            .rowsBeforeCountFailed(seconds: seconds)
        }
    }

    /// Serial, so that a count's value reaches the main queue before its
    /// completion (on a concurrent queue the completion could overtake it,
    /// and the count would be lost).
    nonisolated private static let countQueue = DispatchQueue(label: "livetable.viewer.count", qos: .utility)

    /// The database's estimate first, when asked and given (the title's `~N`
    /// while a long count runs), then the count.
    nonisolated private static func count(
        _ source: RowSource, estimating: Bool, in dataSource: any ViewerDataSource
    ) -> AnyPublisher<ViewerMessage, Never>
    {
        let estimate: @Sendable (ReadTicket) -> ViewerMessage? = { ticket in
            // An estimate that fails is only missed: the count says why.
            (try? dataSource.estimatedRowCount(of: source, ticket: ticket)).map(ViewerMessage.countEstimated)
        }
        return timedCount(on: countQueue, first: estimating ? estimate : nil) { ticket in
            try dataSource.countRows(of: source, ticket: ticket)
        } counted: { count, seconds in
            .counted(count.value, isExact: count.isExact, seconds: seconds)
        } failed: { error, _ in
            .countFailed(dataSource.describe(error))
        }
    }

    /// `first` runs before `body` on the same queue (the count's estimate).
    /// Left (another count, another source): interrupted. Nonisolated: its
    /// closures run on `queue`, not the main actor.
    nonisolated private static func timedCount<T>(
        on queue: DispatchQueue,
        first: (@Sendable (ReadTicket) -> ViewerMessage?)? = nil,
        _ body: @escaping @Sendable (ReadTicket) throws -> T,
        counted: @escaping @Sendable (T, _ seconds: Double) -> ViewerMessage,
        failed: @escaping @Sendable (any Error, _ seconds: Double) -> ViewerMessage
    ) -> AnyPublisher<ViewerMessage, Never>
    {
        Deferred { () -> AnyPublisher<ViewerMessage, Never> in
            let ticket = ReadTicket()
            let count = future(on: queue) { () -> ViewerMessage in
                let start = ContinuousClock.now
                func seconds() -> Double {
                    (ContinuousClock.now - start).timeInterval
                }
                do {
                    return counted(try body(ticket), seconds())
                } catch {
                    return failed(error, seconds())
                }
            }
            let messages = first.map { first in
                Just(())
                    .receive(on: queue.ocombine)
                    .compactMap { _ in first(ticket) }
                    .setFailureType(to: (any Error).self)
                    .append(count)
                    .eraseToAnyPublisher()
            } ?? count
            return messages
                .receive(on: DispatchQueue.main.ocombine)
                .handleEvents(receiveCancel: { ticket.abandon() })
                .catch { _ in Empty<ViewerMessage, Never>() }
                .eraseToAnyPublisher()
        }.eraseToAnyPublisher()
    }
}

// @unchecked Sendable: the promise is called once, from one block; the
// Future locks its own state.
private struct SendablePromise<T>: @unchecked Sendable {
    let fulfil: (Result<T, any Error>) -> Void
}

/// Each subscription is replaced by the next in its slot: one read of each
/// kind at a time.
package enum ViewerSlot: Hashable, Sendable {
    case liveness
    /// The list of tables, or the wait before it is listed again.
    case tables
    case read(ViewerRead)
    case highlightTimer
    /// A save (`s`), one at a time.
    case save
    /// The alert's check, then its reads of the matching rows.
    case alert
}
