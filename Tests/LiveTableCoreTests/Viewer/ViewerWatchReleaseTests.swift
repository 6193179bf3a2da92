import Foundation
import GRDB
import XCTest
import LiveTableTestSupport
@testable import LiveTableCore
@testable import ReactiveGRDB

/// The viewer's watch of other processes' commits lives as long as a
/// window shows: back on the picker, or once the loop is stopped, nothing
/// polls the file and the watch's connection is closed. Polled every
/// 0.1 s (`--poll 0.1`), as on a remote file system, but on a local file.
/// The Hall of Fame's watch, the same way, stops with its loop.
final class ViewerWatchReleaseTests: XCTestCase {
    func testTheWatchStopsWithItsTableAndWithTheLoop() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("watched.sqlite").path
        try ForeignFile.sqlite3(path, """
            CREATE TABLE a_item(id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE b_item(id INTEGER PRIMARY KEY, name TEXT);
            INSERT INTO a_item(name) VALUES ('a1'), ('a2');
            INSERT INTO b_item(name) VALUES ('b1'), ('b2'), ('b3');
            """)
        let database = try SQLiteDataSource.open(path: path)
        try MainActor.assumeIsolated {
            let viewed = try database.read { db in
                try ViewedSource.open(.table("a_item"), sortColumn: nil, descending: false, in: db)
            }
            // The viewer's own two connections.
            let ownFiles = Self.openDescriptors(of: path)
            let loop = AppLoop(
                program: ViewerProgram(dataSource: database.withPolling(CommitPolling(interval: 0.1))),
                state: .initial(databaseName: "watched.sqlite", opened: viewed, width: 60, height: 10))
            loop.start(host: SilentHost())
            defer { loop.stop() }
            loop.send(.resize(width: 60, height: 10))
            XCTAssertTrue(waitUntil("the first table") { loop.state.table?.window?.rows.count == 2 })
            XCTAssertTrue(CommitWatch.isWatching(database.reader))
            XCTAssertEqual(Self.openDescriptors(of: path), ownFiles + 1, "the watch's own connection")

            // `t`: the picker watches nothing.
            loop.send(.key(.character("t")))
            XCTAssertTrue(waitUntil("the picker") { loop.state.picker.entries?.count == 2 })
            XCTAssertTrue(waitUntil("the first table's watch is released") { !CommitWatch.isWatching(database.reader) })
            XCTAssertTrue(waitUntil("the watch's connection is closed") { Self.openDescriptors(of: path) == ownFiles })

            // Another table has a watch of its own, which the loop's stop
            // releases.
            loop.send(.key(.down))
            loop.send(.key(.enter))
            XCTAssertTrue(waitUntil("the second table") { loop.state.table?.window?.rows.count == 3 })
            XCTAssertTrue(CommitWatch.isWatching(database.reader))
            XCTAssertEqual(Self.openDescriptors(of: path), ownFiles + 1, "one watch, not two")
            // A commit of another process still reaches it.
            _ = try ForeignFile.sqlite3(path, "INSERT INTO b_item(name) VALUES ('b4')")
            XCTAssertTrue(waitUntil("the commit") { loop.state.table?.window?.rows.count == 4 })

            loop.stop()
            XCTAssertTrue(waitUntil("the second table's watch is released") { !CommitWatch.isWatching(database.reader) })
            XCTAssertTrue(waitUntil("the watch's connection is closed") { Self.openDescriptors(of: path) == ownFiles })
        }
    }

    func testTheHallOfFameWatchStopsWithTheLoop() throws {
        try MainActor.assumeIsolated {
            for kind in [DatabaseKind.onDiskQueue, .pool] {
                let writer = try kind.makeWriter(in: try makeTemporaryDirectory())
                let appDatabase = try AppDatabase(writer, seed: 1)
                try appDatabase.createRandomPlayersIfEmpty()
                let loop = AppLoop(
                    program: HallOfFameProgram(database: appDatabase, polling: CommitPolling(interval: 0.1)),
                    state: .initial(width: 80, height: 24))
                let host = SilentHost()
                loop.start(host: host)
                loop.send(.resize(width: 80, height: 24))
                XCTAssertTrue(waitUntil("the first value, \(kind)") { loop.state.hallOfFame != nil })
                XCTAssertTrue(CommitWatch.isWatching(writer), "\(kind)")
                // Another process's commit reaches the screen.
                let count = try XCTUnwrap(loop.state.hallOfFame?.playerCount)
                _ = try ForeignFile.sqlite3(writer.path, "INSERT INTO player(name, score) VALUES ('Other', 1)")
                XCTAssertTrue(waitUntil("the commit, \(kind)") { loop.state.hallOfFame?.playerCount == count + 1 })

                withExtendedLifetime(host) { loop.stop() }
                XCTAssertTrue(waitUntil("the watch is released, \(kind)") { !CommitWatch.isWatching(writer) })
                try writer.close()
                XCTAssertEqual(Self.openDescriptors(of: writer.path), 0, "\(kind): no connection left open")
            }
        }
    }

    /// The number of this process's file descriptors open on `path`.
    private static func openDescriptors(of path: String) -> Int {
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.filter { descriptor in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")) == target
        }.count
    }
}

/// A host that draws nothing.
@MainActor
private final class SilentHost: AppHost {
    func draw(_ screen: Screen) { }
    func suspend() { }
    func quit() { }
}
