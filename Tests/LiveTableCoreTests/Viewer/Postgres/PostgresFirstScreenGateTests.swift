import Foundation
import XCTest
@testable import LiveTableCore

/// The launch's count and commit watch connect once the first screen is
/// drawn, or after the gate's limit when none comes (an export).
final class PostgresFirstScreenGateTests: XCTestCase {
    func testTheGateHoldsUntilOpenedAndNoLongerThanItsLimit() {
        let gate = PostgresFirstScreenGate()
        var start = Date()
        gate.wait()
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), PostgresFirstScreenGate.limit * 0.9)
        gate.open()
        gate.open()
        start = Date()
        gate.wait()
        XCTAssertLessThan(Date().timeIntervalSince(start), PostgresFirstScreenGate.limit / 2)
    }

    func testTheFirstWindowOpensTheGateAfterTheMainQueuesNextTurn() throws {
        let database = try PostgresTestDatabase.open("firstScreenGateTests", sql: PostgresTestDatabase.twelveItems)
        let viewed = try database.open(.table("item"), sortColumn: nil, descending: false, ticket: ReadTicket())
        var windows = 0
        let cancellable = database.windows(of: viewed, RowWindowRequest(
            ordering: viewed.ordering, anchor: .first, before: 0, after: 5)).sink(
            receiveCompletion: { _ in }, receiveValue: { _ in windows += 1 })
        defer { cancellable.cancel() }
        waitUntil("the first window") { windows > 0 }
        // Open within the main queue's next turns, well before the limit.
        let opened = expectation(description: "the gate opened")
        DispatchQueue.global().async {
            database.firstScreen.wait()
            opened.fulfill()
        }
        wait(for: [opened], timeout: PostgresFirstScreenGate.limit / 2)
    }
}
