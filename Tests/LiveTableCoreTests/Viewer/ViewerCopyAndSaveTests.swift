import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// `y`, `Y` and `s` (issue 28 §1 and §2) on a file that the sqlite3 CLI
/// wrote: what reaches the clipboard, and the saved file compared with
/// what the CLI prints for the same filter, order and columns.
final class ViewerCopyAndSaveTests: XCTestCase {
    private var directory: URL!
    private var path: String!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory()
        path = directory.appendingPathComponent("shop.sqlite").path
        try ForeignFile.sqlite3(path, """
            CREATE TABLE item(id integer PRIMARY KEY, name text, note text, data blob, price real);
            INSERT INTO item VALUES
              (1, 'pen', 'a note' || char(9) || 'with a tab' || char(10) || 'and a line', x'00ff10', 1.5),
              (2, 'ink', NULL, NULL, 12.0), (3, 'pad', 'x', x'', 3.25), (4, 'box', 'y', NULL, 0.5),
              (5, 'cup', 'z', NULL, 7.0);
            """)
    }

    private func driver() throws -> ViewerDriver {
        try ViewerDriver(path: path, table: "item", width: 60, height: 12)
    }

    private func copied(_ effects: [ViewerEffect]) -> [String] {
        effects.compactMap { effect in
            if case let .copyToClipboard(text) = effect { return text }
            return nil
        }
    }

    // MARK: - Copy

    /// The whole value, tabs and line breaks kept; NULL is empty; a BLOB
    /// is hexadecimal.
    func testYCopiesTheSelectedCellsWholeValue() throws {
        let driver = try driver()
        XCTAssertEqual(copied(try driver.type("ll")), [])
        XCTAssertEqual(copied(try driver.type("y")), ["a note\twith a tab\nand a line"])
        XCTAssertEqual(driver.state.message, .notice("copied note: 28 bytes"))
        XCTAssertEqual(copied(try driver.type("ly")), ["00ff10"])
        XCTAssertEqual(copied(try driver.type("jy")), [""])
        XCTAssertEqual(copied(try driver.type("ly")), ["12.0"])
    }

    /// A header line, then the row, tab-separated and escaped as `--format
    /// tsv` escapes, in the order shown and without hidden columns.
    func testCapitalYCopiesTheRowAsShown() throws {
        let driver = try driver()
        try driver.type("lll-")
        XCTAssertEqual(copied(try driver.type("Y")), [
            "id\tname\tnote\tprice\n1\tpen\ta note\\twith a tab\\nand a line\t1.5\n",
        ])
        XCTAssertEqual(driver.state.message, .notice("copied the row (4 columns): 60 bytes"))
        XCTAssertEqual(copied(try driver.type("jY")), ["id\tname\tnote\tprice\n2\tink\t\t12.0\n"])
    }

    /// Refused with a message, never cut.
    func testAValueOverTheClipboardLimitIsRefused() throws {
        try ForeignFile.sqlite3(path, "UPDATE item SET note = printf('%.*c', 100001, 'x') WHERE id = 1;")
        let driver = try driver()
        XCTAssertEqual(copied(try driver.type("lly")), [])
        XCTAssertEqual(driver.state.message, .error("not copied: note is 100 KB, over the clipboard's 100 KB"))
        XCTAssertEqual(copied(try driver.type("hy")), ["pen"])
    }

    /// In the row view, `y` copies the field of the column cursor, which
    /// ← → move there.
    func testYInTheRowViewCopiesTheFieldOfTheColumnCursor() throws {
        let driver = try driver()
        try driver.send(.key(.enter))
        XCTAssertEqual(driver.state.overlay, .row(scroll: 0))
        XCTAssertEqual(copied(try driver.type("y")), ["1"])
        XCTAssertEqual(copied(try driver.type("ly")), ["pen"])
        XCTAssertEqual(driver.state.overlay, .row(scroll: 0))
    }

    /// PostgreSQL's windows hold long values cut: `y` copies the value read
    /// whole, 40,000 characters where the window holds 16,385.
    func testYOnPostgresCopiesTheValueReadWhole() throws {
        let dataSource = try PostgresTestDatabase.open("viewerCopyTests", sql: """
            CREATE TABLE note(id int PRIMARY KEY, body text);
            INSERT INTO note VALUES (1, repeat('ab', 20000));
            """)
        let driver = try ViewerDriver(dataSource: dataSource, target: .table("note")) { _ in }
        XCTAssertEqual(driver.selected(1).flatMap { String.fromDatabaseValue($0) }?.count, RowDetail.maximumBytes + 1)
        XCTAssertEqual(copied(try driver.type("ly")), [String(repeating: "ab", count: 20000)])
        XCTAssertEqual(driver.state.message, .notice("copied body: 40 KB"))
    }

    // MARK: - Save

    /// Types `name` in the save prompt (in place of the default) and Enter.
    private func save(_ driver: ViewerDriver, as name: String) throws {
        try driver.type("s")
        try driver.send(.key(.control("u")))
        try driver.type(directory.appendingPathComponent(name).path)
        try driver.send(.key(.enter))
    }

    private func contents(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    /// The sheet as it is: filtered, sorted, a column hidden; every row,
    /// not only the window (12 lines tall), equal to sqlite3's output.
    func testSWritesTheSheetAsTheCLIPrintsIt() throws {
        try ForeignFile.sqlite3(path, """
            WITH RECURSIVE n(i) AS (SELECT 6 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
            INSERT INTO item SELECT i, 'item-' || i, 'note ' || (i % 7), NULL, (i * 37 % 301) * 0.25 FROM n;
            """)
        let driver = try driver()
        try driver.type("s")
        XCTAssertEqual(driver.state.prompt?.kind, .save)
        XCTAssertEqual(driver.state.prompt?.text, "item.csv")
        try driver.send(.key(.escape))
        try driver.type("f")
        try driver.type("id % 3 = 0")
        try driver.send(.key(.enter))
        try driver.type("llll]hh-")
        try save(driver, as: "item.csv")
        XCTAssertEqual(driver.state.message, .notice("saved 100 rows to \(directory.path)/item.csv"))
        XCTAssertNil(driver.state.saving)
        let expected = try ForeignFile.sqlite3(path, """
            .headers on
            .mode csv
            SELECT id, name, data, price FROM item WHERE id % 3 = 0 ORDER BY price DESC, id DESC;
            """)
        XCTAssertEqual(try contents("item.csv"), expected)
        XCTAssertEqual(try ForeignFile.listing(directory), ["item.csv", "shop.sqlite"])
    }

    /// A frequency sheet, two of its columns hidden, and a query sheet
    /// sorted: each saved as sqlite3 prints the same rows.
    func testDerivedAndQuerySheetsAreSavedAsShown() throws {
        try ForeignFile.sqlite3(path, """
            WITH RECURSIVE n(i) AS (SELECT 6 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
            INSERT INTO item SELECT i, 'item-' || i, 'note-' || (i % 7), NULL, i FROM n;
            """)
        let driver = try driver()
        try driver.type("ll#")
        XCTAssertEqual(driver.state.table?.viewed.source.columnNames, ["note", "count", "%", "bar"])
        try driver.type("ll--")
        try driver.type("s")
        XCTAssertEqual(driver.state.prompt?.text, "note_frequency.csv")
        try driver.send(.key(.escape))
        try save(driver, as: "frequency.csv")
        XCTAssertEqual(try contents("frequency.csv"), try ForeignFile.sqlite3(path, """
            .headers on
            .mode csv
            SELECT note, count(*) AS count FROM item GROUP BY note ORDER BY 2 DESC, 1;
            """))

        try driver.type(":")
        try driver.send(.key(.control("u")))
        try driver.type("SELECT id, price FROM item WHERE id > 250")
        try driver.send(.key(.enter))
        try driver.type("l[")
        try save(driver, as: "query.csv")
        XCTAssertEqual(try contents("query.csv"), try ForeignFile.sqlite3(path, """
            .headers on
            .mode csv
            SELECT id, price FROM item WHERE id > 250 ORDER BY price, id;
            """))
    }

    /// Each extension names its format; another is refused and the prompt
    /// kept, to be corrected.
    func testTheExtensionNamesTheFormat() throws {
        let driver = try driver()
        try driver.send(.key(.character("f")))
        try driver.type("id <= 2")
        try driver.send(.key(.enter))
        try save(driver, as: "item.xls")
        XCTAssertEqual(driver.state.message, .error("name the file .csv, .tsv, .json, .jsonl or .md"))
        XCTAssertEqual(driver.state.prompt?.kind, .save)
        try driver.send(.key(.escape))
        try save(driver, as: "item.jsonl")
        XCTAssertEqual(try contents("item.jsonl"), """
            {"id": 1, "name": "pen", "note": "a note\\twith a tab\\nand a line", "data": "AP8Q", "price": 1.5}
            {"id": 2, "name": "ink", "note": null, "data": null, "price": 12.0}

            """)
        try save(driver, as: "item.md")
        XCTAssertEqual(try contents("item.md"), """
            | id | name | note | data | price |
            |---|---|---|---|---|
            | 1 | pen | a note\twith a tab<br>and a line | 00ff10 | 1.5 |
            | 2 | ink |  |  | 12.0 |

            """)
        try save(driver, as: "item.TSV")
        XCTAssertEqual(try contents("item.TSV"), "id\tname\tnote\tdata\tprice\n"
            + "1\tpen\ta note\\twith a tab\\nand a line\t00ff10\t1.5\n2\tink\t\\N\t\\N\t12.0\n")
    }

    /// An existing file is replaced only after `y`.
    func testAnExistingFileIsReplacedOnlyAfterY() throws {
        let file = directory.appendingPathComponent("item.csv")
        try Data("old\n".utf8).write(to: file)
        let driver = try driver()
        try save(driver, as: "item.csv")
        XCTAssertEqual(driver.state.message, .notice("\(file.path) exists: y replaces it, any other key keeps it"))
        try driver.type("n")
        XCTAssertEqual(driver.state.message, .notice("not saved: \(file.path) is kept"))
        XCTAssertEqual(try contents("item.csv"), "old\n")
        try save(driver, as: "item.csv")
        try driver.type("y")
        XCTAssertEqual(driver.state.message, .notice("saved 5 rows to \(file.path)"))
        XCTAssertTrue(try contents("item.csv").hasPrefix("id,name,note,data,price\r\n1,pen,"))
        XCTAssertEqual(try ForeignFile.listing(directory), ["item.csv", "shop.sqlite"])
    }

    /// The database being viewed is never the file saved, by its own name
    /// or through a link: refused before the question that `y` answers.
    func testTheViewedDatabaseIsNeverSavedOver() throws {
        let database = directory.appendingPathComponent("shop.csv").path
        try ForeignFile.sqlite3(database, "CREATE TABLE item(id integer PRIMARY KEY, name text); INSERT INTO item VALUES (1, 'pen');")
        let link = directory.appendingPathComponent("link.csv").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: database)
        let before = try FileSnapshot(database)
        let driver = try ViewerDriver(path: database, table: "item", width: 60, height: 12)
        for name in ["shop.csv", "link.csv"] {
            try save(driver, as: name)
            XCTAssertEqual(
                driver.state.message,
                .error("not saved: \(directory.appendingPathComponent(name).path) is the database being viewed"))
            XCTAssertNil(driver.state.saving)
        }
        XCTAssertEqual(try FileSnapshot(database), before)
        XCTAssertEqual(try ForeignFile.sqlite3(database, "SELECT name FROM item;"), "pen\n")
    }

    /// A directory that is not there: one line, and nothing written.
    func testAnUnwritableDirectoryIsOneLine() throws {
        let driver = try driver()
        try save(driver, as: "missing/item.csv")
        XCTAssertEqual(
            driver.state.message,
            .error("cannot save \(directory.path)/missing/item.csv: No such file or directory"))
        XCTAssertNil(driver.state.saving)
    }

    /// Esc while saving stops the save; the program's effect stops the job.
    func testEscStopsTheSave() throws {
        let driver = try driver()
        var state = driver.state
        _ = viewerUpdate(&state, .key(.character("s")))
        XCTAssertEqual(viewerUpdate(&state, .key(.enter)).count, 1)
        XCTAssertNotNil(state.saving)
        XCTAssertEqual(viewerUpdate(&state, .saveProgressed(rows: 40_000)), [])
        XCTAssertEqual(state.saving?.statusText, "saving item.csv: 40,000 of 5 rows · Esc stops")
        XCTAssertEqual(viewerUpdate(&state, .key(.escape)), [.stopSaving])
        XCTAssertNil(state.saving)
        XCTAssertEqual(state.message, .notice("save stopped: no file written"))
    }

    /// A save whose ticket is abandoned leaves no file, and no part of one.
    func testAStoppedSaveLeavesNoFile() throws {
        let driver = try driver()
        let viewed = try XCTUnwrap(driver.state.table?.viewed)
        let request = SaveRequest(
            path: directory.appendingPathComponent("item.csv").path, format: .csv, plan: ExportPlan(source: viewed.source))
        let ticket = ReadTicket()
        var reports = 0
        let result = ViewerSaveJob.run(request, driver.dataSource, ticket: ticket) { _ in reports += 1 }
        XCTAssertEqual(result, .saved(request, RowExport.Summary(rowCount: 5, invalidTextCount: 0)))
        try FileManager.default.removeItem(at: directory.appendingPathComponent("item.csv"))
        ticket.abandon()
        XCTAssertNil(ViewerSaveJob.run(request, driver.dataSource, ticket: ticket) { _ in })
        XCTAssertEqual(try ForeignFile.listing(directory), ["shop.sqlite"])
    }

    func testFileNames() {
        XCTAssertEqual(ExportFormat(fileName: "a.b/orders.JSONL"), .jsonl)
        XCTAssertNil(ExportFormat(fileName: "orders.d/file"))
        XCTAssertNil(ExportFormat(fileName: "orders"))
        XCTAssertEqual(ViewerState.fileName(for: .table("public.order lines")), "public.order_lines")
        XCTAssertEqual(ViewerState.fileName(for: .query("SELECT 1")), "query")
        XCTAssertEqual(ViewerState.fileName(for: .table("../..")), "sheet")
        XCTAssertEqual(ViewerState.byteSize(999), "999 bytes")
        XCTAssertEqual(ViewerState.byteSize(1_536), "1.5 KB")
        XCTAssertEqual(ViewerState.byteSize(23_000_000), "23 MB")
    }
}
