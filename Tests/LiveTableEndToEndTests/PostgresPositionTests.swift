import Foundation
import XCTest

/// The title's position on PostgreSQL, in tmux: the real binary on the
/// test server, written meanwhile by the writer's psql session.
final class PostgresPositionTests: LiveTableTestCase {
    /// Under a sort on an unindexed column nothing counts the rows before
    /// the selection: after rows come before it, its number is unknown,
    /// not the one from before the commit ("row ~209 of 1,300", 1,209 in truth).
    func testRowsInsertedBeforeTheSelectionMakeAnUnknownPositionUnderAnUnindexedSort() throws {
        let database = try makeTracks(rows: 300)
        let session = try launch(["view", try viewerURL(database), "tracks", "--sort", "title"], width: 160)
        try session.waitForScreen(containing: "row 1 of 300 · live", timeout: 10)
        // Pages down, each window anchored on the selection, its number
        // carried from the one before.
        func selectedRow(_ screen: String) -> Int? {
            let title = ViewerScreen.line(0, of: screen)
            return title.range(of: #"row [0-9]+ of 300 · live"#, options: .regularExpression)
                .flatMap { Int(title[$0].dropFirst(4).prefix { $0 != " " }) }
        }
        var row = 1
        for _ in 0..<8 {
            try session.send("PgDn")
            let screen = try session.waitForScreen("a page down from row \(row)") { (selectedRow($0) ?? row) > row }
            row = try XCTUnwrap(selectedRow(screen))
        }
        XCTAssertGreaterThan(row, 100)
        try writerSession(database).run(
            "INSERT INTO tracks SELECT 1000 + i, 'a ' || i, NULL, 0 FROM generate_series(1, 1000) AS i;")
        let screen = try session.waitForScreen("the new count") { ViewerScreen.titleCount($0) == 1300 }
        let title = ViewerScreen.line(0, of: screen)
        XCTAssertFalse(title.contains("row "), "row \(row + 1000) in truth: unknown, not a number from before\n\(title)")
        XCTAssertTrue(screen.contains("track " + String(format: "%03d", row)), screen)
        // Known again at the start.
        try session.send("g")
        try session.waitForScreen(containing: "row 1 of 1,300 · live")
        try session.send("q")
        try waitForExit(session, status: 0)
    }
}
