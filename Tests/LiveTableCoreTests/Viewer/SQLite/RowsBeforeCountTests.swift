import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// The count of the rows before the selection on SQLite
/// (`SQLiteDataSource.countRows(of:before:ticket:)`), in short reads where
/// an index gives the order, as the count of all rows is made: exact when
/// nothing commits meanwhile, an estimate when something does, and a
/// writer of a rollback-journal file commits between two reads rather
/// than waits for the whole count.
final class RowsBeforeCountTests: XCTestCase {
    /// Each row's count in short reads, in each order and chunk size
    /// (NULLs and equal sort values included), is its place, in one read
    /// per chunk and one that finds the start.
    func testCountInShortReadsIsExactWhenQuiet() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("small.sqlite").path
        try ForeignFile.sqlite3(path, """
            CREATE TABLE item(id INTEGER PRIMARY KEY, score INTEGER, name TEXT);
            CREATE INDEX item_score ON item(score);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40)
            INSERT INTO item SELECT i, CASE WHEN i % 7 = 0 THEN NULL ELSE i % 5 END, 'n' || i FROM n;
            """)
        let database = try SQLiteDataSource.open(path: path)
        for (column, descending) in [(nil, false), (nil, true), ("score", false), ("score", true)] as [(String?, Bool)] {
            let viewed = try database.open(.table("item"), sortColumn: column, descending: descending, ticket: ReadTicket())
            XCTAssertEqual(viewed.cost, .indexSearch)
            let request = RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 100)
            let positions = try database.read { db in try RowWindow.fetch(db, viewed.source, request) }.positions
            XCTAssertEqual(positions.count, 40)
            for (index, position) in positions.enumerated() {
                for chunk in [1, 7, 39, 40, 1000] {
                    var reads = 1
                    let count = try viewed.ordering.countRows(
                        in: viewed.source, before: position, cost: viewed.cost, chunk: chunk,
                        read: { body in try database.read(background: true, ticket: ReadTicket(), body) },
                        betweenReads: { reads += 1 })
                    let name = "\(column ?? "rowid") \(descending ? "desc" : "asc"), row \(index), chunk \(chunk)"
                    XCTAssertEqual(count, .exact(index), name)
                    XCTAssertEqual(reads, index / chunk + 1, name)
                }
            }
        }
    }

    /// A rollback-journal file of a million rows, the selection on the
    /// last row by score: another process's INSERT commits during the
    /// count, between two of its reads (it would wait for the end of a
    /// count in one read, or time out). The count says so (an estimate,
    /// of the right number: the new row comes after the selection), and
    /// the next one, with nothing committing, is exact.
    func testAWriterCommitsBetweenTheReadsOfALongCount() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("million.sqlite").path
        try ForeignFile.sqlite3(path, """
            PRAGMA journal_mode = DELETE;
            CREATE TABLE item(id INTEGER PRIMARY KEY, score INTEGER NOT NULL, name TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
            INSERT INTO item SELECT i, i % 1000, 'n' || i FROM n;
            CREATE INDEX item_score ON item(score);
            """)
        XCTAssertEqual(try ForeignFile.sqlite3(path, "PRAGMA journal_mode;"), "delete\n")
        let database = try SQLiteDataSource.open(path: path)
        let viewed = try database.open(.table("item"), sortColumn: "score", descending: false, ticket: ReadTicket())
        let request = RowWindowRequest(ordering: viewed.ordering, anchor: .last, before: 1, after: 0)
        let last = try database.read { db in try RowWindow.fetch(db, viewed.source, request) }
        let selection = try XCTUnwrap(last.positions.last)
        XCTAssertEqual(selection.key, [999.databaseValue, 999_999.databaseValue])

        var events: [String] = []
        var gaps = 0
        let count = try database.countRows(of: viewed, before: selection, ticket: ReadTicket(), betweenReads: {
            gaps += 1
            events.append("gap \(gaps)")
            guard gaps == 1 else { return }
            // Fails if a read of the count still holds the file (after
            // its 10 s of `.timeout`).
            try ForeignFile.sqlite3(path, ".timeout 10000\nINSERT INTO item(score, name) VALUES (5000, 'late');")
            events.append("the writer committed")
        })
        events.append("counted")
        let reads = 999_999 / RowSource.countChunk + 1
        XCTAssertEqual(events.prefix(3), ["gap 1", "the writer committed", "gap 2"])
        XCTAssertEqual(events.count, reads + 1, "one read per chunk and one that finds the start, then the end")
        XCTAssertEqual(events.last, "counted")
        XCTAssertEqual(count, .estimated(999_999))

        XCTAssertEqual(try database.countRows(of: viewed, before: selection, ticket: ReadTicket()), .exact(999_999))
        XCTAssertEqual(try ForeignFile.sqlite3(path, "SELECT COUNT(*) FROM item;"), "1000001\n")
    }
}
