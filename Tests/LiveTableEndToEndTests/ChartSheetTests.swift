import Foundation
import XCTest

/// `.` in tmux (issue 28 §3): the real binary's histogram with `NO_COLOR`,
/// on a SQLite file (at 80x24) and on the test PostgreSQL server, its
/// counts equal to `sqlite3`'s and `psql`'s `GROUP BY` of the same bins
/// before and after another process's inserts; Enter on a bar opens the
/// rows of its bin, `q` comes back.
final class ChartSheetTests: LiveTableTestCase {
    /// Amounts 1 to 200: twenty bins of ten, from 1.
    private static let groupBy = "SELECT 1 + (amount - 1) / 10 * 10, count(*) FROM orders GROUP BY 1 ORDER BY 1;"
    /// Five more orders of 45, in the bin from 41, and one of 7, in the first.
    private static let insert = "INSERT INTO orders(id, amount) VALUES (201, 45), (202, 45), (203, 45), (204, 45), (205, 45), (206, 7);"

    func testSQLite() throws {
        let path = directory.appendingPathComponent("shop.sqlite").path
        _ = try Self.sqlite3(path, """
            CREATE TABLE orders(id INTEGER PRIMARY KEY, amount INTEGER);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) INSERT INTO orders SELECT i, i FROM n;
            """)
        let session = try launch(["view", path, "orders"], width: 80, height: 24, environment: ["NO_COLOR": "1"])
        try session.waitForScreen(containing: "row 1 of 200 · live")
        try checkChart(session, groupBy: { try Self.sqlite3(path, Self.groupBy) }, insert: {
            _ = try Self.sqlite3(path, Self.insert)
        })
    }

    func testPostgres() throws {
        let database = try classDatabase()
        try postgres.psql("""
            DROP TABLE IF EXISTS orders;
            CREATE TABLE orders(id integer PRIMARY KEY, amount integer);
            INSERT INTO orders SELECT i, i FROM generate_series(1, 200) i;
            """, database: database, as: postgres.writer)
        // Wider: the server's address takes the title's room.
        let session = try launch(["view", try viewerURL(database), "orders"], width: 120, height: 24, environment: ["NO_COLOR": "1"])
        try session.waitForScreen(containing: "row 1 of 200 · live")
        try checkChart(session, groupBy: { try self.psqlAsWriter(Self.groupBy, database) }, insert: {
            _ = try self.psqlAsWriter(Self.insert, database)
        })
    }

    // MARK: - The scenario

    private func checkChart(_ session: TmuxSession, groupBy: () throws -> String, insert: () throws -> Void) throws {
        try session.send("l", ".")
        try session.waitForScreen(containing: "› amount: histogram")
        try waitForCounts(session, groupBy)
        let screen = try session.screen().components(separatedBy: "\n")
        XCTAssertTrue(screen[1].hasPrefix("    amount  0 "), screen[1])
        XCTAssertTrue(screen[2].hasPrefix("    1 – 11 │██"), screen[2])

        // Another process's orders: two bars grow.
        try insert()
        try waitForCounts(session, groupBy)
        XCTAssertTrue(try session.screen().contains("41 – 51 │"))

        // Enter on the second bar: its ten orders, filtered; q: the chart, q: the orders.
        try session.send("j")
        try session.waitForScreen(containing: "row 2 of 20")
        try session.send("Enter")
        try session.waitForScreen(containing: "› orders · where \"amount\"")
        try session.waitForScreen(containing: " 10 · live")
        XCTAssertTrue(try session.screen().contains(" 11      11\n"))
        try session.send("q")
        try session.waitForScreen(containing: "row 2 of 20")
        try session.send("q")
        try session.waitForScreen(containing: "row 1 of 206 · live")
        try session.send("q")
        try waitForExit(session, status: 0)
    }

    /// Until the chart's bins (by their lower edge) and counts are the
    /// database's own.
    private func waitForCounts(_ session: TmuxSession, _ groupBy: () throws -> String) throws {
        let expected = try groupBy().split(separator: "\n").map { $0.replacingOccurrences(of: "|", with: " ") }
        try session.waitForScreen("the bins \(expected)") { screen in
            Self.bars(screen) == expected
        }
    }

    /// Each bar's lower edge and count, as `lower count`.
    private static func bars(_ screen: String) -> [String] {
        screen.components(separatedBy: "\n").filter { $0.contains("│") }.map { line in
            let words = line.split(separator: " ")
            return "\(words.first ?? "") \(words.last ?? "")"
        }
    }

    private static func sqlite3(_ path: String, _ sql: String) throws -> String {
        let result = try Shell.run("/usr/bin/sqlite3", ["-batch", path, sql])
        guard result.status == 0 else { throw HarnessError("sqlite3: \(result.standardError)") }
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
