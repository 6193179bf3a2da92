import Foundation
import GRDB
import XCTest
@testable import LiveTableCore

/// Rows with a change token (PostgreSQL's `xmin`): the same token tells
/// the same row, whose cells are not compared; another token, or none,
/// and the cells are compared as always.
final class ChangeTokenDiffTests: XCTestCase {
    private func window(_ rows: [(id: Int64, title: String, token: Int?)]) -> WindowSnapshot<Int64> {
        WindowSnapshot(
            rows: rows.map {
                .init(id: $0.id, cells: [$0.title.databaseValue], changeToken: $0.token?.databaseValue)
            },
            reachesStart: true, reachesEnd: true, rowCount: rows.count)
    }

    func testTheSameTokenSkipsTheCells() {
        // Cells that differ under the same token can only come from a test:
        // they show that the cells were not compared.
        let old = window([(1, "One", 700), (2, "Two", 701)])
        let new = window([(1, "One (not compared)", 700), (2, "Two", 701)])
        XCTAssertEqual(WindowDiff(from: old, to: new, cause: .update), WindowDiff())
        XCTAssertEqual(old.rows[0], new.rows[0])
    }

    func testAnotherTokenComparesTheCells() {
        let old = window([(1, "One", 700), (2, "Two", 701)])
        let new = window([(1, "One", 702), (2, "Deux", 703)])
        // Row 1 was written again with the same values: no change shown.
        XCTAssertEqual(WindowDiff(from: old, to: new, cause: .update).changedCells, [2: [0]])
        XCTAssertEqual(old.rows[0], new.rows[0])
        XCTAssertNotEqual(old.rows[1], new.rows[1])
    }

    func testRowsWithoutTokenCompareTheirCells() {
        let old = window([(1, "One", nil)])
        let new = window([(1, "Uno", nil)])
        XCTAssertEqual(WindowDiff(from: old, to: new, cause: .update).changedCells, [1: [0]])
        // One side without a token: compared too.
        XCTAssertEqual(WindowDiff(from: window([(1, "One", 700)]), to: new, cause: .update).changedCells, [1: [0]])
    }
}
