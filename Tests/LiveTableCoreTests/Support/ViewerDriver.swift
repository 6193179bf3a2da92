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
    let path: String
    let database: SQLiteDataSource
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

    /// Opens `target` of the file at `path` (nil: the table picker) as the
    /// command line does, and sends the first resize.
    ///
    /// - parameter countChunk: The rows of each read of a count (nil: the
    ///   program's own).
    init(path: String, target: ViewerTarget?, sort: String? = nil, descending: Bool = false,
         width: Int = 60, height: Int = 10, countChunk: Int? = nil) throws
    {
        self.path = path
        self.countChunk = countChunk
        let database = try SQLiteDataSource.open(path: path)
        self.database = database
        let opened = try target.map { target in
            try database.read { db in
                try ViewedSource.open(target, sortColumn: sort, descending: descending, in: db)
            }
        }
        state = .initial(databaseName: (path as NSString).lastPathComponent, opened: opened,
                         width: width, height: height, useColor: false)
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
        _ = try ForeignFile.sqlite3(path, sql)
        let table = try XCTUnwrap(state.table)
        let request = try XCTUnwrap(table.observedRequest)
        let window: ViewerWindow
        do {
            window = try database.read { db in try ViewerWindow.fetch(db, table.viewed, request) }
        } catch {
            return try send(.windowFailed("\(error)", SQLiteDataSource.failureKind(of: error)))
        }
        return try send(.window(window, now: now))
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
        try performViewerEffect(effect, on: database, now: now, countChunk: countChunk)
    }
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
    _ effect: ViewerEffect, on database: SQLiteDataSource, now: ContinuousClock.Instant, countChunk: Int? = nil
) throws -> ViewerMessage? {
    do {
        switch effect {
        case .listTables:
            return .tablesListed(try database.read { db in
                try TableSchema.list(db).map { PickerEntry(name: $0.name, kind: $0.kind, count: nil, isCounting: true) }
            })
        case let .countTables(from, names, kinds):
            // As the program counts: each within its time limit.
            return .tablesCounted(from: from, names: names, counts: zip(names, kinds).map { name, kind in
                try? database.read(background: true, ticket: ReadTicket(timeLimit: PickerEntry.countTimeLimit)) { db in
                    try RowSource.table(TableSchema.named(name, kind: kind, in: db), dialect: .sqlite).quickRowCount(db)
                }
            })
        case let .open(target, sortColumn, descending):
            return .opened(try database.read { db in
                try ViewedSource.open(target, sortColumn: sortColumn, descending: descending, in: db)
            })
        case let .observe(viewed, request):
            return .window(try database.read { db in try ViewerWindow.fetch(db, viewed, request) }, now: now)
        case let .count(source, _):
            let count = try countChunk.map { try source.countRows(in: database.backgroundReader, chunk: $0) }
                ?? source.countRows(in: database.backgroundReader)
            return .counted(count.value, isExact: count.isExact)
        case .pauseCounting:
            return .countPauseEnded
        case let .countRowsBefore(viewed, position):
            let count = try database.countRows(of: viewed, before: position, ticket: ReadTicket())
            return .rowsBeforeCounted(viewed, position, count.value, isExact: count.isExact)
        case .pauseCountingRowsBefore:
            return .rowsBeforePauseEnded
        case .resume:
            return .resumed(now: now)
        case let .findDeletedRows(source, ids):
            let missing = try database.read { db in
                try XCTUnwrap(source.identityLookup).missing(db, among: ids.map(\.values))
            }
            return .deletedRowsFound(source, missing.map(StoredKey.init))
        case let .search(viewed, search):
            return .searched(try database.read { db in try search.run(db, viewed.source, viewed.ordering) })
        case let .readWholeRow(viewed, position):
            return .wholeRowRead(position, try database.wholeRow(of: viewed, at: position, ticket: ReadTicket()))
        case let .filter(viewed, expression):
            let filtered = try database.read { db in try viewed.filtered(expression, in: db) }
            return .filtered(filtered.viewed, scannedRows: filtered.scannedRows)
        case .stop, .retryListing, .retryOpen, .highlightTimer, .suspend, .quit, .recordQuery:
            return nil
        }
    } catch {
        switch effect {
        case .open: return .openFailed("\(error)", SQLiteDataSource.failureKind(of: error))
        case .observe: return .windowFailed("\(error)", SQLiteDataSource.failureKind(of: error))
        case .filter: return .filterFailed("\(error)")
        case .search: return .searchFailed("\(error)")
        default: throw error
        }
    }
}
