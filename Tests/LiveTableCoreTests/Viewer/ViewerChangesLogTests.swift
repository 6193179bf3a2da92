import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// `L`: the changes seen while open, from the diff that highlights them,
/// as a sheet whose rows come from memory; Enter goes to the row; the row
/// view says what a field was; the log keeps the last 10,000.
final class ViewerChangesLogTests: XCTestCase {
    private var path: String!
    private var driver: ViewerDriver!

    override func setUpWithError() throws {
        path = try makeItemsFile(count: 30)
        driver = try ViewerDriver(path: path, table: "item", width: 100)
    }

    private var screen: String {
        driver.lines.joined(separator: "\n")
    }

    /// The log's rows on screen, from the third line (under the title and the header).
    private var logLines: [String] {
        Array(driver.lines[2...7]).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    func testAnUpdateOfAVisibleRowIsListedWithItsOldAndNewValues() throws {
        try driver.commit("UPDATE item SET price = 5000, name = 'two' WHERE id = 2")
        try driver.send(.key(.character("L")))
        XCTAssertEqual(driver.state.table?.viewed.target, .changesLog)
        XCTAssertTrue(driver.lines[0].contains("item › changes log"), screen)
        XCTAssertEqual(logLines.count, 1, screen)
        let line = logLines[0]
        XCTAssertTrue(line.contains("item") && line.contains("updated"), line)
        XCTAssertTrue(line.contains("name: item 02 → two; price: 20 → 5000"), line)
    }

    func testInsertsAndConfirmedDeletionsAreListedNewestFirst() throws {
        try driver.commit("DELETE FROM item WHERE id = 3")
        try driver.commit("INSERT INTO item(id, name, price) VALUES (0, 'zero', 1)")
        try driver.send(.key(.character("L")))
        XCTAssertEqual(logLines.count, 2, screen)
        XCTAssertTrue(logLines[0].hasPrefix("2") && logLines[0].contains("inserted"), screen)
        XCTAssertTrue(logLines[1].hasPrefix("1") && logLines[1].contains("deleted"), screen)
    }

    func testTheLogStaysLiveWithTheSheetUnderIt() throws {
        let item = try XCTUnwrap(driver.state.table)
        let request = try XCTUnwrap(item.observedRequest)
        try driver.send(.key(.character("L")))
        XCTAssertEqual(logLines, ["No rows"], screen)
        // The sheet under the log is still observed, as the program keeps its window's read.
        _ = try ForeignFile.sqlite3(path, "UPDATE item SET price = 7 WHERE id = 4")
        try driver.send(.window(try firstWindow(of: driver.dataSource, item.viewed, request), now: driver.now))
        XCTAssertEqual(logLines.count, 1, screen)
        XCTAssertTrue(logLines[0].contains("price: 40 → 7"), screen)
        XCTAssertTrue(driver.lines[0].contains("row 1 of 1"), screen)
    }

    func testEnterGoesToTheRowInItsSheet() throws {
        try driver.commit("UPDATE item SET price = 5000 WHERE id = 5")
        try driver.commit("UPDATE item SET price = 6000 WHERE id = 2")
        try driver.send(.key(.character("L")))
        try driver.send(.key(.down))
        try driver.send(.key(.enter))
        XCTAssertEqual(driver.state.table?.viewed.target, .table("item"))
        XCTAssertEqual(driver.selected(1), "item 05".databaseValue, screen)
        XCTAssertEqual(driver.state.sheets, [.table("item"), .changesLog])
    }

    func testBackOnTheLogTheSheetClosedIsComparedFromWhereItWas() throws {
        try driver.commit("UPDATE item SET price = 5000 WHERE id = 2")
        try driver.send(.key(.character("L")))
        try driver.send(.key(.enter))
        try driver.commit("UPDATE item SET price = 8 WHERE id = 6")
        XCTAssertEqual(driver.state.changesLog.entries.count, 2)
        let item = try XCTUnwrap(driver.state.table)
        let request = try XCTUnwrap(item.observedRequest)
        try driver.send(.key(.character("q")))
        XCTAssertEqual(driver.state.table?.viewed.target, .changesLog)
        // The closed sheet's observation still delivers: only the new change joins.
        _ = try ForeignFile.sqlite3(path, "UPDATE item SET price = 9 WHERE id = 7")
        try driver.send(.window(try firstWindow(of: driver.dataSource, item.viewed, request), now: driver.now))
        XCTAssertEqual(driver.state.changesLog.entries.map { $0.columns.map(\.new) }, [
            [5000.databaseValue], [8.databaseValue], [9.databaseValue],
        ])
    }

    func testTheRowViewSaysWhatAFieldWasAndHowLongAgo() throws {
        try driver.commit("UPDATE item SET price = 5000 WHERE id = 1")
        driver.clock += .seconds(75)
        try driver.send(.highlightTick(driver.now))
        try driver.send(.key(.enter))
        let lines = rowDetailLines(driver.state).map { $0.name + " " + $0.value }
        let price = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("price") }, "\(lines)")
        XCTAssertTrue(lines[price].hasSuffix(" 5000"), "\(lines)")
        XCTAssertTrue(lines[price + 1].hasSuffix(" was 10, 1 min ago"), "\(lines)")
        XCTAssertEqual(lines.filter { $0.contains("was") }.count, 1, "\(lines)")
    }

    func testChangesAreLoggedWithHighlightingOff() throws {
        try driver.send(.key(.character("H")))
        try driver.commit("UPDATE item SET price = 5000 WHERE id = 2")
        XCTAssertEqual(driver.state.changesLog.entries.map(\.kind), [.updated])
    }

    func testKeysThatWouldReadTheLogWithSQLAreRefused() throws {
        try driver.commit("UPDATE item SET price = 5000 WHERE id = 2")
        try driver.send(.key(.character("L")))
        for key in "[/f:#ICo!." {
            let effects = try driver.send(.key(.character(key)))
            XCTAssertEqual(effects, [], String(key))
            XCTAssertEqual(driver.state.table?.viewed.target, .changesLog, String(key))
            XCTAssertNil(driver.state.prompt, String(key))
        }
        // The footer offers none of them.
        let footer = driver.lines[driver.lines.count - 2]
        XCTAssertEqual(footer.trimmingCharacters(in: .whitespaces), "↑↓ move  Enter go to the row  s save  y copy  ? help  q back")
    }

    /// `s` saves the log from memory, as shown (a column hidden, newest
    /// first), through the writers of every sheet.
    func testSSavesTheLogAsShown() throws {
        try driver.commit("UPDATE item SET price = 5000, name = 'two' WHERE id = 2")
        try driver.commit("INSERT INTO item(id, name, price) VALUES (0, 'zero', 1)")
        try driver.type("Ll-")
        try driver.type("s")
        XCTAssertEqual(driver.state.prompt?.text, "changes.csv")
        let directory = try makeTemporaryDirectory()
        for name in ["changes.csv", "changes.jsonl"] {
            try driver.send(.key(.control("u")))
            try driver.type(directory.appendingPathComponent(name).path)
            try driver.send(.key(.enter))
            XCTAssertEqual(driver.state.message, .notice("saved 2 rows to \(directory.path)/\(name)"))
            try driver.type("s")
        }
        try driver.send(.key(.escape))
        XCTAssertEqual(try String(contentsOf: directory.appendingPathComponent("changes.csv"), encoding: .utf8), """
            #,sheet,key,change,values\r
            2,item,0,inserted,""\r
            1,item,2,updated,name: item 02 → two; price: 20 → 5000\r

            """)
        let lines = try String(contentsOf: directory.appendingPathComponent("changes.jsonl"), encoding: .utf8)
            .split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(lines.map { $0?["#"] as? Int }, [2, 1])
        XCTAssertEqual(lines.map { $0?["change"] as? String }, ["inserted", "updated"])
        XCTAssertNil(lines.first??["time"], "hidden")
    }

    func testACommitThatChangesNothingOnScreenLeavesTheStateEqual() throws {
        path = try makeItemsFile(count: 30, extra: "CREATE TABLE other(x);")
        driver = try ViewerDriver(path: path, table: "item", width: 100)
        try driver.commit("UPDATE item SET price = 5000 WHERE id = 2")
        let before = driver.state
        driver.clock += .seconds(1)
        try driver.commit("INSERT INTO other VALUES (1)")
        XCTAssertEqual(driver.state, before, "nothing to draw")
    }

    func testTheLogKeepsTheLastTenThousandChanges() throws {
        var log = ChangesLog()
        let source = ChangesLog.viewed.source
        let ids = (1...(ChangesLog.limit + 50)).map { StoredKey([$0.databaseValue]) }
        log.recordDeletions(ids, of: source, at: .now)
        XCTAssertEqual(log.entries.count, ChangesLog.limit)
        XCTAssertEqual(log.entries.first?.number, 51)
        XCTAssertEqual(log.entries.last?.number, ChangesLog.limit + 50)
        // Paged newest first, as a table is.
        let request = RowWindowRequest(ordering: ChangesLog.viewed.ordering, anchor: .first, before: 0, after: 3)
        let window = log.window(request)
        XCTAssertEqual(window.window.rows.map { $0[0] }, [10_050, 10_049, 10_048].map(\.databaseValue))
        XCTAssertTrue(window.window.reachesStart)
        XCTAssertFalse(window.window.reachesEnd)
        let last = log.window(RowWindowRequest(ordering: ChangesLog.viewed.ordering, anchor: .last, before: 2, after: 0))
        XCTAssertEqual(last.window.rows.map { $0[0] }, [52, 51].map(\.databaseValue))
        XCTAssertTrue(last.window.reachesEnd)
    }
}
