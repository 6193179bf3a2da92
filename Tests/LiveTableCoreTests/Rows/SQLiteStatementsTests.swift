import Foundation
import GRDB
import XCTest
@testable import LiveTableCore

/// The statements the window engine runs on SQLite, as SQLite received
/// them: they must stay byte for byte what they were before the engine
/// wrote its SQL through a dialect (`SQLDialect.sqlite`), so that plans
/// and speed do not change.
final class SQLiteStatementsTests: XCTestCase {
    /// The statements run by `body`, in order, each once.
    private func statements(_ db: Database, _ body: () throws -> Void) rethrows -> [String] {
        var sqls: [String] = []
        db.trace { event in
            if case let .statement(statement) = event, !sqls.contains(statement.sql) {
                sqls.append(statement.sql)
            }
        }
        defer { db.trace(nil) }
        try body()
        return sqls
    }

    func testWindowSearchAndCountStatementsAreSQLitesOwn() throws {
        let queue = try DatabaseQueue()
        let sqls: [String] = try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE item(id INTEGER PRIMARY KEY, "na?me" TEXT, price);
                CREATE INDEX item_price ON item(price);
                INSERT INTO item("na?me", price) VALUES ('a', 1), ('b', NULL), ('c', 3), ('d', 3), ('e', 5);
                """)
            let source = try RowSource.table(TableSchema.named("item", in: db), dialect: .sqlite).filtered("\"na?me\" <> '?'", in: db)
            let ordering = try RowOrdering(source, sortColumn: "price")
            let position = RowPosition(key: [3.databaseValue, 3.databaseValue])
            return try statements(db) {
                _ = try RowWindow.fetch(db, source, RowWindowRequest(
                    ordering: ordering, anchor: .position(position), before: 2, after: 2))
                _ = try RowWindow.fetch(db, source, RowWindowRequest(
                    ordering: ordering, anchor: .position(position), before: 2, after: 2), scans: true)
                _ = try RowSearch(text: "d", column: 1, forward: true, from: position).run(db, source, ordering)
                _ = try ordering.countRows(db, in: source, before: position, limit: 10)
                _ = try ordering.currentPosition(of: position, in: source, db)
                _ = try source.exactRowCount(db)
            }
        }
        // Copied from the statements SQLite traced before the dialect.
        XCTAssertEqual(sqls, [
            "SELECT \"id\", \"na?me\", \"price\", rowid FROM \"item\" WHERE (\n\"na?me\" <> '?'\n) AND (\n\"price\" IS ? AND rowid IS ?\n) ORDER BY \"price\", rowid LIMIT ?",
            "SELECT \"id\", \"na?me\", \"price\", rowid FROM \"item\" WHERE (\n\"na?me\" <> '?'\n) AND (\n\"price\" IS ? AND rowid > ?\n) ORDER BY \"price\", rowid LIMIT ?",
            "SELECT \"id\", \"na?me\", \"price\", rowid FROM \"item\" WHERE (\n\"na?me\" <> '?'\n) AND (\n\"price\" > ?\n) ORDER BY \"price\", rowid LIMIT ?",
            "SELECT \"id\", \"na?me\", \"price\", rowid FROM \"item\" WHERE (\n\"na?me\" <> '?'\n) AND (\n\"price\" IS ? AND rowid < ?\n) ORDER BY \"price\" DESC, rowid DESC LIMIT ?",
            "SELECT \"id\", \"na?me\", \"price\", rowid FROM \"item\" WHERE (\n\"na?me\" <> '?'\n) AND (\n\"price\" < ?\n) ORDER BY \"price\" DESC, rowid DESC LIMIT ?",
            "SELECT \"id\", \"na?me\", \"price\", rowid FROM \"item\" WHERE (\n\"na?me\" <> '?'\n) AND (\n\"price\" IS NULL\n) ORDER BY \"price\" DESC, rowid DESC LIMIT ?",
            "SELECT \"id\", \"na?me\", \"price\", rowid FROM \"item\" WHERE (\n\"na?me\" <> '?'\n) AND (\n(\"price\" IS ? AND rowid > ?) OR (\"price\" > ?)\n) ORDER BY \"price\", rowid LIMIT ?",
            "SELECT \"id\", \"na?me\", \"price\", rowid FROM \"item\" WHERE (\n\"na?me\" <> '?'\n) AND (\n(\"price\" IS ? AND rowid < ?) OR (\"price\" < ?) OR (\"price\" IS NULL)\n) ORDER BY \"price\" DESC, rowid DESC LIMIT ?",
            "SELECT \"price\", rowid FROM \"item\" WHERE (\n\"na?me\" <> '?'\n) AND (\n\"price\" IS ? AND rowid > ?\n) AND (\ninstr(lower(\"na?me\"), lower(?)) > 0\n) ORDER BY \"price\", rowid LIMIT ?",
            "SELECT COUNT(*) FROM (SELECT 1 FROM \"item\" WHERE (\n\"na?me\" <> '?'\n) AND (\n\"price\" IS ? AND rowid < ?\n) ORDER BY \"price\" DESC, rowid DESC LIMIT ?)",
            "SELECT COUNT(*) FROM (SELECT 1 FROM \"item\" WHERE (\n\"na?me\" <> '?'\n) AND (\n\"price\" < ?\n) ORDER BY \"price\" DESC, rowid DESC LIMIT ?)",
            "SELECT COUNT(*) FROM (SELECT 1 FROM \"item\" WHERE (\n\"na?me\" <> '?'\n) AND (\n\"price\" IS NULL\n) ORDER BY \"price\" DESC, rowid DESC LIMIT ?)",
            "SELECT \"price\", rowid FROM \"item\" WHERE (\n\"na?me\" <> '?'\n) AND (\nrowid IS ?\n) LIMIT 1",
            "SELECT COUNT(*) FROM \"item\" WHERE (\n\"na?me\" <> '?'\n)",
        ])
    }

    /// The lookup by identity is written by `RowSource.selectSQL`, as
    /// every other statement: its condition now stands in parentheses,
    /// and it is still one search of the key.
    func testIdentityLookupIsOneSearchOfTheKey() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, price); INSERT INTO item(price) VALUES (1), (2)")
            let lookup = try XCTUnwrap(RowSource.table(TableSchema.named("item", in: db), dialect: .sqlite).identityLookup)
            var missing: [[DatabaseValue]] = []
            let sqls = try statements(db) {
                missing = try lookup.missing(db, among: [[1.databaseValue], [7.databaseValue]])
            }
            XCTAssertEqual(missing, [[7.databaseValue]])
            XCTAssertEqual(sqls, ["SELECT 1 FROM \"item\" WHERE (\nrowid IS ?\n) LIMIT 1"])
            let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sqls[0], arguments: [1])
                .map { ($0["detail"] as String?) ?? "" }
            XCTAssertEqual(plan, ["SEARCH item USING INTEGER PRIMARY KEY (rowid=?)"])
        }
    }
}
