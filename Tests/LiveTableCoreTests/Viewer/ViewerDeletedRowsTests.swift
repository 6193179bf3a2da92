import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// Rows that leave the viewer's window by deletion are noted in the status
/// line, once a lookup by identity (`RowIdentityLookup`) confirms that
/// they are gone; a row new in the window is a band across its whole line.
final class ViewerDeletedRowsTests: XCTestCase {
    private var path: String!
    private var driver: ViewerDriver!

    override func setUpWithError() throws {
        path = try makeItemsFile(count: 30, extra: """
            CREATE VIEW cheap AS SELECT name, price FROM item WHERE price < 100;
            CREATE TABLE pair(a TEXT, b INTEGER, v, PRIMARY KEY(a, b)) WITHOUT ROWID;
            INSERT INTO pair VALUES ('x', 1, 'one'), ('x', 2, 'two'), ('y', 1, 'three');
            """)
    }

    private var statusLine: String {
        driver.lines[9].trimmingCharacters(in: .whitespaces)
    }

    private func lookups(_ effects: [ViewerEffect]) -> [[StoredKey]] {
        effects.compactMap { if case let .findDeletedRows(_, ids) = $0 { ids } else { nil } }
    }

    func testDeletedRowsAreNotedAndRowsMovedOutAreNot() throws {
        driver = try ViewerDriver(path: path, table: "item", sort: "price")
        let effects = try driver.commit("DELETE FROM item WHERE id IN (2, 4)")
        XCTAssertEqual(lookups(effects), [[StoredKey([2.databaseValue]), StoredKey([4.databaseValue])]])
        XCTAssertEqual(statusLine, "2 rows deleted")

        // A key is a look: the note counts from there.
        try driver.send(.key(.down))
        XCTAssertEqual(statusLine, "")
        // Moved out of the window by its price: departed, but still there.
        let moved = try driver.commit("UPDATE item SET price = 100000 WHERE id = 6")
        XCTAssertEqual(lookups(moved), [[StoredKey([6.databaseValue])]])
        XCTAssertEqual(statusLine, "")
    }

    func testOnlyRowsDeletedFromTheScreenAreCounted() throws {
        driver = try ViewerDriver(path: path, table: "item")
        // Rows 1 to 6 on screen; the window reads on beyond them.
        XCTAssertTrue(driver.lines[2].contains("item 01"), driver.lines.joined(separator: "\n"))
        XCTAssertGreaterThan(try XCTUnwrap(driver.state.table?.window).rows.count, 12)
        let effects = try driver.commit("DELETE FROM item WHERE id IN (2, 3, 10, 11, 12)")
        XCTAssertEqual(lookups(effects), [[StoredKey([2.databaseValue]), StoredKey([3.databaseValue])]])
        XCTAssertEqual(statusLine, "2 rows deleted")
    }

    func testWithoutRowidTableIsLookedUpByItsPrimaryKey() throws {
        driver = try ViewerDriver(path: path, table: "pair")
        try driver.commit("DELETE FROM pair WHERE a = 'x' AND b = 2")
        XCTAssertEqual(statusLine, "1 row deleted")
    }

    func testViewRowsAreNotLookedUp() throws {
        driver = try ViewerDriver(path: path, table: "cheap")
        let effects = try driver.commit("DELETE FROM item WHERE id = 2")
        XCTAssertEqual(lookups(effects), [])
        XCTAssertFalse(statusLine.contains("deleted"), statusLine)
    }

    func testLookupOfAnotherTableIsDropped() throws {
        driver = try ViewerDriver(path: path, table: "item")
        let other = try driver.database.read { db in RowSource.table(try TableSchema.named("pair", in: db), dialect: .sqlite) }
        try driver.send(.deletedRowsFound(other, [StoredKey([1.databaseValue])]))
        XCTAssertEqual(statusLine, "")
    }

    func testIdentityLookupFindsMissingRowsByRowidAndPrimaryKey() throws {
        let database = try SQLiteDataSource.open(path: path)
        try database.read { db in
            let item = try XCTUnwrap(RowSource.table(try TableSchema.named("item", in: db), dialect: .sqlite).identityLookup)
            XCTAssertEqual(try item.missing(db, among: [[1.databaseValue], [31.databaseValue], [2.databaseValue]]),
                           [[31.databaseValue]])
            let pair = try XCTUnwrap(RowSource.table(try TableSchema.named("pair", in: db), dialect: .sqlite).identityLookup)
            XCTAssertEqual(try pair.missing(db, among: [["x".databaseValue, 2.databaseValue], ["y".databaseValue, 2.databaseValue]]),
                           [["y".databaseValue, 2.databaseValue]])
            XCTAssertNil(RowSource.table(try TableSchema.named("cheap", in: db), dialect: .sqlite).identityLookup)
        }
    }

    // MARK: - The band of a new row

    func testNewRowIsABandAcrossTheGapsBetweenItsColumns() throws {
        driver = try ViewerDriver(path: path, table: "item", sort: "price")
        try driver.commit("INSERT INTO item(id, name, price) VALUES (99, 'inserted', 15)")
        // Item 1, then the new row on screen row 3, then item 2.
        let lines = driver.lines
        XCTAssertTrue(lines[3].contains("inserted"), lines.joined(separator: "\n"))
        let screen = viewerRender(driver.state)
        // Monochrome: a strong highlight is reversed, every cell of the
        // line: the cells, the gaps between them, and the rest of the line.
        let gap = try XCTUnwrap(lines[3].range(of: "inserted")).lowerBound.utf16Offset(in: lines[3]) - 1
        for x in [0, gap, 59] {
            XCTAssertEqual(screen.style(x: x, y: 3)?.reverse, true, "x = \(x)")
        }
        XCTAssertEqual(screen.style(x: gap, y: 4)?.reverse, false)
        // Faded: the band is gone, gaps included.
        try driver.send(.highlightTick(driver.start + .seconds(3)))
        XCTAssertEqual(viewerRender(driver.state).style(x: gap, y: 3)?.reverse, false)
    }
}
