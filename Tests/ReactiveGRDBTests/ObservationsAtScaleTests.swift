import Foundation
import GRDB
import OpenCombine
@testable import ReactiveGRDB
import SQLiteCommandLine
import XCTest

/// Many subscriptions to the commits of another process (the `sqlite3`
/// command) on one database: they share one watch, and do not slow down
/// or refresh each other.
final class ObservationsAtScaleTests: XCTestCase {
    private typealias ConnectionKind = OtherProcessCommitsTests.ConnectionKind

    private static let commits = [
        ("Arthur", ["Arthur"]),
        ("Barbara", ["Arthur", "Barbara"]),
        ("Craig", ["Arthur", "Barbara", "Craig"]),
        ("David", ["Arthur", "Barbara", "Craig", "David"]),
        ("Eve", ["Arthur", "Barbara", "Craig", "David", "Eve"]),
    ]

    /// The states of the player table, in order, each once (a pool
    /// publishes its first value twice).
    private static let history: [[String]] = [[]] + commits.map(\.1)

    func testSharedObservationFetchesOncePerCommitWhateverItsSubscribers() throws {
        for connection in ConnectionKind.allCases {
            for subscriberCount in [1, 10] {
                let context = "\(connection), \(subscriberCount) subscribers"
                try RecorderScope.run {
                    try withDatabase(connection) { writer, other in
                        let fetches = Synchronized(0)
                        let shared = playerNames(counting: fetches)
                            .shared(in: writer, scheduling: .async(onQueue: DispatchQueue(label: "shared")))
                        let recorders = (0..<subscriberCount).map { _ in
                            shared.publisher(includingOtherProcessesIn: writer).record()
                        }
                        for recorder in recorders {
                            wait(for: recorder, until: { $0.values.last == [] })
                        }
                        settle()
                        let initialFetches = fetches.value
                        for (name, state) in Self.commits {
                            try other.execute("INSERT INTO player(name) VALUES ('\(name)')")
                            for recorder in recorders {
                                wait(for: recorder, until: { $0.values.last == state })
                            }
                        }
                        settle()
                        // At most one fetch per commit, shared by all.
                        XCTAssertLessThanOrEqual(fetches.value - initialFetches, Self.commits.count, context)
                        for recorder in recorders {
                            XCTAssertEqual(Self.states(recorder.values), Self.history, context)
                        }
                    }
                }
            }
        }
    }

    func testObservationThatDidNotAskIsNotRefreshedByASharedOnesRequest() throws {
        for connection in ConnectionKind.allCases {
            try RecorderScope.run {
                try withDatabase(connection) { writer, other in
                    let names = ValueObservation.trackingConstantRegion { db in
                        try String.fetchAll(db, sql: "SELECT name FROM player ORDER BY id")
                    }
                    let bystander = names
                        .publisher(in: writer, scheduling: .async(onQueue: DispatchQueue(label: "bystander")))
                        .record()
                    let asker = names
                        .publisher(in: writer, scheduling: .async(onQueue: DispatchQueue(label: "asker")))
                        .includingOtherProcesses()
                        .record()
                    let shared = names.shared(in: writer, scheduling: .async(onQueue: DispatchQueue(label: "shared")))
                    let consumers = (0..<3).map { _ in shared.publisher(includingOtherProcessesIn: writer).record() }
                    for recorder in [bystander, asker] + consumers {
                        wait(for: recorder, until: { $0.values.last == [] })
                    }
                    settle()
                    let bystanderValues = bystander.values
                    let askerValueCount = asker.values.count
                    for (name, state) in Self.commits {
                        try other.execute("INSERT INTO player(name) VALUES ('\(name)')")
                        for recorder in [asker] + consumers {
                            wait(for: recorder, until: { $0.values.last == state })
                        }
                    }
                    settle()
                    XCTAssertEqual(bystander.values, bystanderValues, "\(connection)")
                    XCTAssertEqual(Array(asker.values.dropFirst(askerValueCount)), Self.commits.map(\.1), "\(connection)")

                    // The app's own write still refreshes it.
                    try writer.write { db in try db.execute(sql: "INSERT INTO player(name) VALUES ('Zoé')") }
                    wait(for: bystander, until: { $0.values.last == Self.commits.last!.1 + ["Zoé"] })
                }
            }
        }
    }

