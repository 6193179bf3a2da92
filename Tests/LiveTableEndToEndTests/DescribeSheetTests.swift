import Foundation
import XCTest

/// `I` in tmux (issue 27): the describe sheet of the real binary on a
/// SQLite file that Python wrote and on the test PostgreSQL server, its
/// figures equal to `sqlite3`'s and `psql`'s aggregates, before and after
/// another process's commit.
final class DescribeSheetTests: LiveTableTestCase {
    private static let make = """
        CREATE TABLE orders(id integer PRIMARY KEY, status text, amount integer);
        INSERT INTO orders VALUES (1, 'paid', 10), (2, 'paid', 20), (3, 'shipped', 30), (4, NULL, 40);
        """
    private static let figures = """
        SELECT 'status', count(status), count(*) - count(status), count(DISTINCT status), min(status), max(status) FROM orders;
        SELECT 'amount', count(amount), count(*) - count(amount), count(DISTINCT amount), min(amount), max(amount) FROM orders;
        """
    private static let change = "UPDATE orders SET status = NULL, amount = 99 WHERE id = 1;"

    func testSQLite() throws {
        let path = directory.appendingPathComponent("shop.sqlite").path
        try Shell.python("""
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()
            """, [path, Self.make])
        let session = try launch(["view", path, "orders"], width: 120)
        try session.waitForScreen(containing: "row 1 of 4 · live")
        try checkDescribe(session, figures: {
            let result = try Shell.run("/usr/bin/sqlite3", ["-batch", path, Self.figures])
            return result.standardOutput
        }, commit: {
            try Shell.python("""
                import sqlite3, sys
                c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()
                """, [path, Self.change])
        })
    }

    func testPostgres() throws {
        let database = try classDatabase()
        try postgres.psql("DROP TABLE IF EXISTS orders;\n" + Self.make, database: database, as: postgres.writer)
        let session = try launch(["view", try viewerURL(database), "orders"], width: 120)
        try session.waitForScreen(containing: "row 1 of 4 · live")
        try checkDescribe(session, figures: { try self.psqlAsWriter(Self.figures, database) }, commit: {
            _ = try self.psqlAsWriter(Self.change, database)
        })
    }

    private func checkDescribe(_ session: TmuxSession, figures: () throws -> String, commit: () throws -> Void) throws {
        try session.send("I")
        try session.waitForScreen(containing: "› orders: describe")
        try waitForFigures(session, figures)
        try commit()
        try waitForFigures(session, figures)
        try session.send("q")
        try session.waitForScreen(containing: "row 1 of 4 · live")
    }

    /// Until each column's row shows the database's figures: its name, then
    /// (after its number and type) values, nulls, distinct, min and max.
    private func waitForFigures(_ session: TmuxSession, _ figures: () throws -> String) throws {
        let expected = try figures().split(separator: "\n").map { $0.split(separator: "|").map(String.init) }
        try session.waitForScreen("the figures \(expected)") { screen in
            expected.allSatisfy { row in
                screen.components(separatedBy: "\n").contains { line in
                    let cells = line.split(separator: " ").map(String.init)
                    return cells.first == row[0] && cells.count >= 8 && Array(cells[3...7]) == Array(row[1...5])
                }
            }
        }
    }
}
