import Foundation
import GRDB
import OpenCombine
import SQLiteCommandLine
import XCTest

/// A record for the tests.
struct Player: Codable, Equatable, FetchableRecord, Identifiable, PersistableRecord, Sendable {
    var id: Int64
    var name: String
    var score: Int?

    static func createTable(_ db: Database) throws {
        try db.create(table: "player") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("name", .text).notNull()
            t.column("score", .integer)
        }
    }
}

/// Inserts one player in its own transaction, then two players in a second
/// transaction. A player count observation sees 0, then 1, then 3.
func insertOneThenTwoPlayers(_ writer: some DatabaseWriter) throws {
    try writer.writeWithoutTransaction { db in
        try Player(id: 1, name: "Arthur", score: 1000).insert(db)
        try db.inTransaction {
            try Player(id: 2, name: "Barbara", score: 750).insert(db)
            try Player(id: 3, name: "Craig", score: 500).insert(db)
            return .commit
        }
    }
}

/// The kinds of databases that users use.
enum DatabaseKind: String, CustomStringConvertible {
    case inMemoryQueue = "in-memory DatabaseQueue"
    case onDiskQueue = "on-disk DatabaseQueue"
    case pool = "DatabasePool"
    case snapshot = "DatabaseSnapshot"

    var description: String { rawValue }
}

extension XCTestCase {
    /// Runs `test` with an in-memory `DatabaseQueue`, an on-disk
    /// `DatabaseQueue`, and a `DatabasePool`, each prepared with `setUp`.
    ///
    /// An error thrown by `test` fails the test, and names the kind of
    /// database; the other kinds still run.
    func forEachWriter(
        configuration: (DatabaseKind) -> Configuration = { _ in Configuration() },
        setUp: (Database) throws -> Void = Player.createTable,
        file: StaticString = #filePath,
        line: UInt = #line,
        _ test: (_ writer: any DatabaseWriter, _ kind: DatabaseKind) throws -> Void)
    {
        run(.inMemoryQueue, file: file, line: line) {
            let dbQueue = try DatabaseQueue(configuration: configuration(.inMemoryQueue))
            try dbQueue.write(setUp)
            try test(dbQueue, .inMemoryQueue)
        }
        run(.onDiskQueue, file: file, line: line) {
            try withTemporaryDirectory { directory in
                let dbQueue = try DatabaseQueue(
                    path: directory.appendingPathComponent("db.sqlite").path,
                    configuration: configuration(.onDiskQueue))
                try dbQueue.write(setUp)
                try test(dbQueue, .onDiskQueue)
            }
        }
        run(.pool, file: file, line: line) {
            try withTemporaryDirectory { directory in
                let dbPool = try DatabasePool(
                    path: directory.appendingPathComponent("db.sqlite").path,
                    configuration: configuration(.pool))
                try dbPool.write(setUp)
                try test(dbPool, .pool)
            }
        }
    }

    /// Runs `test` with the three writers of `forEachWriter`, and a
    /// `DatabaseSnapshot` made from a `DatabasePool` prepared with `setUp`.
    func forEachReader(
        setUp: (Database) throws -> Void = Player.createTable,
        file: StaticString = #filePath,
        line: UInt = #line,
        _ test: (_ reader: any DatabaseReader, _ kind: DatabaseKind) throws -> Void)
    {
        forEachWriter(setUp: setUp, file: file, line: line) { writer, kind in
            try test(writer, kind)
        }
        run(.snapshot, file: file, line: line) {
            try withTemporaryDirectory { directory in
                let dbPool = try DatabasePool(path: directory.appendingPathComponent("db.sqlite").path)
                try dbPool.write(setUp)
                let snapshot = try dbPool.makeSnapshot()
                try test(snapshot, .snapshot)
            }
        }
    }

    private func run(_ kind: DatabaseKind, file: StaticString, line: UInt, _ body: () throws -> Void) {
        do {
            try RecorderScope.run(body)
        } catch {
            XCTFail("\(kind): unexpected error \(error)", file: file, line: line)
        }
    }
}

/// Runs `body` with a fresh temporary directory, removed afterwards.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("ReactiveGRDBTests", isDirectory: true)
        .appendingPathComponent(UUID().uuidString, isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
}

/// The `sqlite3` command on `db.sqlite` in `directory`, which has run `sql`:
/// a database made by another process, still open there. The caller closes it.
func otherProcessDatabase(in directory: URL, _ sql: String) throws -> (path: String, other: SQLiteCommand) {
    let path = directory.appendingPathComponent("db.sqlite").path
    let other = try SQLiteCommand(path: path)
    do {
        try other.execute(sql)
    } catch {
        other.close()
        throw error
    }
    return (path, other)
}

/// Asserts that `error` is a `DatabaseError` with the expected result code,
/// and SQL if given.
func assertDatabaseError(
    _ error: Error?,
    resultCode: ResultCode,
    sql: String? = nil,
    _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath,
    line: UInt = #line)
{
    guard let error = error as? DatabaseError else {
        XCTFail("Expected DatabaseError, got \(String(describing: error)). \(message())", file: file, line: line)
        return
    }
    XCTAssertEqual(error.resultCode, resultCode, message(), file: file, line: line)
    if let sql {
        XCTAssertEqual(error.sql, sql, message(), file: file, line: line)
    }
}

/// Returns whether `recorded` is what a `ValueObservation` may notify for
/// the successive database states `expected`: the states in order, each
/// one possibly missing (coalesced) or repeated, and always the first and
/// last ones.
func isValueObservationRecording<T: Equatable>(_ recorded: [T], matching expected: [T]) -> Bool {
    guard let first = recorded.first, let last = recorded.last,
          first == expected.first, last == expected.last
    else {
        return false
    }
    var remaining = expected[...]
    for value in recorded {
        guard let index = remaining.firstIndex(of: value) else { return false }
        remaining = remaining[index...]
    }
    return true
}

extension XCTestCase {
    /// Subscribes to a publisher of observed values, waits for the initial
    /// value, performs `changes`, and waits for the last expected value.
    ///
    /// Asserts the whole history. On a `DatabaseQueue`, it is exactly
    /// `expected`. A `DatabasePool` may coalesce or repeat values: the
    /// history holds the expected values in order, starts with the first
    /// one, and ends with the last one.
    @discardableResult
    func assertObservation<P: Publisher>(
        of publisher: P,
        in writer: any DatabaseWriter,
        kind: DatabaseKind,
        expecting expected: [P.Output],
        _ message: @autoclosure () -> String = "",
        file: StaticString = #filePath,
        line: UInt = #line,
        changes: (any DatabaseWriter) throws -> Void = { try insertOneThenTwoPlayers($0) })
    throws -> Recording<P.Output, P.Failure>
    where P.Output: Equatable
    {
        let recorder = publisher.record()
        let initial = wait(for: recorder, valueCount: 1, file: file, line: line)
        XCTAssertTrue(initial.values.allSatisfy { $0 == expected.first }, "\(message()) \(initial.values)", file: file, line: line)

        try changes(writer)
        let recording = wait(for: recorder, file: file, line: line) {
            $0.values.last == expected.last || $0.isComplete
        }
        XCTAssertNil(recording.completion, message(), file: file, line: line)
        switch kind {
        case .pool:
            XCTAssertTrue(
                isValueObservationRecording(recording.values, matching: expected),
                "\(message()) Unexpected history \(recording.values)", file: file, line: line)
        case .inMemoryQueue, .onDiskQueue, .snapshot:
            XCTAssertEqual(recording.values, expected, message(), file: file, line: line)
        }
        return recording
    }
}
