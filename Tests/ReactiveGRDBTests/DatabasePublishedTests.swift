import Foundation
import GRDB
import Observation
import OpenCombine
import ReactiveGRDB
import SQLiteCommandLine
import XCTest

/// `@DatabasePublished`: a property that follows the database, its
/// `$property` publisher, its `ObservableObject` and Swift Observation
/// conformances.
final class DatabasePublishedTests: XCTestCase {
    /// The seed's declaration: a static publisher.
    private final class SeedModel {
        static let dbQueue: DatabaseQueue = {
            let dbQueue = try! DatabaseQueue()
            try! dbQueue.write { db in
                try Player.createTable(db)
                try Player(id: 1, name: "Arthur", score: 1000).insert(db)
            }
            return dbQueue
        }()
        static let playersPublisher = Player.observationForAll().publisher(in: dbQueue)

        @DatabasePublished(playersPublisher)
        var players: Result<[Player], Error>
    }

    private final class Model: ObservableObject {
        @DatabasePublished<[Player]>
        var players: Result<[Player], Error>

        // The owner changes when its property changes.
        var objectWillChange: ObservableObjectPublisher { $players.objectWillChange }

        init(_ publisher: DatabasePublishers.Value<[Player]>) {
            _players = DatabasePublished(publisher)
        }

        init(initialValue: [Player], _ publisher: DatabasePublishers.Value<[Player]>) {
            _players = DatabasePublished(initialValue: initialValue, publisher)
        }
    }

    /// An owner of several properties, which declares its publisher.
    private final class DeclaredPublisherModel: ObservableObject {
        let objectWillChange = ObservableObjectPublisher()

        @DatabasePublished<[Player]>
        var players: Result<[Player], Error>

        @DatabasePublished<Int>
        var playerCount: Result<Int, Error>

        init(_ writer: any DatabaseWriter) {
            _players = DatabasePublished(Player.order(Column("id")).observationForAll().publisher(in: writer))
            _playerCount = DatabasePublished(Player.observationForCount().publisher(in: writer))
        }
    }

    /// An owner with a `@Published` property, and nothing else to declare.
    private final class PublishedPropertyModel: ObservableObject {
        @Published var selection: Int?

        @DatabasePublished<[Player]>
        var players: Result<[Player], Error>

        init(_ publisher: DatabasePublishers.Value<[Player]>) {
            _players = DatabasePublished(publisher)
        }
    }

    @Observable
    final class ObservableModel {
        @ObservationIgnored
        @DatabasePublished<Int>
        var playerCount: Result<Int, Error>

        init(_ publisher: DatabasePublishers.Value<Int>) {
            _playerCount = DatabasePublished(publisher)
        }
    }

    private func names(_ result: Result<[Player], Error>) -> [String]? {
        try? result.get().map(\.name)
    }

    // MARK: - Initial value

    func testSeedDeclarationFetchesTheInitialValueAtOnce() throws {
        let model = SeedModel()
        XCTAssertEqual(try model.players.get().map(\.name), ["Arthur"])
    }

    func testInitialValueIsFetchedAtOnce() {
        forEachWriter { writer, kind in
            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            let model = Model(Player.observationForAll().publisher(in: writer))
            XCTAssertEqual(names(model.players), ["Arthur"], "\(kind)")
        }
    }

    func testExplicitInitialValueIsReplacedAsynchronously() {
        forEachWriter { writer, kind in
            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            let model = Model(initialValue: [], Player.observationForAll().publisher(in: writer))
            XCTAssertEqual(names(model.players), [], "\(kind)")
            let recorder = model.$players.map { $0.map(\.name) }.record()
            let recording = wait(for: recorder, valueCount: 2)
            XCTAssertEqual(recording.values, [[], ["Arthur"]], "\(kind)")
            XCTAssertEqual(names(model.players), ["Arthur"], "\(kind)")
        }
    }

