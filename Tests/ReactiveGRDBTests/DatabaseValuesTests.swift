import Foundation
import GRDB
import OpenCombine
@testable import ReactiveGRDB
import SQLiteCommandLine
import XCTest

/// The async form of value observations, `DatabaseValues`, against the
/// `sqlite3` command as another process.
///
/// Each test iterates in a detached task while the test's thread, the main
/// thread, blocks: nothing drains the main queue, as in a server or an
/// `async` main that never yields to it.
final class DatabaseValuesTests: XCTestCase {
    private let insertPlayer = "INSERT INTO player(name) VALUES ('Arthur');"

    // MARK: - Newest wins

    func testSlowConsumerEndsOnTheLastRowOfAnotherProcess() throws {
        try withDatabase(.readWrite, journal: "wal") { reader, other, _ in
            let received = Synchronized<[Int]>([])
            let counts = Player.all().rx.valuesOfCount(in: reader).includingOtherProcesses()
            try runBlockingMainThread(timeout: 30) {
                for try await count in counts {
                    received.update { $0.append(count) }
                    if count == 0 {
                        // The other process commits 200 rows, each its
                        // own transaction, while this loop is slow.
                        Thread.detachNewThread {
                            for _ in 0..<200 {
                                _ = try? other.run(self.insertPlayer)
                                Thread.sleep(forTimeInterval: 0.01)
                            }
                        }
                    }
                    if count == 200 { break }
                    try await Task.sleep(nanoseconds: 300_000_000)
                }
            }
            let values = received.value
            XCTAssertEqual(values.last, 200, "\(values)")
            XCTAssertEqual(values, values.sorted(), "in order")
            // A slow consumer skips the states it had no time for.
            XCTAssertLessThan(values.count, 100, "\(values)")
            XCTAssertEqual(try other.output("SELECT COUNT(*) FROM player;"), "200")
        }
    }

    func testUnboundedBufferingKeepsEveryValue() throws {
        try withDatabase(.readWrite, journal: "wal") { reader, other, _ in
            let received = Synchronized<[[String]]>([])
            let names = Player.all().rx.valuesOfAll(in: reader, bufferingPolicy: .unbounded)
            try runBlockingMainThread {
                var iterator = names.includingOtherProcesses().makeAsyncIterator()
                while let players = try await iterator.next() {
                    received.update { $0.append(players.map(\.name)) }
                    if players.isEmpty {
                        // Each commit waits for its value, then the
                        // consumer reads them all at once.
                        try other.execute(self.insertPlayer)
                        try other.execute("UPDATE player SET name = 'Barbara';")
                    }
                    if players.map(\.name) == ["Barbara"] { break }
                }
            }
            XCTAssertTrue(
                [[[], ["Arthur"], ["Barbara"]], [[], ["Barbara"]]].contains(received.value),
                "\(received.value)")
        }
    }

    // MARK: - Read-only connections

    func testReadOnlyDatabaseQueueKeepsRefreshing() throws {
        for journal in ["wal", "delete"] {
            try withDatabase(.readOnly, journal: journal) { reader, other, _ in
                let received = Synchronized<[Int]>([])
                let observation = ValueObservation.tracking { db in
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")!
                }
                try runBlockingMainThread {
                    for try await count in observation.rx.values(in: reader).includingOtherProcesses() {
                        received.update { $0.append(count) }
                        if count == 3 { break }
                        try other.execute(self.insertPlayer)
                    }
                }
                XCTAssertEqual(received.value, [0, 1, 2, 3], journal)
            }
        }
    }

