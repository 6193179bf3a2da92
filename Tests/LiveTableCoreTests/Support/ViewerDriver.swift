import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// Drives `viewerUpdate` the way the app loop does, on a file that the
/// sqlite3 CLI writes: each effect is performed against the file (windows,
/// counts, lookups of deleted rows, the resume's time stamp) and its
/// result sent back as a message, until no effect is left. Time is
/// injected: messages are stamped with `start + clock`.
final class ViewerDriver {
    /// The data source driven: a SQLite file or a PostgreSQL database.
    let dataSource: any ViewerDataSource
    /// The SQLite file's, for the tests that read it directly; nil on PostgreSQL.
    let database: SQLiteDataSource!
    /// Another process's (or session's) commit of its SQL.
    private let anotherCommit: (String) throws -> Void
    var state: ViewerState
    /// The start of the injected time.
    let start = ContinuousClock.now
    /// The time of the next messages, from `start`.
    var clock: Duration = .zero
    /// Every effect asked for since the last `takeEffects()`.
    private(set) var effects: [ViewerEffect] = []
    private let countChunk: Int?

    /// Opens `table` of the file at `path` as the command line does, and
    /// sends the first resize.
    convenience init(path: String, table: String, sort: String? = nil, descending: Bool = false,
                     width: Int = 60, height: Int = 10) throws
    {
        try self.init(path: path, target: .table(table), sort: sort, descending: descending,
                      width: width, height: height)
    }

    /// Opens `target` of the file at `path` (nil: the table picker), whose
    /// commits the sqlite3 CLI makes; `countChunk`: the rows of each read
    /// of a count (nil: the program's own).
    convenience init(path: String, target: ViewerTarget?, sort: String? = nil, descending: Bool = false,
                     width: Int = 60, height: Int = 10, countChunk: Int? = nil) throws
    {
        try self.init(
            dataSource: try SQLiteDataSource.open(path: path), target: target, sort: sort, descending: descending,
            width: width, height: height, countChunk: countChunk,
            anotherCommit: { sql in _ = try ForeignFile.sqlite3(path, sql) })
    }

    /// Opens `target` of any data source as the command line does, and
    /// sends the first resize; `anotherCommit` commits SQL as another
    /// process would.
    init(dataSource: any ViewerDataSource, target: ViewerTarget?, sort: String? = nil, descending: Bool = false,
         width: Int = 60, height: Int = 10, countChunk: Int? = nil,
         anotherCommit: @escaping (String) throws -> Void) throws
    {
        self.dataSource = dataSource
        self.database = dataSource as? SQLiteDataSource
        self.anotherCommit = anotherCommit
        self.countChunk = countChunk
        let opened = try target.map { target in
            try dataSource.open(target, sortColumn: sort, descending: descending, ticket: ReadTicket())
        }
        state = .initial(databaseName: dataSource.name, opened: opened, width: width, height: height, useColor: false)
        try send(.resize(width: width, height: height))
    }

    /// The current time of the driver.
    var now: ContinuousClock.Instant { start + clock }

    /// Sends a message, performs the effects, and sends their results.
    @discardableResult
    func send(_ message: ViewerMessage) throws -> [ViewerEffect] {
        let all = try driveViewer(&state, message, perform: perform)
        effects += all
        return all
    }

    /// Sends the keys of `text`, one character each.
    @discardableResult
    func type(_ text: String) throws -> [ViewerEffect] {
        try text.flatMap { try send(.key(.character($0))) }
    }

    /// Returns the effects asked for since the last call, and forgets them.
    func takeEffects() -> [ViewerEffect] {
        defer { effects = [] }
        return effects
    }

    /// Another process commits `sql`; the observation delivers the window
    /// it observes again, or its failure.
    @discardableResult
    func commit(_ sql: String) throws -> [ViewerEffect] {
        try anotherCommit(sql)
        let table = try XCTUnwrap(state.table)
        let request = try XCTUnwrap(table.observedRequest)
        let window: ViewerWindow
        do {
            window = try firstWindow(of: dataSource, table.viewed, request)
        } catch {
            return try send(.windowFailed("\(error)", dataSource.failureKind(of: error)))
        }
        var effects = try send(.window(window, now: now))
        if let alert = state.alert?.viewed {
            // The alert's own observation reads its rows after the same commit.
            effects += try send(.alert(.window(try firstWindow(of: dataSource, alert, ViewerAlert.request(for: alert)))))
        }
        return effects
    }

    /// The screen, as text lines.
    var lines: [String] {
        viewerRender(state).text.components(separatedBy: "\n")
    }

    /// The value of column `column` of the selected row.
    func selected(_ column: Int) -> DatabaseValue? {
        guard let table = state.table, let index = table.selectedIndex else { return nil }
        return table.window?.rows[index][column]
    }

    private func perform(_ effect: ViewerEffect) throws -> ViewerMessage? {
        try performViewerEffect(effect, on: dataSource, now: now, countChunk: countChunk)
    }
}

