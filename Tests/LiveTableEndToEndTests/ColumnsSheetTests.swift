import Foundation
import XCTest

/// `C` and `o` in tmux (issue 27 §4): the columns sheet of the real binary,
/// its figures equal to `sqlite3`'s `PRAGMA table_info` and to psql's
/// catalog, before and after another process adds a column; `o` lands on
/// the referenced row (a composite key too), `q` comes back, and a NULL
/// reference says so.
final class ColumnsSheetTests: LiveTableTestCase {
    /// 200 customers, 40 shipments keyed by (region, code), 3 orders.
    private static let shop = """
        CREATE TABLE customers(id integer PRIMARY KEY, name text NOT NULL UNIQUE);
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
        INSERT INTO customers SELECT i, 'customer ' || i FROM n;
        CREATE TABLE shipments(region text, code integer, note text, PRIMARY KEY(region, code));
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20)
        INSERT INTO shipments SELECT r, i, r || '-' || i FROM n, (SELECT 'eu' AS r UNION ALL SELECT 'us') AS regions;
        CREATE TABLE orders(
          id integer PRIMARY KEY, customer_id integer REFERENCES customers(id), status text DEFAULT 'new',
          region text, code integer, FOREIGN KEY(region, code) REFERENCES shipments(region, code));
        CREATE INDEX orders_status ON orders(status);
        INSERT INTO orders VALUES (1, 150, 'paid', 'us', 17), (2, NULL, 'new', NULL, NULL), (3, 2, 'shipped', 'eu', 3);
        """
    private static let addColumn = "ALTER TABLE orders ADD COLUMN note text NOT NULL DEFAULT 'none';"

    func testSQLite() throws {
        let path = directory.appendingPathComponent("shop.sqlite").path
        try Shell.python("""
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()
            """, [path, Self.shop])
        let session = try launch(["view", path, "orders"], width: 140)
        try checkSheets(session, catalog: {
            try Self.lines(Self.sqlite3(path, "PRAGMA table_info(orders);")).map { field in
                [String((Int(field[0]) ?? 0) + 1), field[1], field[2], field[3] == "1" ? "yes" : "", field[4],
                 field[5] == "0" ? "" : field[5]]
            }
        }, commit: {
            try Shell.python("""
                import sqlite3, sys
                c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()
                """, [path, Self.addColumn])
        })
    }

    func testPostgres() throws {
        let database = try classDatabase()
        try postgres.psql(
            "DROP TABLE IF EXISTS orders, shipments, customers;\n" + Self.shop, database: database, as: postgres.writer)
        let session = try launch(["view", try viewerURL(database), "orders"], width: 140)
        try checkSheets(session, catalog: {
            try Self.lines(self.psqlAsWriter("""
                SELECT c.ordinal_position, c.column_name, c.data_type, CASE c.is_nullable WHEN 'NO' THEN 'yes' ELSE '' END,
                  coalesce(c.column_default, ''), coalesce(k.ordinal_position::text, '')
                FROM information_schema.columns c
                LEFT JOIN information_schema.table_constraints t
                  ON t.table_name = c.table_name AND t.constraint_type = 'PRIMARY KEY'
                LEFT JOIN information_schema.key_column_usage k
                  ON k.constraint_name = t.constraint_name AND k.column_name = c.column_name
                WHERE c.table_name = 'orders' ORDER BY 1;
                """, database))
        }, commit: {
            _ = try self.psqlAsWriter(Self.addColumn, database)
        })
    }

    // MARK: - The scenario

    private func checkSheets(
        _ session: TmuxSession, catalog: () throws -> [[String]], commit: () throws -> Void) throws
    {
        try session.waitForScreen(containing: "row 1 of 3 · live")
        try session.send("C")
        try session.waitForScreen(containing: "› orders: columns")
        try waitForCatalog(session, catalog)
        let references = Self.cells(try session.screen()).map { $0["references"] ?? "" }
        XCTAssertEqual(references, ["", "customers.id", "", "shipments.region", "shipments.code"])
        try commit()
        try waitForCatalog(session, catalog)
        XCTAssertEqual(Self.cells(try session.screen()).last?["column"], "note")

        // o on customer 150: the customers, on it; q: back on the order.
        try session.send("q")
        try session.waitForScreen(containing: "row 1 of 3 · live")
        try session.send("l", "o")
        try session.waitForScreen(containing: "orders › customers")
        try session.waitForScreen(containing: "row 150 of 200 · live")
        try session.send("q")
        try session.waitForScreen(containing: "row 1 of 3 · live")
        // On the composite key (region, code): the shipment ('us', 17).
        try session.send("l", "l", "l", "o")
        try session.waitForScreen(containing: "orders › shipments")
        try session.waitForScreen(containing: "row 37 of 40 · live")
        try session.send("q")
        try session.waitForScreen(containing: "row 1 of 3 · live")
        try session.send("j", "o")
        try session.waitForScreen(containing: "region is NULL: it points to no row of shipments")
        try session.send("q")
        try waitForExit(session, status: 0)
    }

    /// Until the sheet's first six columns are the catalog's.
    private func waitForCatalog(_ session: TmuxSession, _ catalog: () throws -> [[String]]) throws {
        let expected = try catalog()
        try session.waitForScreen("the catalog's \(expected)") { screen in
            Self.cells(screen).map { cells in
                ["#", "column", "type", "not null", "default", "primary key"].map { cells[$0] ?? "?" }
            } == expected
        }
    }

    /// The list's rows, each cell under its header's name: cut where the
    /// next header starts (text is left-aligned, numbers end before it).
    private static func cells(_ screen: String) -> [[String: String]] {
        let lines = screen.components(separatedBy: "\n")
        guard lines.count > 2 else { return [] }
        let header = Array(lines[1])
        var starts: [(name: String, x: Int)] = []
        var from = 0
        for name in ["column", "#", "type", "not null", "default", "primary key", "unique", "indexes", "references"] {
            let text = String(header)
            guard let range = text.range(of: " " + name, range: text.index(text.startIndex, offsetBy: from)..<text.endIndex)
            else { return [] }
            let x = text.distance(from: text.startIndex, to: range.lowerBound) + 1
            starts.append((name, x))
            from = x + name.count
        }
        return lines.dropFirst(2).prefix { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.map { line in
            let characters = Array(line)
            var cells: [String: String] = [:]
            for (index, start) in starts.enumerated() where index > 1 {
                let end = min(characters.count, index + 1 < starts.count ? starts[index + 1].x : characters.count)
                cells[start.name] = start.x < end ? String(characters[start.x..<end]).trimmingCharacters(in: .whitespaces) : ""
            }
            // The key column is frozen first, then `#`, a number aligned to
            // its right: the names here hold no blank.
            let head = String(characters[min(characters.count, starts[0].x)..<min(characters.count, starts[2].x)])
                .split(separator: " ").map(String.init)
            cells["column"] = head.first
            cells["#"] = head.count > 1 ? head.last : nil
            return cells
        }
    }

    private static func lines(_ output: String) -> [[String]] {
        output.split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
    }

    private static func sqlite3(_ path: String, _ sql: String) throws -> String {
        let result = try Shell.run("/usr/bin/sqlite3", ["-batch", path, sql])
        guard result.status == 0 else { throw HarnessError("sqlite3: \(result.standardError)") }
        return result.standardOutput
    }
}
