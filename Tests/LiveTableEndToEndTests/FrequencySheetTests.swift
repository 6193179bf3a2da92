import Foundation
import XCTest

/// `#` in tmux (issue 27): the frequency sheet of the real binary, on a
/// SQLite file that Python writes and on the test PostgreSQL server, its
/// counts equal to `sqlite3`'s and `psql`'s `GROUP BY` before and after
/// another process's commit; the selection stays on its group, Enter opens
/// the group's rows, `q` comes back.
final class FrequencySheetTests: LiveTableTestCase {
    /// 200 orders: paid 80, shipped 60, new 20, refunded 20, NULL 20.
    private static let statusOf = "CASE WHEN i % 10 < 4 THEN 'paid' WHEN i % 10 < 7 THEN 'shipped' "
        + "WHEN i % 10 = 7 THEN 'new' WHEN i % 10 = 8 THEN 'refunded' END"
    private static let groupBy = "SELECT coalesce(status, 'NULL'), count(*) FROM orders GROUP BY status;"
    /// Moves 30 paid orders to shipped: shipped is then the first group.
    private static let move = "UPDATE orders SET status = 'shipped' WHERE id IN (SELECT id FROM orders WHERE status = 'paid' ORDER BY id LIMIT 30);"

    func testSQLite() throws {
        let path = directory.appendingPathComponent("shop.sqlite").path
        try Shell.python("""
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            c.execute("CREATE TABLE orders(id INTEGER PRIMARY KEY, status TEXT, amount INTEGER)")
            c.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) "
                      "INSERT INTO orders SELECT i, \(Self.statusOf), i FROM n")
            c.commit()
            """, [path])
        let session = try launch(["view", path, "orders"])
        try session.waitForScreen(containing: "row 1 of 200 · live")
        try checkFrequencySheet(session, groupBy: { try Self.sqlite3(path, Self.groupBy) }, commit: {
            try Shell.python("""
                import sqlite3, sys
                c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()
                """, [path, Self.move])
        })
        // The file is as the writer left it: the viewer wrote nothing.
        XCTAssertEqual(try Self.sqlite3(path, "SELECT count(*) FROM orders WHERE status = 'shipped';"), "90")
    }

    func testPostgres() throws {
        let database = try classDatabase()
        try postgres.psql("""
            DROP TABLE IF EXISTS orders;
            CREATE TABLE orders(id integer PRIMARY KEY, status text, amount integer);
            INSERT INTO orders SELECT i, \(Self.statusOf), i FROM generate_series(1, 200) i;
            """, database: database, as: postgres.writer)
        let session = try launch(["view", try viewerURL(database), "orders"], width: 120)
        try session.waitForScreen(containing: "row 1 of 200 · live")
        try checkFrequencySheet(session, groupBy: { try self.psqlAsWriter(Self.groupBy, database) }, commit: {
            _ = try self.psqlAsWriter(Self.move, database)
        })
    }

    // MARK: - The scenario

    private func checkFrequencySheet(
        _ session: TmuxSession, groupBy: () throws -> String, commit: () throws -> Void) throws
    {
        try session.send("l", "#")
        try session.waitForScreen(containing: "› status: frequency")
        try waitForCounts(session, groupBy)
        // On the second group, shipped (paid is first); another process
        // moves 30 paid orders to shipped, which becomes the first group.
        try session.send("j")
        try session.waitForScreen(containing: "row 2 of 5")
        XCTAssertTrue(Self.rows(try session.screen())[1].hasPrefix("shipped"))
        try commit()
        try waitForCounts(session, groupBy)
        let screen = try session.waitForScreen(containing: "row 1 of 5")
        XCTAssertEqual(Self.rows(screen).first?.split(separator: " ").prefix(2), ["shipped", "90"])
        // The changed counts are highlighted (bold yellow, reversed); the
        // changed bar in yellow, not reversed, where its blocks would blank.
        let lines = try session.styledLines()
        XCTAssertTrue(lines.first { $0.text.contains("shipped") }?.codes(of: "90")?.contains("33") == true)
        // paid, not selected: 50 of 90, 11 blocks.
        let paid = try XCTUnwrap(lines.first { $0.text.hasPrefix(" paid") })
        let bar = try XCTUnwrap(paid.codes(of: String(repeating: "█", count: 11)))
        XCTAssertTrue(bar.contains("33") && !bar.contains("7"), "\(bar)")

        // Enter: the shipped orders, filtered; q: back on the group; q: the orders.
        try session.send("Enter")
        try session.waitForScreen(containing: "› orders · where \"status\" = 'shipped'")
        try session.waitForScreen(containing: "90 · live")
        try session.send("q")
        try session.waitForScreen(containing: "row 1 of 5")
        try session.send("q")
        try session.waitForScreen(containing: "row 1 of 200 · live")
        XCTAssertFalse(try session.screen().contains("where"))
        try session.send("q")
        try waitForExit(session, status: 0)
    }

    /// Until the sheet's groups and counts are the database's own.
    private func waitForCounts(_ session: TmuxSession, _ groupBy: () throws -> String) throws {
        let expected = Set(try groupBy().split(separator: "\n").map { $0.replacingOccurrences(of: "|", with: " ") })
        try session.waitForScreen("the counts of \(expected.sorted())") { screen in
            Set(Self.rows(screen).map { $0.split(separator: " ").prefix(2).joined(separator: " ") }) == expected
        }
    }

    /// The list's lines: below the title and the header, down to the first blank line.
    private static func rows(_ screen: String) -> [String] {
        screen.components(separatedBy: "\n").dropFirst(2)
            .prefix { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }

    private static func sqlite3(_ path: String, _ sql: String) throws -> String {
        let result = try Shell.run("/usr/bin/sqlite3", ["-batch", path, sql])
        guard result.status == 0 else { throw HarnessError("sqlite3: \(result.standardError)") }
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
