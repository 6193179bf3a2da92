import Foundation
import GRDB
import OpenCombine
import ReactiveGRDB
import XCTest

/// `rx` is reachable on every kind of database, on generic values, and on
/// existentials: these functions would not compile otherwise.
private func rxRead(_ dbQueue: DatabaseQueue) -> DatabasePublishers.Read<Int> {
    dbQueue.rx.read { db in try Player.fetchCount(db) }
}

private func rxRead(_ dbPool: DatabasePool) -> DatabasePublishers.Read<Int> {
    dbPool.rx.read { db in try Player.fetchCount(db) }
}

private func rxRead(_ snapshot: DatabaseSnapshot) -> DatabasePublishers.Read<Int> {
    snapshot.rx.read { db in try Player.fetchCount(db) }
}

private func rxRead<Reader: DatabaseReader>(generic reader: Reader) -> DatabasePublishers.Read<Int> {
    reader.rx.read { db in try Player.fetchCount(db) }
}

private func rxRead(existential reader: any DatabaseReader) -> DatabasePublishers.Read<Int> {
    reader.rx.read { db in try Player.fetchCount(db) }
}

private func rxWrite(_ dbQueue: DatabaseQueue) -> DatabasePublishers.Write<Int> {
    dbQueue.rx.write { db in try insertPlayerAndCount(db) }
}

private func rxWrite(_ dbPool: DatabasePool) -> DatabasePublishers.Write<Int> {
    dbPool.rx.write { db in try insertPlayerAndCount(db) }
}

private func rxWrite<Writer: DatabaseWriter>(generic writer: Writer) -> DatabasePublishers.Write<Int> {
    writer.rx.write { db in try insertPlayerAndCount(db) }
}

private func rxWrite(existential writer: any DatabaseWriter) -> DatabasePublishers.Write<Int> {
    writer.rx.write { db in try insertPlayerAndCount(db) }
}

/// Reading through a writer's `rx` is possible too.
private func rxRead<Writer: DatabaseWriter>(genericWriter writer: Writer) -> DatabasePublishers.Read<Int> {
    writer.rx.read { db in try Player.fetchCount(db) }
}

private func rxRead(existentialWriter writer: any DatabaseWriter) -> DatabasePublishers.Read<Int> {
    writer.rx.read { db in try Player.fetchCount(db) }
}

private func insertPlayerAndCount(_ db: Database) throws -> Int {
    try db.execute(sql: "INSERT INTO player (name) VALUES ('Arthur')")
    return try Player.fetchCount(db)
}

final class GRDBReactiveTests: XCTestCase {
    func testRxWrapsItsBase() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write(Player.createTable)
        XCTAssertTrue(dbQueue.rx.base as AnyObject === dbQueue)
        let reader: any DatabaseReader = dbQueue
        XCTAssertTrue(reader.rx.base as AnyObject === dbQueue)
        let request = Player.all()
        XCTAssertEqual(try dbQueue.read { db in try request.rx.base.fetchCount(db) }, 0)
    }

    func testRxReadIsReachableOnAllReaders() throws {
        try RecorderScope.run {
            try withTemporaryDirectory { directory in
                let dbQueue = try DatabaseQueue()
                try dbQueue.write(Player.createTable)
                let dbPool = try DatabasePool(path: directory.appendingPathComponent("db.sqlite").path)
                try dbPool.write(Player.createTable)
                let snapshot = try dbPool.makeSnapshot()

                let publishers: [(String, DatabasePublishers.Read<Int>)] = [
                    ("DatabaseQueue", rxRead(dbQueue)),
                    ("DatabasePool", rxRead(dbPool)),
                    ("DatabaseSnapshot", rxRead(snapshot)),
                    ("generic DatabaseQueue", rxRead(generic: dbQueue)),
                    ("generic DatabasePool", rxRead(generic: dbPool)),
                    ("generic DatabaseSnapshot", rxRead(generic: snapshot)),
                    ("any DatabaseReader (queue)", rxRead(existential: dbQueue)),
                    ("any DatabaseReader (snapshot)", rxRead(existential: snapshot)),
                    ("generic writer", rxRead(genericWriter: dbPool)),
                    ("any DatabaseWriter", rxRead(existentialWriter: dbQueue)),
                ]
                for (name, publisher) in publishers {
                    let recording = waitForCompletion(of: publisher.record())
                    XCTAssertEqual(recording.values, [0], name)
                    XCTAssertTrue(recording.isFinished, name)
                }
            }
        }
    }

    func testRxWriteIsReachableOnAllWriters() throws {
        try RecorderScope.run {
            try withTemporaryDirectory { directory in
                let dbQueue = try DatabaseQueue()
                try dbQueue.write(Player.createTable)
                let dbPool = try DatabasePool(path: directory.appendingPathComponent("db.sqlite").path)
                try dbPool.write(Player.createTable)

                let publishers: [(String, DatabasePublishers.Write<Int>, Int)] = [
                    ("DatabaseQueue", rxWrite(dbQueue), 1),
                    ("DatabasePool", rxWrite(dbPool), 1),
                    ("generic DatabaseQueue", rxWrite(generic: dbQueue), 2),
                    ("generic DatabasePool", rxWrite(generic: dbPool), 2),
                    ("any DatabaseWriter (queue)", rxWrite(existential: dbQueue), 3),
                    ("any DatabaseWriter (pool)", rxWrite(existential: dbPool), 3),
                ]
                for (name, publisher, expectedCount) in publishers {
                    let recording = waitForCompletion(of: publisher.record())
                    XCTAssertEqual(recording.values, [expectedCount], name)
                    XCTAssertTrue(recording.isFinished, name)
                }
            }
        }
    }
}
