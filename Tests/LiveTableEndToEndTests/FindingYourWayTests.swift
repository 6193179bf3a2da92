import Foundation
import XCTest

/// Finding your way (issue 27 §5) in tmux, with the real binary: `c` goes
/// to a column by part of its name, Tab in the search prompt searches
/// every column (on a SQLite file and on the test PostgreSQL server), and
/// a pasted query keeps its lines.
final class FindingYourWayTests: LiveTableTestCase {
    func testCGoesToAColumnOffTheScreenByPartOfItsName() throws {
        let database = directory.appendingPathComponent("wide.sqlite")
        let long = String(repeating: "x", count: 14)
        _ = try sqlite(database, """
            CREATE TABLE wide(id INTEGER PRIMARY KEY, alpha_name TEXT, beta TEXT, gamma TEXT, delta TEXT,
                zeta_total INTEGER);
            INSERT INTO wide VALUES (1, '\(long)', '\(long)', '\(long)', '\(long)', 4242);
            """)
        let session = try launch(["view", database.path, "wide"], width: 60, height: 12)
        let first = try session.waitForScreen(containing: "row 1 of 1 · live")
        XCTAssertFalse(first.contains("zeta_total"), first)

        try session.send("c")
        try session.waitForScreen(containing: "column:")
        try session.type("TOTAL")
        try session.send("Enter")
        // The screen scrolled to it, and the cursor's header is reversed.
        try session.waitForScreen(containing: "4242")
        try waitUntil("the cursor on zeta_total") {
            try session.styledLines().codes(of: "zeta_total")?.contains("7") == true
        }

        // A name that matches nothing: said, and the cursor stays.
        try session.send("c")
        try session.type("nope")
        try session.send("Enter")
        try session.waitForScreen(containing: "no column matches \"nope\"")
        XCTAssertEqual(try session.styledLines().codes(of: "zeta_total")?.contains("7"), true)
    }

    func testTabSearchesEveryColumnOfTheRowAndNGoesOn() throws {
        let database = try makeItemFile("search.sqlite", rows: 100)
        let session = try launch(["view", database.path, "item"])
        try session.waitForScreen(containing: "row 1 of 100 · live")
        // The cursor is on id; 550 is item 055's price.
        try session.send("/")
        try session.waitForScreen(containing: "/ (id)")
        try session.send("Tab")
        try session.waitForScreen(containing: "/ (all columns)")
        try session.type("550")
        try session.send("Enter")
        try session.waitForScreen(containing: "row 55 of 100 · live")
        XCTAssertEqual(try session.styledLines().codes(of: "550")?.contains("4"), true, "the match underlined")
        try session.send("n")
        try session.waitForScreen(containing: "search wrapped")
        // The next / opens in every column; Tab goes back to the column.
        try session.send("/")
        try session.waitForScreen(containing: "/ (all columns)")
        try session.send("Tab")
        try session.waitForScreen(containing: "/ (id)")
        try session.type("550")
        try session.send("Enter")
        try session.waitForScreen(containing: "not found: 550")
    }

    func testTabSearchesEveryColumnOnPostgreSQL() throws {
        let database = try makeTracks()
        let session = try launch(["view", try viewerURL(database), "tracks"])
        try session.waitForScreen(containing: "row 1 of 50 · live", timeout: 10)
        // "nina" is in the artist column, of the even tracks.
        try session.send("/", "Tab")
        try session.waitForScreen(containing: "/ (all columns)")
        try session.type("nina")
        try session.send("Enter")
        try session.waitForScreen(containing: "row 2 of 50 · live")
        try session.send("n")
        try session.waitForScreen(containing: "row 4 of 50 · live")
        try session.send("N", "N")
        try session.waitForScreen(containing: "row 50 of 50 · live")
        try session.waitForScreen(containing: "search wrapped")
    }

    func testAPastedQueryKeepsItsLinesAndRunsAsWritten() throws {
        let database = try makeItemFile("paste.sqlite", rows: 100)
        let session = try launch(["view", database.path, "item"])
        try session.waitForScreen(containing: "row 1 of 100 · live")
        try session.send(":")
        try session.waitForScreen(containing: "SQL: SELECT")
        try session.send("C-u")
        // tmux pastes line ends as CR, as a terminal does. Made one line, the
        // comment would hide the rest of the query.
        try session.paste("SELECT name -- the name\n, price\nFROM item WHERE price > 980")
        try session.waitForScreen(containing: "SQL: SELECT name -- the name⏎, price⏎FROM item WHERE price > 980")
        try session.send("Enter")
        try session.waitForScreen(containing: "2 rows · live")
        let screen = try session.waitForScreen(containing: "item 100")
        XCTAssertTrue(screen.contains("item 099"), screen)
        XCTAssertTrue(screen.contains("1000"), screen)
    }
}
