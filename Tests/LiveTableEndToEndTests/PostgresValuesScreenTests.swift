import Foundation
import XCTest

/// PostgreSQL's values on the real binary's screen, in tmux (issue 24):
/// as the server prints them.
final class PostgresValuesScreenTests: LiveTableTestCase {
    /// A float8 shows as psql shows it: `12345`, not `12345.0` (item 13).
    func testFloatsShowAsTheServerPrintsThem() throws {
        let database = try classDatabase()
        try psqlAsWriter("""
            DROP TABLE IF EXISTS measures;
            CREATE TABLE measures(id integer PRIMARY KEY, f float8, note text);
            INSERT INTO measures VALUES (1, 12345, 'whole'), (2, 0.5, 'half'), (3, 1e300, 'huge');
            """, database)
        let printed = try postgres.psql("SELECT f FROM measures ORDER BY id;", database: database, as: postgres.viewer)
        XCTAssertEqual(printed.split(separator: "\n"), ["12345", "0.5", "1e+300"])
        let session = try launch(["view", try viewerURL(database), "measures"])
        let screen = try session.waitForScreen(containing: "row 1 of 3 · live")
        let whole = try XCTUnwrap(screen.components(separatedBy: "\n").first { $0.contains("whole") }, screen)
        XCTAssertTrue(whole.contains(" 12345 "), whole)
        XCTAssertFalse(whole.contains("12345.0"), whole)
        XCTAssertTrue(screen.contains("1e+300"), screen)
        try session.send("q")
        try waitForExit(session, status: 0)
    }
}