/// The window of `request`: on a SQLite file, read at once; elsewhere,
/// the first of `dataSource.windows(of:_:)`, as the program observes it
/// (they arrive on the main queue, which this runs meanwhile).
func firstWindow(
    of dataSource: any ViewerDataSource, _ viewed: ViewedSource, _ request: RowWindowRequest
) throws -> ViewerWindow {
    if let database = dataSource as? SQLiteDataSource {
        return try database.read { db in try ViewerWindow.fetch(db, viewed, request) }
    }
    var result: Result<ViewerWindow, any Error>?
    let cancellable = dataSource.windows(of: viewed, request).sink(
        receiveCompletion: { completion in
            if case let .failure(error) = completion, result == nil { result = .failure(error) }
        },
        receiveValue: { read in
            guard result == nil else { return }
            switch read {
            case let .window(window): result = .success(window)
            case let .transientFailure(error): result = .failure(error)
            }
        })
    defer { cancellable.cancel() }
    let deadline = Date(timeIntervalSinceNow: 20)
    while result == nil, Date() < deadline {
        RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.001))
    }
    return try XCTUnwrap(result, "no window within 20 s").get()
}

/// Sends `message` to `state`, then performs its effects with `perform`
/// and sends their results, until no effect is left, as the app loop
/// would; returns every effect.
func driveViewer(
    _ state: inout ViewerState, _ message: ViewerMessage, perform: (ViewerEffect) throws -> ViewerMessage?
) throws -> [ViewerEffect] {
    var all: [ViewerEffect] = []
    var queue = [message]
    while !queue.isEmpty {
        let effects = viewerUpdate(&state, queue.removeFirst())
        all += effects
        for effect in effects {
            if let result = try perform(effect) {
                queue.append(result)
            }
        }
    }
    return all
}

/// Performs a viewer effect as `ViewerProgram` does, synchronously, for
/// the tests that drive `viewerUpdate` by hand: the reads on `database`,
/// windows and resumes stamped `now`, counts in reads of `countChunk` rows;
/// the host's effects and timers return nil.
func performViewerEffect(
    _ effect: ViewerEffect, on dataSource: any ViewerDataSource, now: ContinuousClock.Instant, countChunk: Int? = nil
) throws -> ViewerMessage? {
    do {
        switch effect {
        case .listTables:
            return .tablesListed(try dataSource.listTables(ticket: ReadTicket()).map {
                PickerEntry(name: $0.name, kind: $0.kind, count: nil, isCounting: true)
            })
        case let .countTables(from, names, kinds):
            // As the program counts: each within its time limit.
            return .tablesCounted(from: from, names: names, counts: zip(names, kinds).map { name, kind in
                try? dataSource.quickRowCount(
                    ofTable: name, kind: kind, ticket: ReadTicket(timeLimit: PickerEntry.countTimeLimit))
            })
        case let .open(target, sortColumn, descending):
            return .opened(try dataSource.open(target, sortColumn: sortColumn, descending: descending, ticket: ReadTicket()))
        case let .observe(viewed, request):
            return .window(try firstWindow(of: dataSource, viewed, request), now: now)
        case let .count(source, _):
            let count: RowCount
            if let database = dataSource as? SQLiteDataSource {
                count = try countChunk.map { try source.countRows(in: database.backgroundReader, chunk: $0) }
                    ?? source.countRows(in: database.backgroundReader)
            } else {
                count = try dataSource.countRows(of: source, ticket: ReadTicket())
            }
            return .counted(count.value, isExact: count.isExact)
        case .pauseCounting:
            return .countPauseEnded
        case let .countRowsBefore(viewed, position):
            let count = try dataSource.countRows(of: viewed, before: position, ticket: ReadTicket())
            return .rowsBeforeCounted(viewed, position, count.value, isExact: count.isExact)
        case .pauseCountingRowsBefore:
            return .rowsBeforePauseEnded
        case .resume:
            return .resumed(now: now)
        case let .findDeletedRows(source, ids):
            return .deletedRowsFound(source, try dataSource.missingRows(of: source, among: ids, ticket: ReadTicket()))
        case let .search(viewed, search):
            return .searched(try dataSource.search(search, in: viewed, ticket: ReadTicket()))
        case let .readWholeRow(viewed, position):
            return .wholeRowRead(position, try dataSource.wholeRow(of: viewed, at: position, ticket: ReadTicket()))
        case let .filter(viewed, expression):
            let filtered = try dataSource.filter(viewed, by: expression, ticket: ReadTicket())
            return .filtered(filtered.viewed, scannedRows: filtered.scannedRows)
        case let .save(request):
            return ViewerSaveJob.run(request, dataSource, ticket: ReadTicket()) { _ in }
        case let .alert(.check(viewed, expression)):
            do {
                return .alert(.checked(try dataSource.filter(viewed, by: expression, ticket: ReadTicket()).viewed))
            } catch {
                return .alert(.checkFailed(dataSource.describe(error)))
            }
        case let .alert(.observe(viewed)):
            return .alert(.window(try firstWindow(of: dataSource, viewed, ViewerAlert.request(for: viewed))))
        case .stop, .retryListing, .retryOpen, .highlightTimer, .suspend, .quit, .recordQuery, .copyToClipboard,
             .stopSaving, .alert:
            return nil
        }
    } catch {
        switch effect {
        case .open: return .openFailed("\(error)", dataSource.failureKind(of: error))
        case .observe: return .windowFailed("\(error)", dataSource.failureKind(of: error))
        case .filter: return .filterFailed("\(error)")
        case .search: return .searchFailed("\(error)")
        case .count where !(dataSource is SQLiteDataSource): return .countFailed(dataSource.describe(error))
        default: throw error
        }
    }
}
