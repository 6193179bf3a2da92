import Foundation
import GRDB
import OpenCombine
import ReactiveGRDB
import XCTest

/// The request conveniences: `request.rx.changes(in:)`,
/// `request.rx.observeCount(in:)`, `request.rx.observeAll(in:)` and
/// `request.rx.observeFirst(in:)`.
///
/// Observed values are compared to their previous one, so each test waits
/// for each expected value before the next write: histories are then exact
/// with all kinds of databases.
final class FetchRequestRxTests: XCTestCase {
    private struct PlayerName: Decodable, FetchableRecord, Sendable {
        // Not Equatable: duplicates are still filtered out.
        var name: String
    }

    // MARK: - changes

    func testChanges() {
        forEachWriter { writer, kind in
            let recorder = Player.all().rx
                .changes(in: writer, startImmediately: false)
                .tryMap { db in try Player.fetchCount(db) }
                .record()
            XCTAssertTrue(recorder.values.isEmpty, "\(kind)")

            try insertOneThenTwoPlayers(writer)
            try writer.writeWithoutTransaction { db in
                try db.inTransaction {
                    try Player.deleteAll(db)
                    return .rollback
                }
            }
            XCTAssertEqual(recorder.values, [1, 3], "\(kind)")
        }
    }

    func testChangesTrackOnlyTheColumnsOfTheRequest() {
        forEachWriter { writer, kind in
            let recorder = Player.select(Column("score")).rx
                .changes(in: writer)
                .tryMap { db in try Int.fetchOne(db, sql: "SELECT SUM(score) FROM player") }
                .record()

            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            try writer.write { db in try db.execute(sql: "UPDATE player SET name = 'Barbara'") }
            try writer.write { db in try db.execute(sql: "UPDATE player SET score = 750") }
            XCTAssertEqual(recorder.values, [nil, 1000, 750], "\(kind)")
        }
    }

    // MARK: - observeCount

    func testObserveCount() {
        forEachWriter { writer, kind in
            let recorder = Player.all().rx.observeCount(in: writer).record()
            wait(for: recorder, until: { $0.values.last == 0 })

            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            wait(for: recorder, until: { $0.values.last == 1 })

            // Does not change the count.
            try writer.write { db in
                try Player(id: 2, name: "Barbara", score: 750).insert(db)
                try Player.deleteOne(db, id: 2)
            }
            try writer.write { db in try Player(id: 3, name: "Craig", score: 500).insert(db) }
            let recording = wait(for: recorder, until: { $0.values.last == 2 })
            XCTAssertEqual(recording.values, [0, 1, 2], "\(kind)")
            XCTAssertNil(recording.completion, "\(kind)")
        }
    }

    // MARK: - observeAll

    func testObserveAllRecords() {
        forEachWriter { writer, kind in
            let arthur = Player(id: 1, name: "Arthur", score: 1000)
            let barbara = Player(id: 2, name: "Barbara", score: 750)
            let recorder = Player.order(Column("id")).rx.observeAll(in: writer).record()
            wait(for: recorder, until: { $0.values.last == [] })

            try writer.write { db in try arthur.insert(db) }
            wait(for: recorder, until: { $0.values.last == [arthur] })

            // Does not change the players.
            try writer.write { db in try db.execute(sql: "UPDATE player SET name = name") }
            try writer.write { db in try barbara.insert(db) }
            let recording = wait(for: recorder, until: { $0.values.last == [arthur, barbara] })
            XCTAssertEqual(recording.values, [[], [arthur], [arthur, barbara]], "\(kind)")
        }
    }

