import Foundation
import GRDB
import OpenCombine
import ReactiveGRDB
import XCTest

/// `observation.rx.changes(in:)` and `observation.publisher(in:)`.
final class DatabaseRegionObservationPublisherTests: XCTestCase {
    private func setUpPlayersAndTeams(_ db: Database) throws {
        try Player.createTable(db)
        try db.create(table: "team") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("name", .text)
        }
    }

    func testOneElementPerCommittedTransaction() {
        forEachSpellingAndWriter(setUp: setUpPlayersAndTeams) { spelling, writer, kind in
            // The connection is used right in the subscriber, which would be
            // a fatal error out of the writer's queue.
            let recorder = spelling
                .changes(DatabaseRegionObservation(tracking: Player.all()), in: writer)
                .tryMap { db in try Player.fetchCount(db) }
                .record()
            XCTAssertTrue(recorder.values.isEmpty, "\(spelling), \(kind): no initial element")

            // Elements are emitted right after each commit, before the write
            // returns: no need to wait.
            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            XCTAssertEqual(recorder.values, [1], "\(spelling), \(kind)")

            try writer.writeWithoutTransaction { db in
                try db.inTransaction {
                    try Player(id: 2, name: "Barbara", score: 750).insert(db)
                    return .rollback
                }
            }
            XCTAssertEqual(recorder.values, [1], "\(spelling), \(kind): no element on rollback")

            try writer.write { db in try db.execute(sql: "INSERT INTO team (name) VALUES ('Red')") }
            XCTAssertEqual(recorder.values, [1], "\(spelling), \(kind): no element out of the region")

            try writer.writeWithoutTransaction { db in
                try db.inTransaction {
                    try Player(id: 2, name: "Barbara", score: 750).insert(db)
                    try Player(id: 3, name: "Craig", score: 500).insert(db)
                    return .commit
                }
            }
            XCTAssertEqual(recorder.values, [1, 3], "\(spelling), \(kind)")
            XCTAssertNil(recorder.completion, "\(spelling), \(kind)")
        }
    }

    func testTrackingIsRxGRDBSpellingOfInitTracking() {
        forEachSpellingAndWriter(setUp: setUpPlayersAndTeams) { spelling, writer, kind in
            let players = spelling.changes(DatabaseRegionObservation.tracking(Player.all()), in: writer)
                .tryMap { db in try Player.fetchCount(db) }
                .record()
            let both = spelling.changes(DatabaseRegionObservation.tracking([Player.all(), Table("team")]), in: writer)
                .map { _ in "changed" }
                .record()
            try writer.write { db in try db.execute(sql: "INSERT INTO team (name) VALUES ('Red')") }
            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            XCTAssertEqual(players.values, [1], "\(spelling), \(kind)")
            XCTAssertEqual(both.values, ["changed", "changed"], "\(spelling), \(kind)")
        }
    }

    func testSubscriptionRetainsTheDatabaseUntilCancelled() throws {
        // GRDB's region observation does not retain its database: the
        // subscription does, as GRDB's own publisher does.
        for spelling in Spelling.allCases {
            weak var weakQueue: DatabaseQueue?
            let recorder = try { () -> Recorder<Database, Error> in
                let dbQueue = try DatabaseQueue()
                try dbQueue.write(Player.createTable)
                weakQueue = dbQueue
                return spelling.changes(DatabaseRegionObservation(tracking: Player.all()), in: dbQueue).record()
            }()
            try XCTUnwrap(weakQueue, "\(spelling): released while observed")
                .write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            XCTAssertEqual(recorder.values.count, 1, "\(spelling)")

            recorder.cancel()
            let released = XCTNSPredicateExpectation(predicate: NSPredicate { _, _ in weakQueue == nil }, object: nil)
            waitFor([released], "\(spelling): retained after cancel")
        }
    }

    func testFailedObservationReleasesItsDatabase() throws {
        for spelling in Spelling.allCases {
            weak var weakQueue: DatabaseQueue?
            let recorder = try { () -> Recorder<Database, Error> in
                let dbQueue = try DatabaseQueue()
                weakQueue = dbQueue
                return spelling
                    .changes(DatabaseRegionObservation(tracking: SQLRequest<Row>(sql: "SELECT * FROM missing")), in: dbQueue)
                    .record()
            }()
            let recording = waitForCompletion(of: recorder)
            XCTAssertNotNil(recording.failure, "\(spelling)")

            // The recorder still holds the subscription: the failed
            // subscription has released the database.
            let released = XCTNSPredicateExpectation(predicate: NSPredicate { _, _ in weakQueue == nil }, object: nil)
            waitFor([released], "\(spelling): retained after failure")
            withExtendedLifetime(recorder) { }
        }
    }

    func testSubscriptionFromAWriteMissesNoTransaction() {
        forEachSpellingAndWriter { spelling, writer, kind in
            // The current state and every later transaction: the usual way
            // to start from a known state.
            let recorder = try writer.write { db in
                spelling
                    .changes(DatabaseRegionObservation(tracking: Player.all()), in: writer)
                    .prepend(db)
                    .tryMap { db in try Player.fetchCount(db) }
                    .record()
            }

            try insertOneThenTwoPlayers(writer)
            XCTAssertEqual(recorder.values, [0, 1, 3], "\(spelling), \(kind)")
            XCTAssertNil(recorder.completion, "\(spelling), \(kind)")
        }
    }

    func testSubscriptionFromAnotherThread() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let recorder = Recorder<Int, Error>()
            let publisher = spelling
                .changes(DatabaseRegionObservation(tracking: Player.all()), in: writer)
                .tryMap { db in try Player.fetchCount(db) }
            let subscribed = XCTestExpectation(description: "subscribed")
            let subscription = UncheckedSendable(value: (publisher, recorder))
            DispatchQueue.global().async {
                subscription.value.0.subscribe(subscription.value.1)
                subscribed.fulfill()
            }
            waitFor([subscribed], "\(spelling), \(kind)")

            try insertOneThenTwoPlayers(writer)
            XCTAssertEqual(recorder.values, [1, 3], "\(spelling), \(kind)")
        }
    }

    func testObservationFailsWithTheSQLError() {
        forEachSpellingAndWriter { spelling, writer, kind in
            let recorder = spelling
                .changes(DatabaseRegionObservation(tracking: SQLRequest<Row>(sql: "SELECT * FROM missing")), in: writer)
                .record()

            let recording = waitForCompletion(of: recorder)
            XCTAssertTrue(recording.values.isEmpty, "\(spelling), \(kind)")
            assertDatabaseError(recording.failure, resultCode: .SQLITE_ERROR, sql: "SELECT * FROM missing", "\(spelling), \(kind)")
        }
    }
}