    func testInitialErrorIsTheValueOfTheProperty() {
        forEachWriter { writer, kind in
            let publisher = SQLRequest<Player>(sql: "SELECT * FROM missing").observationForAll().publisher(in: writer)
            let model = Model(publisher)
            guard case let .failure(error) = model.players else {
                return XCTFail("\(kind): expected an error")
            }
            assertDatabaseError(error, resultCode: .SQLITE_ERROR, "\(kind)")
            let recording = waitForCompletion(of: model.$players.record())
            XCTAssertTrue(recording.values.isEmpty, "\(kind)")
            assertDatabaseError(recording.failure, resultCode: .SQLITE_ERROR, "\(kind)")
        }
    }

    // MARK: - Changes

    func testPropertyAndProjectedPublisherFollowTheDatabase() {
        forEachWriter { writer, kind in
            let model = Model(Player.order(Column("id")).observationForAll().publisher(in: writer))
            let recorder = model.$players.map { $0.map(\.name) }.record()
            XCTAssertEqual(recorder.values, [[]], "\(kind): the current value, at once")

            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            wait(for: recorder, valueCount: 2)
            XCTAssertEqual(names(model.players), ["Arthur"], "\(kind)")
            try writer.write { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) }
            let recording = wait(for: recorder, valueCount: 3)
            XCTAssertEqual(recording.values, [[], ["Arthur"], ["Arthur", "Barbara"]], "\(kind)")
            XCTAssertEqual(names(model.players), ["Arthur", "Barbara"], "\(kind)")
            XCTAssertNil(recording.completion, "\(kind)")
        }
    }

    func testObjectWillChangeFiresBeforeEachChange() {
        forEachWriter { writer, kind in
            let model = Model(Player.order(Column("id")).observationForAll().publisher(in: writer))
            // What the property holds when objectWillChange fires.
            let seen = Synchronized<[[String]?]>([])
            let cancellable = model.objectWillChange.sink { [unowned model] in
                seen.update { $0.append(self.names(model.players)) }
            }
            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            wait(for: seen, until: { $0.count == 1 })
            wait(for: model.$players.record(), until: { $0.values.last?.count == 1 })
            try writer.write { db in try Player(id: 2, name: "Barbara", score: 750).insert(db) }
            wait(for: seen, until: { $0.count == 2 })
            XCTAssertEqual(seen.value, [[], ["Arthur"]], "\(kind)")
            cancellable.cancel()
        }
    }

    func testOwnerPublisherFiresBeforeEachChangeOfEachProperty() {
        forEachWriter { writer, kind in
            let model = DeclaredPublisherModel(writer)
            // Read through the owner: the properties know their owner.
            XCTAssertEqual(names(model.players), [], "\(kind)")
            XCTAssertEqual(try model.playerCount.get(), 0, "\(kind)")
            // The player count and the number of players when
            // objectWillChange fires.
            let seen = Synchronized<[[Int]]>([])
            let cancellable = model.objectWillChange.sink { [unowned model] in
                seen.update { $0.append([(try? model.players.get())?.count ?? -1, (try? model.playerCount.get()) ?? -1]) }
            }
            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            wait(for: model.$players.record(), until: { $0.values.last?.count == 1 })
            wait(for: model.$playerCount.record(), until: { $0.values.last == 1 })
            // Once before each property changes, in any order.
            XCTAssertEqual(seen.value.count, 2, "\(kind): \(seen.value)")
            XCTAssertEqual(seen.value.first, [0, 0], "\(kind)")
            XCTAssertTrue(seen.value.last.map { [[1, 0], [0, 1]].contains($0) } ?? false, "\(kind): \(seen.value)")
            cancellable.cancel()
        }
    }

    func testOwnerWithAPublishedPropertyNeedsNoDeclaration() {
        forEachWriter { writer, kind in
            let model = PublishedPropertyModel(Player.order(Column("id")).observationForAll().publisher(in: writer))
            XCTAssertEqual(names(model.players), [], "\(kind)")
            let seen = Synchronized<[[String]?]>([])
            let cancellable = model.objectWillChange.sink { [unowned model] in
                seen.update { $0.append(self.names(model.players)) }
            }
            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            wait(for: model.$players.record(), until: { $0.values.last?.count == 1 })
            model.selection = 1
            XCTAssertEqual(seen.value, [[], ["Arthur"]], "\(kind)")
            cancellable.cancel()
        }
    }

    func testSwiftObservationTracksTheProperty() {
        forEachWriter { writer, kind in
            let model = ObservableModel(Player.observationForCount().publisher(in: writer))
            XCTAssertEqual(try model.playerCount.get(), 0, "\(kind)")
            let changes = Synchronized<[Int?]>([])
            withObservationTracking {
                _ = model.playerCount
            } onChange: {
                // Called before the change.
                changes.update { $0.append(try? model.playerCount.get()) }
            }
            try writer.write { db in try Player(id: 1, name: "Arthur", score: 1000).insert(db) }
            wait(for: changes, until: { $0.count == 1 })
            XCTAssertEqual(changes.value, [0], "\(kind)")
            wait(for: model.$playerCount.record(), until: { $0.values.last == 1 })
            XCTAssertEqual(try model.playerCount.get(), 1, "\(kind)")
        }
    }

    // MARK: - Lifetime

    func testPropertyTracksTheDatabaseForTheWholeLifeOfItsOwner() throws {
        try withTemporaryDirectory { directory in
            var dbQueue: DatabaseQueue? = try DatabaseQueue(path: directory.appendingPathComponent("db.sqlite").path)
            try dbQueue!.write(Player.createTable)
            var model: Model? = Model(Player.observationForAll().publisher(in: dbQueue!))
            weak let weakProperty = model!.$players
            weak let weakDatabase = dbQueue
            let recorder = model!.$players.map(\.count).record()

            // Still tracking after a while, without any other reference.
            for id in 1...3 {
                try dbQueue!.write { db in try Player(id: Int64(id), name: "P\(id)", score: id).insert(db) }
                wait(for: recorder, until: { $0.values.last == id })
            }
            XCTAssertEqual(recorder.values, [0, 1, 2, 3])
            recorder.cancel()

            // The property, its observation, and the database go with the owner.
            model = nil
            dbQueue = nil
            XCTAssertNil(weakProperty)
            // The observation releases the database on its queue.
            let released = XCTNSPredicateExpectation(predicate: NSPredicate { _, _ in weakDatabase == nil }, object: nil)
            waitFor([released], "retained after the owner is gone")
        }
    }

    // MARK: - Other processes

    func testPropertyFollowsTheCommitsOfAnotherProcess() throws {
        try withTemporaryDirectory { directory in
            let (path, other) = try otherProcessDatabase(in: directory, """
                PRAGMA journal_mode = wal;
                CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER);
                """)
            defer { other.close() }
            var configuration = Configuration()
            configuration.readonly = true
            let dbQueue = try DatabaseQueue(path: path, configuration: configuration)
            let model = Model(Player.order(Column("id")).observationForAll()
                .publisher(in: dbQueue)
                .includingOtherProcesses())
            XCTAssertEqual(names(model.players), [])
            let recorder = model.$players.map { $0.map(\.name) }.record()

            try other.execute("INSERT INTO player(name) VALUES ('Arthur')")
            wait(for: recorder, valueCount: 2)
            try other.execute("INSERT INTO player(name) VALUES ('Barbara')")
            let recording = wait(for: recorder, valueCount: 3)
            XCTAssertEqual(recording.values, [[], ["Arthur"], ["Arthur", "Barbara"]])
            XCTAssertEqual(names(model.players), ["Arthur", "Barbara"])

            // The error that ends the observation is the value of the property.
            try FileManager.default.removeItem(atPath: path)
            let failed = waitForCompletion(of: recorder)
            XCTAssertEqual((failed.failure as? DatabaseFileChangedError)?.reason, .deleted)
            guard case let .failure(error) = model.players else {
                return XCTFail("expected an error")
            }
            XCTAssertEqual((error as? DatabaseFileChangedError)?.reason, .deleted)
            recorder.cancel()
        }
    }
}