    func testObserveAllRecordsThatAreNotEquatable() {
        forEachWriter { writer, kind in
            let recorder = Player.select(Column("name")).order(Column("name"))
                .asRequest(of: PlayerName.self)
                .rx.observeAll(in: writer)
                .map { $0.map(\.name) }
                .record()
            wait(for: recorder, until: { $0.values.last == [] })

            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            wait(for: recorder, until: { $0.values.last == ["Arthur"] })

            // Does not change the names.
            try writer.write { db in try db.execute(sql: "UPDATE player SET name = name") }
            try writer.write { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) }
            let recording = wait(for: recorder, until: { $0.values.last == ["Arthur", "Barbara"] })
            XCTAssertEqual(recording.values, [[], ["Arthur"], ["Arthur", "Barbara"]], "\(kind)")
        }
    }

    func testObserveAllValues() {
        forEachWriter { writer, kind in
            let recorder = Player.select(Column("name"), as: String.self).order(Column("name"))
                .rx.observeAll(in: writer)
                .record()
            wait(for: recorder, until: { $0.values.last == [] })

            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            wait(for: recorder, until: { $0.values.last == ["Arthur"] })

            // Does not change the names.
            try writer.write { db in try db.execute(sql: "UPDATE player SET name = name") }
            try writer.write { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) }
            let recording = wait(for: recorder, until: { $0.values.last == ["Arthur", "Barbara"] })
            XCTAssertEqual(recording.values, [[], ["Arthur"], ["Arthur", "Barbara"]], "\(kind)")
        }
    }

    /// RxGRDB 0.18: "When tracking values, make sure to ask for optionals
    /// when database may contain NULL".
    func testObserveAllOptionalValuesOfSQLRequest() {
        forEachWriter(setUp: { db in
            try db.execute(sql: "CREATE TABLE player(id INTEGER PRIMARY KEY, email TEXT)")
        }) { writer, kind in
            let request: SQLRequest<String?> = "SELECT email FROM player ORDER BY id"
            let recorder = request.rx.observeAll(in: writer).record()
            wait(for: recorder, until: { $0.values.count == 1 })

            try writer.write { db in
                try db.execute(sql: "INSERT INTO player(id, email) VALUES (1, 'arthur@example.com'), (2, NULL)")
            }
            wait(for: recorder, until: { $0.values.count == 2 })
            // A NULL that stays NULL does not change the values.
            try writer.write { db in try db.execute(sql: "UPDATE player SET email = NULL WHERE id = 2") }
            try writer.write { db in try db.execute(sql: "UPDATE player SET email = 'b@example.com' WHERE id = 2") }
            let recording = wait(for: recorder, until: { $0.values.count == 3 })
            XCTAssertEqual(recording.values, [[], ["arthur@example.com", nil], ["arthur@example.com", "b@example.com"]], "\(kind)")
        }
    }

    // MARK: - observeFirst

    func testObserveFirstRecord() {
        forEachWriter { writer, kind in
            let arthur = Player(id: 1, name: "Arthur", score: 1000)
            let craig = Player(id: 3, name: "Craig", score: 2000)
            let recorder = Player.order(Column("score").desc).rx.observeFirst(in: writer).record()
            wait(for: recorder, valueCount: 1)

            try writer.write { db in try arthur.insert(db) }
            wait(for: recorder, until: { $0.values.last == arthur })

            // Does not change the best player.
            try writer.write { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) }
            try writer.write { db in try craig.insert(db) }
            let recording = wait(for: recorder, until: { $0.values.last == craig })
            XCTAssertEqual(recording.values, [nil, arthur, craig], "\(kind)")
        }
    }

    func testObserveFirstValue() {
        forEachWriter { writer, kind in
            let recorder = SQLRequest<Int>(sql: "SELECT MAX(score) FROM player")
                .rx.observeFirst(in: writer)
                .record()
            wait(for: recorder, valueCount: 1)

            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            wait(for: recorder, until: { $0.values.last == 1000 })

            // Does not change the maximum score.
            try writer.write { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) }
            try writer.write { db in try Player(id: 3, name: "Craig", score: 2000).insert(db) }
            let recording = wait(for: recorder, until: { $0.values.last == 2000 })
            XCTAssertEqual(recording.values, [nil, 1000, 2000], "\(kind)")
        }
    }

    // MARK: - Scheduling

    func testConveniencesPublishTheirInitialValueSynchronouslyOnTheMainQueueByDefault() {
        forEachReader { reader, kind in
            let onMainThread = Synchronized<[Bool]>([])
            let markMain: (Any) -> Void = { _ in onMainThread.update { $0.append(Thread.isMainThread) } }
            let request = Player.all()
            let countRecorder = Recorder<Int, Error>(onEvent: markMain)
            let allRecorder = Recorder<[Player], Error>(onEvent: markMain)
            let firstRecorder = Recorder<Player?, Error>(onEvent: markMain)
            request.rx.observeCount(in: reader).subscribe(countRecorder)
            request.rx.observeAll(in: reader).subscribe(allRecorder)
            request.rx.observeFirst(in: reader).subscribe(firstRecorder)

            // Synchronously, during the subscription.
            XCTAssertEqual(countRecorder.values, [0], "\(kind)")
            XCTAssertEqual(allRecorder.values, [[]], "\(kind)")
            XCTAssertEqual(firstRecorder.values, [nil], "\(kind)")
            XCTAssertEqual(onMainThread.value, [true, true, true], "\(kind)")

            guard let writer = reader as? any DatabaseWriter else { return }
            // Changes are published asynchronously, on the main queue.
            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            XCTAssertEqual(countRecorder.values, [0], "\(kind)")
            wait(for: countRecorder, until: { $0.values.last == 1 })
            try writer.write { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) }
            XCTAssertEqual(wait(for: countRecorder, until: { $0.values.last == 2 }).values, [0, 1, 2], "\(kind)")
            wait(for: allRecorder, until: { $0.values.last?.count == 2 })
            wait(for: firstRecorder, until: { $0.values.last??.id == 1 })
            XCTAssertTrue(onMainThread.value.allSatisfy { $0 }, "\(kind)")
        }
    }

    func testConveniencesAcceptAScheduler() {
        forEachWriter { writer, kind in
            let request = Player.all()
            let count = request.rx.observeCount(in: writer, scheduling: .immediate).record()
            let all = request.rx.observeAll(in: writer, scheduling: .immediate).record()
            let first = request.rx.observeFirst(in: writer, scheduling: .immediate).record()
            let names = Player.select(Column("name"), as: String.self)
                .rx.observeAll(in: writer, scheduling: .immediate).record()
            let maxScore = SQLRequest<Int>(sql: "SELECT MAX(score) FROM player")
                .rx.observeFirst(in: writer, scheduling: .immediate).record()

            // Immediate values, during the subscription.
            XCTAssertEqual(count.values, [0], "\(kind)")
            XCTAssertEqual(all.values, [[]], "\(kind)")
            XCTAssertEqual(first.values, [nil], "\(kind)")
            XCTAssertEqual(names.values, [[]], "\(kind)")
            XCTAssertEqual(maxScore.values, [nil], "\(kind)")
        }
    }

    func testObserveOnPublishesEveryValueOnTheScheduler() {
        forEachWriter { writer, kind in
            let marker = QueueMarker(label: "custom")
            let onCustomQueue = Synchronized<[Bool]>([])
            let mark: (Any) -> Void = { _ in onCustomQueue.update { $0.append(marker.isCurrent) } }
            let scheduler = marker.queue.ocombine
            let request = Player.order(Column("id"))
            let count = Recorder<Int, Error>(onEvent: mark)
            let all = Recorder<[Player], Error>(onEvent: mark)
            let first = Recorder<Player?, Error>(onEvent: mark)
            let names = Recorder<[String], Error>(onEvent: mark)
            let maxScore = Recorder<Int?, Error>(onEvent: mark)
            request.rx.observeCount(in: writer, observeOn: scheduler).subscribe(count)
            request.rx.observeAll(in: writer, observeOn: scheduler).subscribe(all)
            request.rx.observeFirst(in: writer, observeOn: scheduler).subscribe(first)
            Player.select(Column("name"), as: String.self).order(Column("id"))
                .rx.observeAll(in: writer, observeOn: scheduler).subscribe(names)
            SQLRequest<Int>(sql: "SELECT MAX(score) FROM player")
                .rx.observeFirst(in: writer, observeOn: scheduler).subscribe(maxScore)
            wait(for: count, valueCount: 1)
            wait(for: all, valueCount: 1)
            wait(for: first, valueCount: 1)
            wait(for: names, valueCount: 1)
            wait(for: maxScore, valueCount: 1)

            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            // A pool may coalesce the values of consecutive transactions:
            // wait for each value before the next write.
            wait(for: count, valueCount: 2)
            wait(for: all, valueCount: 2)
            wait(for: names, valueCount: 2)
            // Identical consecutive values are filtered out.
            try writer.write { db in try db.execute(sql: "UPDATE player SET name = name") }
            try writer.write { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) }
            XCTAssertEqual(wait(for: count, valueCount: 3).values, [0, 1, 2], "\(kind)")
            XCTAssertEqual(wait(for: all, valueCount: 3).values.map { $0.map(\.name) }, [[], ["Arthur"], ["Arthur", "Barbara"]], "\(kind)")
            XCTAssertEqual(wait(for: first, valueCount: 2).values.map { $0?.name }, [nil, "Arthur"], "\(kind)")
            XCTAssertEqual(wait(for: names, valueCount: 3).values, [[], ["Arthur"], ["Arthur", "Barbara"]], "\(kind)")
            XCTAssertEqual(wait(for: maxScore, valueCount: 2).values, [nil, 1000], "\(kind)")
            XCTAssertEqual(onCustomQueue.value.count, 13, "\(kind)")
            XCTAssertTrue(onCustomQueue.value.allSatisfy { $0 }, "\(kind): \(onCustomQueue.value)")
            for recorder in [count, all, first, names, maxScore] as [Cancellable] { recorder.cancel() }
        }
    }

    func testObserveOnPublishesTheInitialValueAsynchronously() {
        forEachWriter { writer, kind in
            // Even on the main queue, subscribed from the main thread.
            let recorder = Player.all().rx.observeCount(in: writer, observeOn: DispatchQueue.main.ocombine).record()
            XCTAssertTrue(recorder.values.isEmpty, "\(kind)")
            XCTAssertEqual(wait(for: recorder, valueCount: 1).values, [0], "\(kind)")
        }
    }
}