    func testPlainObservationOfAWritablePoolFetchesAndPublishesOncePerCommit() throws {
        try RecorderScope.run {
            try withDatabase(.pool) { pool, other in
                let fetches = Synchronized(0)
                let recorder = playerNames(counting: fetches)
                    .publisher(in: pool, scheduling: .async(onQueue: DispatchQueue(label: "plain")))
                    .includingOtherProcesses()
                    .record()
                // A pool publishes its first value twice (no WAL snapshots).
                wait(for: recorder, valueCount: 2)
                settle()
                let initialFetches = fetches.value
                let initialValues = recorder.values.count
                for (name, state) in Self.commits {
                    try other.execute("INSERT INTO player(name) VALUES ('\(name)')")
                    wait(for: recorder, until: { $0.values.last == state })
                }
                settle()
                XCTAssertEqual(fetches.value - initialFetches, Self.commits.count)
                XCTAssertEqual(Array(recorder.values.dropFirst(initialValues)), Self.commits.map(\.1))

                // The app's own write, then another process's commit: each
                // state once, the last one last.
                try pool.write { db in try db.execute(sql: "INSERT INTO player(name) VALUES ('Zoé')") }
                try other.execute("INSERT INTO player(name) VALUES ('Yves')")
                let last = Self.commits.last!.1 + ["Zoé", "Yves"]
                wait(for: recorder, until: { $0.values.last == last })
                settle()
                XCTAssertEqual(recorder.values.last, last)
            }
        }
    }

    func testSlowSubscriberDoesNotHoldBackTheOthers() throws {
        try RecorderScope.run {
            try withDatabase(.pool) { pool, other in
                let names = ValueObservation
                    .trackingConstantRegion { db in try String.fetchAll(db, sql: "SELECT name FROM player ORDER BY id") }
                    .removeDuplicates()
                // Blocks in its first fresh value until the end of the test.
                let release = DispatchSemaphore(value: 0)
                defer { release.signal() }
                let slow = names
                    .publisher(in: pool, scheduling: .async(onQueue: DispatchQueue(label: "slow")))
                    .includingOtherProcesses()
                    .record(onValue: { _, value in
                        if value == ["Arthur"] { release.wait() }
                        return .none
                    })
                let fast = names
                    .publisher(in: pool, scheduling: .async(onQueue: DispatchQueue(label: "fast")))
                    .includingOtherProcesses()
                    .record()
                wait(for: slow, until: { $0.values.last == [] })
                wait(for: fast, until: { $0.values.last == [] })
                for (name, state) in Self.commits {
                    try other.execute("INSERT INTO player(name) VALUES ('\(name)')")
                    wait(for: fast, until: { $0.values.last == state })
                }
                XCTAssertEqual(Self.states(fast.values), Self.history)
                XCTAssertEqual(slow.values.last, ["Arthur"])
            }
        }
    }

    // MARK: - Support

    private static func states(_ values: [[String]]) -> [[String]] {
        values.reduce(into: [[String]]()) { states, value in
            if states.last != value { states.append(value) }
        }
    }

    /// Runs `body` with a writable database made by the `sqlite3` command,
    /// in WAL mode, and that command still running, its connection open.
    private func withDatabase(
        _ connection: ConnectionKind,
        _ body: (any DatabaseWriter, SQLiteCommand) throws -> Void) throws
    {
        try withTemporaryDirectory { directory in
            let (path, other) = try otherProcessDatabase(in: directory, """
                PRAGMA journal_mode = wal;
                CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                """)
            defer { other.close() }
            let writer: any DatabaseWriter
            switch connection {
            case .queue: writer = try DatabaseQueue(path: path)
            case .pool: writer = try DatabasePool(path: path)
            }
            try body(writer, other)
        }
    }

    /// The players' names, each fetch counted in `fetches`.
    private func playerNames(counting fetches: Synchronized<Int>) -> ValueObservation<ValueReducers.Fetch<[String]>> {
        ValueObservation.trackingConstantRegion { db in
            fetches.increment()
            return try String.fetchAll(db, sql: "SELECT name FROM player ORDER BY id")
        }
    }

    /// Lets the checks and fetches that follow a commit run, to see that
    /// they do nothing more.
    private func settle() {
        RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.3))
    }
}