    func testReadOnlyDatabasePoolKeepsRefreshing() throws {
        try withDatabase(.readOnly, journal: "wal", pool: true) { reader, other, _ in
            let received = Synchronized<[Int]>([])
            // A pool may publish its first value twice (see the guide's
            // Linux notes).
            let observation = ValueObservation
                .trackingConstantRegion { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")! }
                .removeDuplicates()
            try runBlockingMainThread {
                for try await count in observation.rx.values(in: reader).includingOtherProcesses() {
                    received.update { $0.append(count) }
                    if count == 2 { break }
                    try other.execute(self.insertPlayer)
                }
            }
            XCTAssertEqual(received.value, [0, 1, 2])
        }
    }

    func testEachKindOfDatabaseEndsOnItsLastTransaction() throws {
        forEachWriter { writer, kind in
            let received = Synchronized<[Int]>([])
            try runBlockingMainThread {
                for try await count in Player.all().rx.valuesOfCount(in: writer) {
                    received.update { $0.append(count) }
                    if count == 0 { try insertOneThenTwoPlayers(writer) }
                    if count == 3 { break }
                }
            }
            XCTAssertEqual(received.value.first, 0, "\(kind)")
            XCTAssertEqual(received.value.last, 3, "\(kind)")
        }
    }

    func testWithoutOtherProcessesOwnCommitsAreSeen() throws {
        try withTemporaryDirectory { directory in
            let dbQueue = try DatabaseQueue(path: directory.appendingPathComponent("db.sqlite").path)
            try dbQueue.write(Player.createTable)
            let received = Synchronized<[Int]>([])
            try runBlockingMainThread {
                for try await count in Player.all().rx.valuesOfCount(in: dbQueue) {
                    received.update { $0.append(count) }
                    if count == 0 { try insertOneThenTwoPlayers(dbQueue) }
                    if count == 3 { break }
                }
            }
            XCTAssertTrue([[0, 1, 3], [0, 3]].contains(received.value), "\(received.value)")
        }
    }

    // MARK: - Cancellation

    func testCancelledTaskReleasesTheObservationAndTheWatch() throws {
        try withDatabase(.readWrite, journal: "delete") { reader, other, _ in
            let events = Synchronized<[String]>([])
            let fetchedObject = Synchronized<Weak<Token>>(Weak(nil))
            let firstValue = DispatchSemaphore(value: 0)
            let task = Task.detached {
                // The iteration alone holds the observation.
                let observation = ValueObservation
                    .tracking { [token = Token()] db -> Int in
                        fetchedObject.update { $0 = Weak(token) }
                        return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")!
                    }
                    .handleEvents(didCancel: { events.update { $0.append("cancel") } })
                var values: [Int] = []
                for try await count in observation.rx.values(in: reader).includingOtherProcesses() {
                    values.append(count)
                    firstValue.signal()
                }
                return values
            }
            XCTAssertEqual(firstValue.wait(timeout: .now() + 10), .success)
            XCTAssertTrue(CommitWatch.isWatching(reader))
            XCTAssertNotNil(fetchedObject.value.object)

            task.cancel()
            // The loop ends without an error.
            XCTAssertEqual(try result(of: task), [0])
            waitUntil("the observation is cancelled") { events.value == ["cancel"] }
            waitUntil("the fetch closure is released") { fetchedObject.value.object == nil }
            waitUntil("the watch is released") { !CommitWatch.isWatching(reader) }
            // Released, the observation no longer sees the commits.
            try other.execute(insertPlayer)
            XCTAssertFalse(CommitWatch.isWatching(reader))
        }
    }

    func testLeavingTheLoopReleasesTheObservation() throws {
        try withDatabase(.readOnly, journal: "wal") { reader, _, _ in
            let fetchedObject = Synchronized<Weak<Token>>(Weak(nil))
            try runBlockingMainThread {
                let observation = ValueObservation.tracking { [token = Token()] db -> Int in
                    fetchedObject.update { $0 = Weak(token) }
                    return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")!
                }
                for try await _ in observation.rx.values(in: reader).includingOtherProcesses() {
                    XCTAssertTrue(CommitWatch.isWatching(reader))
                    break
                }
            }
            waitUntil("the fetch closure is released") { fetchedObject.value.object == nil }
            waitUntil("the watch is released") { !CommitWatch.isWatching(reader) }
        }
    }

    // MARK: - Errors

    func testDeletedFileIsThrown() throws {
        try withDatabase(.readOnly, journal: "delete") { reader, _, path in
            let thrown = Synchronized<Error?>(nil)
            try runBlockingMainThread {
                do {
                    for try await count in Player.all().rx.valuesOfCount(in: reader).includingOtherProcesses() {
                        XCTAssertEqual(count, 0)
                        try FileManager.default.removeItem(atPath: path)
                    }
                    XCTFail("The loop ended without an error")
                } catch {
                    thrown.update { $0 = error }
                }
            }
            XCTAssertEqual(
                thrown.value as? DatabaseFileChangedError,
                DatabaseFileChangedError(reason: .deleted, path: URL(fileURLWithPath: path).resolvingSymlinksInPath().path))
        }
    }

    func testDatabaseErrorIsThrown() throws {
        try withDatabase(.readWrite, journal: "wal") { reader, other, _ in
            let thrown = Synchronized<Error?>(nil)
            let observation = ValueObservation.tracking { db in
                try String.fetchAll(db, sql: "SELECT name FROM player")
            }
            try runBlockingMainThread {
                do {
                    for try await _ in observation.rx.values(in: reader).includingOtherProcesses() {
                        try other.execute("DROP TABLE player;")
                    }
                    XCTFail("The loop ended without an error")
                } catch {
                    thrown.update { $0 = error }
                }
            }
            XCTAssertEqual((thrown.value as? DatabaseError)?.message, "no such table: player")
        }
    }

    // MARK: - Shared observations

    func testSharedObservationSeesAnotherProcessWithoutTheMainQueue() throws {
        // Writable: GRDB is told to notify its observations; read-only: the
        // shared observation is subscribed again.
        for access in [Access.readWrite, .readOnly] {
            try withDatabase(access, journal: "wal") { reader, other, _ in
                let shared = ValueObservation
                    .tracking { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")! }
                    .shared(in: reader, scheduling: .async(onQueue: DispatchQueue(label: "shared")))
                let received = Synchronized<[Int]>([])
                try runBlockingMainThread {
                    for try await count in shared.values(includingOtherProcessesIn: reader) {
                        received.update { $0.append(count) }
                        if count == 2 { break }
                        try other.execute(self.insertPlayer)
                    }
                }
                XCTAssertEqual(received.value, [0, 1, 2], "\(access)")
            }
        }
    }

    func testSharedObservationThrowsTheDeletedFileWithoutTheMainQueue() throws {
        try withDatabase(.readOnly, journal: "delete") { reader, _, path in
            let shared = ValueObservation
                .tracking { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")! }
                .shared(in: reader, scheduling: .async(onQueue: DispatchQueue(label: "shared")))
            let thrown = Synchronized<Error?>(nil)
            try runBlockingMainThread {
                do {
                    for try await _ in shared.values(includingOtherProcessesIn: reader) {
                        try FileManager.default.removeItem(atPath: path)
                    }
                    XCTFail("The loop ended without an error")
                } catch {
                    thrown.update { $0 = error }
                }
            }
            XCTAssertEqual((thrown.value as? DatabaseFileChangedError)?.reason, .deleted)
        }
    }

    func testSequenceIsSendable() throws {
        let dbQueue = try DatabaseQueue()
        _ = requireSendable(Player.all().rx.valuesOfAll(in: dbQueue).includingOtherProcesses())
        try dbQueue.write(Player.createTable)
        let received = Synchronized<[Int?]>([])
        let firstScore = SQLRequest<Int>(sql: "SELECT MAX(score) FROM player").rx.valuesOfFirst(in: dbQueue)
        try runBlockingMainThread {
            for try await score in requireSendable(firstScore) {
                received.update { $0.append(score) }
                break
            }
        }
        XCTAssertEqual(received.value, [nil])
    }

    // MARK: - Support

    private enum Access { case readWrite, readOnly }

    /// Runs `body` with a database made by the `sqlite3` command, which
    /// stays open, and a connection to it: a `DatabaseQueue`, or a
    /// `DatabasePool`, read-only when asked (the file of mode 0444).
    private func withDatabase(
        _ access: Access,
        journal: String,
        pool: Bool = false,
        _ body: (any DatabaseReader, SQLiteCommand, String) throws -> Void) throws
    {
        try withTemporaryDirectory { directory in
            let (path, other) = try otherProcessDatabase(in: directory, """
                PRAGMA journal_mode = \(journal);
                CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER);
                """)
            defer { other.close() }
            var configuration = Configuration()
            if access == .readOnly {
                configuration.readonly = true
                XCTAssertEqual(chmod(path, 0o444), 0)
            }
            let reader: any DatabaseReader = pool
                ? try DatabasePool(path: path, configuration: configuration)
                : try DatabaseQueue(path: path, configuration: configuration)
            try body(reader, other, path)
        }
    }

    /// Runs `body` in a detached task, and blocks the calling thread (the
    /// main thread) until it ends: the main queue is never drained.
    private func runBlockingMainThread(
        timeout: TimeInterval = 10,
        file: StaticString = #filePath,
        line: UInt = #line,
        _ body: @escaping @Sendable () async throws -> Void) throws
    {
        let task = Task.detached { try await body() }
        try result(of: task, timeout: timeout, file: file, line: line)
    }

    /// Blocks until `task` ends, and returns its result; cancels it and
    /// fails after `timeout` seconds.
    @discardableResult
    private func result<T: Sendable>(
        of task: Task<T, Error>,
        timeout: TimeInterval = 10,
        file: StaticString = #filePath,
        line: UInt = #line) throws -> T
    {
        let outcome = Synchronized<Result<T, Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            let result = await task.result
            outcome.update { $0 = result }
            done.signal()
        }
        guard done.wait(timeout: .now() + timeout) == .success else {
            task.cancel()
            XCTFail("The task did not end in \(Int(timeout)) s", file: file, line: line)
            throw CancellationError()
        }
        return try outcome.value!.get()
    }

    /// Waits until `condition` holds, without the main queue, for 10 s at
    /// most.
    private func waitUntil(_ what: String, file: StaticString = #filePath, line: UInt = #line, _ condition: () -> Bool) {
        let deadline = Date(timeIntervalSinceNow: 10)
        while !condition() {
            guard Date() < deadline else {
                XCTFail("Timeout: \(what)", file: file, line: line)
                return
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
    }

}

private final class Token: Sendable { }

/// Compiles only if its argument is Sendable.
private func requireSendable<T: Sendable>(_ value: T) -> T { value }

private struct Weak<T: AnyObject> {
    weak var object: T?
    init(_ object: T?) { self.object = object }
}
