import Foundation
import GRDB
import OpenCombine
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// The kinds of databases that users use: tests run their database
/// scenarios against each one.
enum DatabaseKind: String, CaseIterable {
    case inMemoryQueue
    case onDiskQueue
    case pool

    /// A new, empty database of this kind, in `directory` if on disk.
    ///
    /// On disk, the writer has a busy timeout, as the app's has: the watch
    /// of other processes' commits reads the file, and on a rollback-journal
    /// file a commit that meets that read would otherwise fail at once with
    /// "database is locked" (see "Commits of Other Processes" in
    /// Docs/ReactiveGRDB.md).
    func makeWriter(in directory: URL) throws -> any DatabaseWriter {
        var configuration = Configuration()
        configuration.busyMode = .timeout(AppDatabase.busyTimeout)
        switch self {
        case .inMemoryQueue:
            return try DatabaseQueue()
        case .onDiskQueue:
            return try DatabaseQueue(path: directory.appendingPathComponent("queue.sqlite").path, configuration: configuration)
        case .pool:
            return try DatabasePool(path: directory.appendingPathComponent("pool.sqlite").path, configuration: configuration)
        }
    }
}

extension XCTestCase {
    /// Runs `body` once for each kind of database, with a new
    /// `AppDatabase`. A thrown error fails the test and names the kind.
    func forEachDatabaseKind(
        seed: UInt64? = 1,
        file: StaticString = #filePath, line: UInt = #line,
        _ body: (AppDatabase, DatabaseKind) throws -> Void) throws
    {
        for kind in DatabaseKind.allCases {
            let directory = try makeTemporaryDirectory()
            let appDatabase = try AppDatabase(kind.makeWriter(in: directory), seed: seed)
            do {
                try body(appDatabase, kind)
            } catch {
                XCTFail("\(kind): \(error)", file: file, line: line)
            }
        }
    }

    /// Subscribes to `publisher` and waits for its completion. Returns the
    /// values, or throws the failure.
    func awaitValues<P: Publisher>(
        _ publisher: P,
        timeout: TimeInterval = 20,
        file: StaticString = #filePath, line: UInt = #line) throws -> [P.Output]
    {
        let recorder = Recorder<P.Output, P.Failure>(publisher)
        waitUntil("completion", timeout: timeout, file: file, line: line) { recorder.completion != nil }
        if case let .failure(error) = recorder.completion {
            throw error
        }
        return recorder.values
    }

    /// Subscribes to `publisher`, waits for its completion, and returns
    /// its single value.
    func awaitValue<P: Publisher>(
        _ publisher: P,
        timeout: TimeInterval = 20,
        file: StaticString = #filePath, line: UInt = #line) throws -> P.Output
    {
        let values = try awaitValues(publisher, timeout: timeout, file: file, line: line)
        XCTAssertEqual(values.count, 1, "values", file: file, line: line)
        return try XCTUnwrap(values.first, file: file, line: line)
    }
}

/// Records everything a publisher sends. Tests run on the main thread, and
/// the recorded publishers deliver on the main queue, so the recorder is
/// only used from the main thread.
final class Recorder<Output, Failure: Error> {
    private(set) var values: [Output] = []
    private(set) var completion: Subscribers.Completion<Failure>?
    private var cancellable: AnyCancellable?

    init<P: Publisher>(_ publisher: P) where P.Output == Output, P.Failure == Failure {
        cancellable = publisher.sink(
            receiveCompletion: { [unowned self] in completion = $0 },
            receiveValue: { [unowned self] in values.append($0) })
    }

    func cancel() {
        cancellable?.cancel()
    }
}

/// The Hall of Fame computed the slow way, in Swift, from all players:
/// the reference that the keyset queries are checked against.
enum HallOfFameModel {
    /// Whether `a` sorts strictly before `b` in `ordering`: the app's own
    /// comparator, which `SortKeyTests` holds against SQLite's `ORDER BY`.
    static func precedes(_ a: Player, _ b: Player, in ordering: Ordering) -> Bool {
        ordering.sortsBefore(a, b)
    }

    /// All players, sorted.
    static func sorted(_ players: [Player], by ordering: Ordering) -> [Player] {
        players.sorted { precedes($0, $1, in: ordering) }
    }

    /// The expected Hall of Fame, with an exact rank.
    static func hallOfFame(_ players: [Player], _ request: WindowRequest) -> HallOfFame {
        let sorted = sorted(players, by: request.ordering)
        let count = sorted.count
        let window: Range<Int>
        switch request.anchor {
        case .first:
            window = 0..<min(count, request.after)
        case .last:
            window = max(0, count - request.before - request.after)..<count
        case let .player(given):
            // The anchor follows its player by id, to its current key.
            let anchor = given.id.flatMap { id in players.first { $0.id == id } } ?? given
            let index = sorted.firstIndex { !precedes($0, anchor, in: request.ordering) } ?? count
            window = max(0, index - request.before)..<min(count, index + request.after)
        }
        return HallOfFame(
            playerCount: count,
            maxScore: players.map(\.score).max(),
            request: request,
            players: Array(sorted[window]),
            firstRank: window.lowerBound,
            rankIsExact: true,
            reachesStart: window.lowerBound == 0,
            reachesEnd: window.upperBound == count)
    }
}

extension HallOfFame {
    /// The value without its rank, to compare with an estimated rank.
    var withoutRank: HallOfFame {
        var value = self
        value.firstRank = 0
        value.rankIsExact = true
        return value
    }
}

extension AppDatabase {
    /// All players, by id, read the slow way.
    func allPlayers() throws -> [Player] {
        try writer.read { db in try Player.order(Player.Columns.id).fetchAll(db) }
    }
}
