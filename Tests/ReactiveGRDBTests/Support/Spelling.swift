import GRDB
import OpenCombine
import ReactiveGRDB
import XCTest

/// The two spellings of each publisher: RxGRDB's `rx.*` methods, and
/// GRDB's `*Publisher` and `publisher(in:)` methods. Tests run each scenario
/// with both, so that both spellings are proven to behave the same.
///
/// The methods without a scheduler argument call the library without one,
/// so that its default schedulers are the ones tested.
enum Spelling: String, CaseIterable, CustomStringConvertible {
    case rx = "rx spelling"
    case grdb = "GRDB spelling"

    var description: String { rawValue }

    // MARK: - Read

    func read<Output>(
        _ reader: any DatabaseReader,
        value: @escaping @Sendable (Database) throws -> Output)
    -> DatabasePublishers.Read<Output>
    {
        switch self {
        case .rx: reader.rx.read(value: value)
        case .grdb: reader.readPublisher(value: value)
        }
    }

    func read<Output>(
        _ reader: any DatabaseReader,
        on scheduler: some OpenCombine.Scheduler,
        value: @escaping @Sendable (Database) throws -> Output)
    -> DatabasePublishers.Read<Output>
    {
        switch self {
        case .rx: reader.rx.read(observeOn: scheduler, value: value)
        case .grdb: reader.readPublisher(receiveOn: scheduler, value: value)
        }
    }

    // MARK: - Write

    func write<Output>(
        _ writer: any DatabaseWriter,
        updates: @escaping @Sendable (Database) throws -> Output)
    -> DatabasePublishers.Write<Output>
    {
        switch self {
        case .rx: writer.rx.write(updates: updates)
        case .grdb: writer.writePublisher(updates: updates)
        }
    }

    func write<Output>(
        _ writer: any DatabaseWriter,
        on scheduler: some OpenCombine.Scheduler,
        updates: @escaping @Sendable (Database) throws -> Output)
    -> DatabasePublishers.Write<Output>
    {
        switch self {
        case .rx: writer.rx.write(observeOn: scheduler, updates: updates)
        case .grdb: writer.writePublisher(receiveOn: scheduler, updates: updates)
        }
    }

    func write<T: Sendable, Output>(
        _ writer: any DatabaseWriter,
        updates: @escaping @Sendable (Database) throws -> T,
        thenRead value: @escaping @Sendable (Database, T) throws -> Output)
    -> DatabasePublishers.Write<Output>
    {
        switch self {
        case .rx: writer.rx.write(updates: updates, thenRead: value)
        case .grdb: writer.writePublisher(updates: updates, thenRead: value)
        }
    }

    func write<T: Sendable, Output>(
        _ writer: any DatabaseWriter,
        on scheduler: some OpenCombine.Scheduler,
        updates: @escaping @Sendable (Database) throws -> T,
        thenRead value: @escaping @Sendable (Database, T) throws -> Output)
    -> DatabasePublishers.Write<Output>
    {
        switch self {
        case .rx: writer.rx.write(observeOn: scheduler, updates: updates, thenRead: value)
        case .grdb: writer.writePublisher(receiveOn: scheduler, updates: updates, thenRead: value)
        }
    }

    // MARK: - ValueObservation

    func observe<Reducer>(
        _ observation: ValueObservation<Reducer>,
        in reader: any DatabaseReader)
    -> DatabasePublishers.Value<Reducer.Value>
    {
        switch self {
        case .rx: observation.rx.observe(in: reader)
        case .grdb: observation.publisher(in: reader)
        }
    }

    func observe<Reducer>(
        _ observation: ValueObservation<Reducer>,
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler)
    -> DatabasePublishers.Value<Reducer.Value>
    {
        switch self {
        case .rx: observation.rx.observe(in: reader, scheduling: scheduler)
        case .grdb: observation.publisher(in: reader, scheduling: scheduler)
        }
    }

    // MARK: - DatabaseRegionObservation

    func changes(
        _ observation: DatabaseRegionObservation,
        in writer: any DatabaseWriter)
    -> DatabasePublishers.DatabaseRegion
    {
        switch self {
        case .rx: observation.rx.changes(in: writer)
        case .grdb: observation.publisher(in: writer)
        }
    }
}

/// Runs `test` for each spelling and each kind of database writer.
extension XCTestCase {
    func forEachSpellingAndWriter(
        setUp: (Database) throws -> Void = Player.createTable,
        file: StaticString = #filePath,
        line: UInt = #line,
        _ test: (_ spelling: Spelling, _ writer: any DatabaseWriter, _ kind: DatabaseKind) throws -> Void)
    {
        for spelling in Spelling.allCases {
            forEachWriter(setUp: setUp, file: file, line: line) { writer, kind in
                try test(spelling, writer, kind)
            }
        }
    }

    func forEachSpellingAndReader(
        setUp: (Database) throws -> Void = Player.createTable,
        file: StaticString = #filePath,
        line: UInt = #line,
        _ test: (_ spelling: Spelling, _ reader: any DatabaseReader, _ kind: DatabaseKind) throws -> Void)
    {
        for spelling in Spelling.allCases {
            forEachReader(setUp: setUp, file: file, line: line) { reader, kind in
                try test(spelling, reader, kind)
            }
        }
    }
}

/// The publishers of one value, or an error: a read, a write, and a write
/// followed by a read.
enum OneValueAccess: String, CaseIterable, CustomStringConvertible {
    case read
    case write
    case writeThenRead = "write then read"

    var description: String { rawValue }
}

extension Spelling {
    /// A publisher of `access` that publishes `value` on `scheduler`: the
    /// value is read, or written, or read after an empty write.
    func publisher<Output>(
        of access: OneValueAccess,
        in writer: any DatabaseWriter,
        on scheduler: some OpenCombine.Scheduler,
        value: @escaping @Sendable (Database) throws -> Output)
    -> AnyPublisher<Output, Error>
    {
        switch access {
        case .read:
            read(writer, on: scheduler, value: value).eraseToAnyPublisher()
        case .write:
            write(writer, on: scheduler, updates: value).eraseToAnyPublisher()
        case .writeThenRead:
            write(writer, on: scheduler, updates: { _ in }, thenRead: { db, _ in try value(db) }).eraseToAnyPublisher()
        }
    }
}
