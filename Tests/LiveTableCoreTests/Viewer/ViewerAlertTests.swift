import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// `!` and `--alert`: the condition is checked as a filter is, the rows
/// that match are marked and counted in the title, and a row that starts
/// matching after another process's commit rings the bell.
final class ViewerAlertTests: XCTestCase {
    private var path: String!
    private var driver: ViewerDriver!

    override func setUpWithError() throws {
        path = try makeItemsFile(count: 30)
    }

    private var screen: String {
        driver.lines.joined(separator: "\n")
    }

    private func rings(_ effects: [ViewerEffect]) -> Bool {
        effects.contains(.alert(.bell))
    }

    private func setAlert(_ condition: String) throws -> [ViewerEffect] {
        try driver.type("!")
        try driver.type(condition)
        return try driver.send(.key(.enter))
    }

    func testMatchingRowsAreCountedAndARowThatStartsMatchingRingsAndIsMarked() throws {
        driver = try ViewerDriver(path: path, table: "item")
        XCTAssertFalse(rings(try setAlert("price > 280")), "the rows matching at first ring nothing")
        XCTAssertTrue(driver.lines[0].contains("! 2 matching"), screen)
        XCTAssertEqual(driver.state.message, .notice("alert on: price > 280"))
        // Rows 1 to 6 on screen, none matching: no mark.
        XCTAssertFalse(driver.lines[2...7].contains { $0.hasPrefix("!") }, screen)

        let effects = try driver.commit("UPDATE item SET price = 5000 WHERE id = 2")
        XCTAssertTrue(rings(effects))
        XCTAssertTrue(driver.lines[0].contains("! 3 matching"), screen)
        XCTAssertEqual(driver.lines[9].trimmingCharacters(in: .whitespaces), "alert: a row now matches price > 280")
        XCTAssertTrue(driver.lines[3].hasPrefix("!"), screen)
        XCTAssertTrue(driver.lines[3].contains("item 02"), screen)
        XCTAssertFalse(driver.lines[4].hasPrefix("!"), screen)

        // A commit that changes nothing of the matches rings no more.
        XCTAssertFalse(rings(try driver.commit("UPDATE item SET name = 'other' WHERE id = 3")))
        // An inserted row that matches rings too; one that leaves only counts down.
        XCTAssertTrue(rings(try driver.commit("INSERT INTO item(name, price) VALUES ('new', 9000)")))
        XCTAssertTrue(driver.lines[0].contains("! 4 matching"), screen)
        XCTAssertFalse(rings(try driver.commit("UPDATE item SET price = 1 WHERE id = 2")))
        XCTAssertTrue(driver.lines[0].contains("! 3 matching"), screen)
        XCTAssertFalse(driver.lines[3].hasPrefix("!"), screen)
    }

    func testARejectedConditionComesBackOnThePromptWithItsError() throws {
        driver = try ViewerDriver(path: path, table: "item")
        XCTAssertFalse(rings(try setAlert("no_such_column = 1")))
        XCTAssertNil(driver.state.alert)
        XCTAssertEqual(driver.state.prompt?.kind, .alert)
        XCTAssertEqual(driver.state.prompt?.text, "no_such_column = 1")
        guard case let .error(text)? = driver.state.message else {
            return XCTFail("no error: \(String(describing: driver.state.message))")
        }
        XCTAssertTrue(text.contains("no_such_column"), text)
    }

    func testAConditionThatWouldWriteIsRefusedAsAFilterIs() throws {
        driver = try ViewerDriver(path: path, table: "item")
        _ = try setAlert("id IN (SELECT writefile('/tmp/livetable-alert', 'x'))")
        XCTAssertNil(driver.state.alert)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/tmp/livetable-alert"))
        guard case .error? = driver.state.message else {
            return XCTFail("not refused: \(String(describing: driver.state.message))")
        }
    }

    func testAnEmptyConditionTurnsTheAlertOff() throws {
        driver = try ViewerDriver(path: path, table: "item")
        _ = try setAlert("price > 280")
        try driver.type("!")
        XCTAssertEqual(driver.state.prompt?.text, "price > 280", "the prompt holds the condition to edit")
        for _ in 0..<"price > 280".count {
            try driver.send(.key(.backspace))
        }
        let effects = try driver.send(.key(.enter))
        XCTAssertNil(driver.state.alert)
        XCTAssertTrue(effects.contains(.alert(.stop)))
        XCTAssertFalse(driver.lines[0].contains("matching"), screen)
    }

    func testBeyondTheRowLimitTheCountIsALowerBound() throws {
        path = try makeItemsFile(count: ViewerAlert.rowLimit + 200)
        driver = try ViewerDriver(path: path, table: "item")
        _ = try setAlert("price > 0")
        XCTAssertEqual(driver.state.alert?.countText, "1,000+")
        XCTAssertTrue(driver.lines[0].contains("! 1,000+ matching"), screen)
    }

    func testTheFirstMatchWaitsForACommitThroughTheLiveWindows() throws {
        let dataSource = try SQLiteDataSource.open(path: path)
        let viewed = try dataSource.open(.table("item"), sortColumn: nil, descending: false, ticket: ReadTicket())
        let filtered = try dataSource.filter(viewed, by: "price = 12345", ticket: ReadTicket()).viewed
        var found: [ViewerWindow] = []
        let cancellable = ViewerAlert.firstMatch(of: filtered, in: dataSource)
            .sink(receiveCompletion: { _ in }, receiveValue: { found.append($0) })
        defer { cancellable.cancel() }
        RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.2))
        XCTAssertEqual(found.count, 0)
        _ = try ForeignFile.sqlite3(path, "UPDATE item SET price = 12345 WHERE id = 7")
        let deadline = Date(timeIntervalSinceNow: 10)
        while found.isEmpty, Date() < deadline {
            RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.01))
        }
        XCTAssertEqual(found.map { $0.window.rows.map { $0[1] } }, [["item 07".databaseValue]])
    }
}
