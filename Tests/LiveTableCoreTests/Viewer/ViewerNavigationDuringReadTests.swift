import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// Keys pressed while a window is read, on the real app loop: sorted by a
/// column without an index, each new window is a scan, and PgDn pressed
/// again and again arrives while one runs. No key is lost: each one moves
/// the selection a page, applied when the read ends; the screen says
/// "reading…" meanwhile.
final class ViewerNavigationDuringReadTests: XCTestCase {
    private static let rowCount = 200_000
    private var path: String!
    private var database: SQLiteDataSource!

    override func setUpWithError() throws {
        path = try makeTemporaryDirectory().appendingPathComponent("tracks.sqlite").path
        // Titles in an order unrelated to the ids, without an index.
        try ForeignFile.sqlite3(path, """
            CREATE TABLE tracks(id INTEGER PRIMARY KEY, title TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(Self.rowCount))
            INSERT INTO tracks(title) SELECT printf('%08x', (i * 2654435761) % 4294967296) FROM n;
            """)
        database = try SQLiteDataSource.open(path: path)
    }

    /// The id of row `number` (from 1) in title order, as the sqlite3 CLI reads it.
    private func id(ofRow number: Int) throws -> DatabaseValue {
        let text = try ForeignFile.sqlite3(path, "SELECT id FROM tracks ORDER BY title, id LIMIT 1 OFFSET \(number - 1);")
        return Int64(text.trimmingCharacters(in: .whitespacesAndNewlines))!.databaseValue
    }

    @MainActor
    private func startLoop() throws -> (AppLoop<ViewerProgram>, ScreenRecorder) {
        let viewed = try database.read { db in
            try ViewedSource.open(.table("tracks"), sortColumn: "title", descending: false, in: db)
        }
        XCTAssertEqual(viewed.cost, .scan)
        let host = ScreenRecorder()
        let loop = AppLoop(
            program: ViewerProgram(dataSource: database),
            state: .initial(databaseName: "tracks.sqlite", opened: viewed, width: 60, height: 10))
        loop.start(host: host)
        loop.send(.resize(width: 60, height: 10))
        XCTAssertTrue(waitUntil("the first window") {
            loop.state.table?.window != nil && loop.state.table?.rowCount == Self.rowCount
        })
        return (loop, host)
    }

    /// The id of the selected row.
    @MainActor
    private func selectedID(_ loop: AppLoop<ViewerProgram>) -> DatabaseValue? {
        guard let table = loop.state.table, let index = table.selectedIndex else { return nil }
        return table.window?.rows[index][0]
    }

    func testPageDownsPressedDuringAReadAreEachApplied() throws {
        try MainActor.assumeIsolated {
            let (loop, host) = try startLoop()
            defer { loop.stop() }
            let page = loop.state.pageRows
            // Twelve pages down, faster than windows are read: most keys
            // arrive while one is.
            for _ in 0..<12 {
                loop.send(.key(.pageDown))
            }
            XCTAssertTrue(host.screens.contains { $0.lines[9].contains("reading…") },
                          host.screens.last?.text ?? "")
            let expected = try id(ofRow: 12 * page + 1)
            XCTAssertTrue(waitUntil("twelve pages down", timeout: 60) {
                loop.state.table?.awaitsFirstWindow == false && selectedID(loop) == expected
            }, "selected \(String(describing: selectedID(loop))), expected \(expected)")
            XCTAssertFalse(viewerRender(loop.state).lines[9].contains("reading…"))
        }
    }

    func testPageDownsAndUpsDuringReadsNeverLoseAKey() throws {
        try MainActor.assumeIsolated {
            let (loop, _) = try startLoop()
            defer { loop.stop() }
            let page = loop.state.pageRows
            // Keys now and then while reads run: 9 down, 3 up, 5 down.
            let keys: [Key] = Array(repeating: .pageDown, count: 9) + Array(repeating: .pageUp, count: 3)
                + Array(repeating: .pageDown, count: 5)
            for key in keys {
                loop.send(.key(key))
                _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.03))
            }
            let expected = try id(ofRow: 11 * page + 1)
            XCTAssertTrue(waitUntil("eleven pages down", timeout: 60) {
                loop.state.table?.awaitsFirstWindow == false && selectedID(loop) == expected
            }, "selected \(String(describing: selectedID(loop))), expected \(expected), pending \(String(describing: loop.state.table?.pendingMove)), index \(String(describing: loop.state.table?.selectedIndex)) of \(String(describing: loop.state.table?.window?.rows.count)), row \(String(describing: loop.state.table?.selectedRow))")
        }
    }
}

extension ViewerNavigationDuringReadTests {
    func testMixedMovesAtUnevenIntervalsAllCount() throws {
        try MainActor.assumeIsolated {
            let (loop, _) = try startLoop()
            defer { loop.stop() }
            let page = loop.state.pageRows
            // Six pages down first, so that no move reaches the start; then
            // a fixed mix of moves at intervals from none to longer than a read.
            let mix: [Key] = [.down, .pageUp, .down, .down, .pageDown, .up, .pageUp, .pageDown, .down, .pageUp]
            let keys: [Key] = Array(repeating: .pageDown, count: 6) + Array(repeating: mix, count: 3).flatMap { $0 }
            let intervals: [TimeInterval] = [0, 0.005, 0.02, 0.06, 0, 0.15, 0.01]
            var row = 0
            for (index, key) in keys.enumerated() {
                loop.send(.key(key))
                row += [Key.down: 1, .up: -1, .pageDown: page, .pageUp: -page][key] ?? 0
                _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: intervals[index % intervals.count]))
            }
            let expected = try id(ofRow: row + 1)
            XCTAssertTrue(waitUntil("every move applied", timeout: 60) {
                loop.state.table?.awaitsFirstWindow == false && selectedID(loop) == expected
            }, "selected \(String(describing: selectedID(loop))), expected \(expected) (row \(row + 1))")
        }
    }
}

/// A host that keeps every screen drawn.
@MainActor
private final class ScreenRecorder: AppHost {
    private(set) var screens: [Screen] = []
    func draw(_ screen: Screen) { screens.append(screen) }
    func suspend() { }
    func quit() { }
}
