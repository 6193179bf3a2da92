import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// `C` and `o` (issue 27 §4): a table's columns sheet, live, checked against
/// each database's own catalog; foreign keys followed to the referenced
/// row, composite, NULL and self-referencing ones too; the row view's
/// arrows. On a SQLite file that the sqlite3 CLI writes and on PostgreSQL.
final class ViewerColumnsSheetTests: XCTestCase {
    /// 40 customers, 40 shipments keyed by (region, code), 3 orders: one
    /// with both keys set, one with both NULL; a staff whose managers are staff.
    static let shop = """
        CREATE TABLE customers(id integer PRIMARY KEY, name text NOT NULL UNIQUE);
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40)
        INSERT INTO customers SELECT i, 'customer ' || i FROM n;
        CREATE TABLE shipments(region text, code integer, note text, PRIMARY KEY(region, code));
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20)
        INSERT INTO shipments SELECT r, i, r || '-' || i FROM n, (SELECT 'eu' AS r UNION ALL SELECT 'us') AS regions;
        CREATE TABLE orders(
          id integer PRIMARY KEY, customer_id integer REFERENCES customers(id), status text DEFAULT 'new',
          region text, code integer, FOREIGN KEY(region, code) REFERENCES shipments(region, code));
        CREATE INDEX orders_status ON orders(status);
        INSERT INTO orders VALUES (1, 35, 'paid', 'us', 17), (2, NULL, 'new', NULL, NULL), (3, 2, 'shipped', 'eu', 3);
        CREATE TABLE staff(id integer PRIMARY KEY, name text, manager_id integer REFERENCES staff(id));
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30)
        INSERT INTO staff SELECT i, 'person ' || i, CASE WHEN i = 1 THEN 28 ELSE 1 END FROM n;
        """

    /// The database's own description of a table's columns, one line each:
    /// position, name, type, NOT NULL, default, place in the primary key.
    private var catalog: (String) throws -> [[String]] = { _ in [] }

    func testSQLite() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("shop.db").path
        try ForeignFile.sqlite3(path, Self.shop)
        catalog = { table in
            try Self.lines(ForeignFile.sqlite3(path, "PRAGMA table_info(\(table));")).map { field in
                [String((Int(field[0]) ?? 0) + 1), field[1], field[2], field[3] == "1" ? "yes" : "", field[4],
                 field[5] == "0" ? "" : field[5]]
            }
        }
        let open = { (target: ViewerTarget) in try ViewerDriver(path: path, target: target, width: 200, height: 14) }
        try checkColumnsSheet(try open(.table("orders")))
        try checkForeignKeys(try open(.table("orders")))
        try checkSelfReference(try open(.table("staff")))
        try checkQuerySheet(try open(.query("SELECT * FROM orders")))
    }

    func testPostgres() throws {
        let name = "viewerColumnsSheet"
        let dataSource = try PostgresTestDatabase.open(name, sql: Self.shop)
        catalog = { table in
            try Self.lines(PostgresTestDatabase.write(name, """
                SELECT c.ordinal_position, c.column_name, c.data_type, CASE c.is_nullable WHEN 'NO' THEN 'yes' ELSE '' END,
                  coalesce(c.column_default, ''), coalesce(k.ordinal_position::text, '')
                FROM information_schema.columns c
                LEFT JOIN information_schema.table_constraints t
                  ON t.table_name = c.table_name AND t.constraint_type = 'PRIMARY KEY'
                LEFT JOIN information_schema.key_column_usage k
                  ON k.constraint_name = t.constraint_name AND k.column_name = c.column_name
                WHERE c.table_name = '\(table)' ORDER BY 1;
                """))
        }
        let open = { (target: ViewerTarget) in
            try ViewerDriver(dataSource: dataSource, target: target, width: 200, height: 14) {
                _ = try PostgresTestDatabase.write(name, $0)
            }
        }
        try checkColumnsSheet(try open(.table("orders")))
        try checkForeignKeys(try open(.table("orders")))
        try checkSelfReference(try open(.table("staff")))
        try checkQuerySheet(try open(.query("SELECT * FROM orders")))
    }

    /// Two parents whose keys differ after the 16,385 characters that a
    /// window shows: `o` reads the child's key whole, and lands on its own.
    func testPostgresFollowsAKeyLongerThanTheWindowShows() throws {
        let dataSource = try PostgresTestDatabase.open("viewerLongForeignKey", sql: """
            CREATE TABLE parent(code text PRIMARY KEY, n int);
            INSERT INTO parent VALUES (repeat('x', 20000) || 'a', 1), (repeat('x', 20000) || 'b', 2);
            CREATE TABLE child(id int PRIMARY KEY, code text REFERENCES parent);
            INSERT INTO child VALUES (1, repeat('x', 20000) || 'b');
            """)
        let driver = try ViewerDriver(dataSource: dataSource, target: .table("child"), width: 80, height: 10) { _ in }
        let effects = try driver.type("lo")
        XCTAssertTrue(effects.contains { if case .readWholeRow = $0 { true } else { false } }, "\(effects)")
        XCTAssertEqual(driver.state.table?.viewed.target, .table("parent"))
        XCTAssertEqual(driver.selected(1).map(Self.text), "2")
        XCTAssertEqual(driver.state.sheets, [.table("child")])
    }

    // MARK: - The scenarios

    /// `C` on `status`: its sheet, on `status`, equal to the catalog; a
    /// column added by another process appears; Enter on `region` goes
    /// back to the orders with the column cursor on it.
    private func checkColumnsSheet(_ driver: ViewerDriver) throws {
        try driver.type("llC")
        guard case let .sheet(sheet)? = driver.state.table?.viewed.target else {
            return XCTFail("no columns sheet: \(String(describing: driver.state.table?.viewed.target))")
        }
        XCTAssertEqual(sheet.kind, .columns(table: "orders"))
        XCTAssertEqual(driver.state.sheets, [.table("orders")])
        XCTAssertTrue(driver.lines[0].contains("orders › orders: columns"), driver.lines[0])
        XCTAssertEqual(driver.state.table?.viewed.source.columnNames,
                       ["#", "column", "type", "not null", "default", "primary key", "unique", "indexes", "references"])
        XCTAssertEqual(driver.selected(1).map(Self.text), "status")
        try assertCatalog(driver)
        let byName = Dictionary(rows(driver).map { ($0[1], $0) }) { first, _ in first }
        XCTAssertEqual(byName["id"]?[6], "yes")
        XCTAssertEqual(byName["status"]?[7], "orders_status")
        XCTAssertEqual(byName["customer_id"]?[8], "customers.id")
        XCTAssertEqual(byName["region"]?[8], "shipments.region")
        XCTAssertEqual(byName["code"]?[8], "shipments.code")
        XCTAssertEqual(byName["status"]?[8], "")

        try driver.commit("ALTER TABLE orders ADD COLUMN note text NOT NULL DEFAULT 'none';")
        XCTAssertEqual(rows(driver).map { $0[1] }, ["id", "customer_id", "status", "region", "code", "note"])
        XCTAssertEqual(rows(driver).last?[3], "yes")
        try assertCatalog(driver)
        XCTAssertEqual(driver.selected(1).map(Self.text), "status")

        try driver.type("j")
        try driver.send(.key(.enter))
        XCTAssertEqual(driver.state.table?.viewed.target, .table("orders"))
        XCTAssertEqual(driver.state.sheets, [])
        XCTAssertEqual(driver.state.table?.currentColumnName, "region")
        XCTAssertEqual(driver.state.table?.viewed.source.columnNames.last, "note")
    }

    /// `o` on a customer: the customers, on customer 35; `q` back. On a
    /// composite key: the shipment ('us', 17). NULL and a column that
    /// references nothing say so. The row view says where each points.
    private func checkForeignKeys(_ driver: ViewerDriver) throws {
        try driver.type("l")
        // The customers opened, then the search for the row, its key's values.
        let effects = try driver.type("o")
        XCTAssertEqual(Array(effects.prefix(2)), [.stop(.tableCounts), .open(.table("customers"), sortColumn: nil, descending: false)])
        let searches = effects.compactMap { effect -> RowSearch? in
            if case let .search(_, search) = effect { search } else { nil }
        }
        XCTAssertEqual(searches.map { $0.key?.columns }, [["id"]])
        XCTAssertEqual(searches.first?.key?.values.map(Self.text), ["35"])
        XCTAssertEqual(searches.first?.text, "customers: id = 35")
        XCTAssertEqual(driver.state.table?.viewed.target, .table("customers"))
        XCTAssertEqual(driver.selected(0).map(Self.text), "35")
        XCTAssertEqual(driver.state.sheets, [.table("orders")])
        XCTAssertTrue(driver.lines[0].contains("orders › customers"), driver.lines[0])
        try driver.type("q")
        XCTAssertEqual(driver.state.table?.viewed.target, .table("orders"))
        XCTAssertEqual(driver.selected(0).map(Self.text), "1")
        XCTAssertEqual(driver.state.table?.currentColumnName, "customer_id")

        try driver.type("lllo")
        XCTAssertEqual(driver.state.table?.viewed.target, .table("shipments"))
        XCTAssertEqual([driver.selected(0), driver.selected(1)].compactMap { $0.map(Self.text) }, ["us", "17"])
        try driver.type("q")
        XCTAssertEqual(driver.state.table?.currentColumnName, "code")

        XCTAssertEqual(try driver.type("jo"), [])
        XCTAssertEqual(driver.state.table?.viewed.target, .table("orders"))
        XCTAssertEqual(driver.state.message, .notice("region is NULL: it points to no row of shipments"))
        try driver.type("hho")
        XCTAssertEqual(driver.state.message, .notice("status references no table"))
        XCTAssertEqual(driver.state.sheets, [])

        try driver.type("k")
        try driver.send(.key(.enter))
        let view = driver.lines.joined(separator: "\n")
        XCTAssertTrue(view.contains("35  → customers.id"), view)
        XCTAssertTrue(view.contains("us  → shipments.region"), view)
        XCTAssertTrue(view.contains("17  → shipments.code"), view)
        XCTAssertFalse(view.contains("paid  →"), view)
    }

    /// A staff member's manager is in the same table: a new sheet of it on
    /// top, on the manager; `q` goes back to the row it came from.
    private func checkSelfReference(_ driver: ViewerDriver) throws {
        try driver.type("llo")
        XCTAssertEqual(driver.state.table?.viewed.target, .table("staff"))
        XCTAssertEqual(driver.state.sheets, [.table("staff")])
        XCTAssertEqual(driver.selected(0).map(Self.text), "28")
        try driver.type("q")
        XCTAssertEqual(driver.state.sheets, [])
        XCTAssertEqual(driver.selected(0).map(Self.text), "1")
        XCTAssertEqual(driver.state.table?.currentColumnName, "manager_id")
    }

    private func checkQuerySheet(_ driver: ViewerDriver) throws {
        XCTAssertEqual(try driver.type("C"), [])
        XCTAssertEqual(driver.state.message, .notice("a query's columns are its header: C lists a table's"))
        try driver.type("lo")
        XCTAssertEqual(driver.state.message, .notice("customer_id references no table"))
        XCTAssertEqual(driver.state.sheets, [])
    }

    // MARK: - Helpers

    /// The sheet's first six columns equal the catalog's, in its order.
    private func assertCatalog(_ driver: ViewerDriver, line: UInt = #line) throws {
        XCTAssertEqual(rows(driver).map { Array($0.prefix(6)) }, try catalog("orders"), line: line)
    }

    private func rows(_ driver: ViewerDriver) -> [[String]] {
        (driver.state.table?.window?.rows ?? []).map { $0.map(Self.text) }
    }

    private static func lines(_ output: String) -> [[String]] {
        output.split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
    }

    static func text(_ value: DatabaseValue) -> String {
        ViewerFrequencyTests.text(value)
    }
}
