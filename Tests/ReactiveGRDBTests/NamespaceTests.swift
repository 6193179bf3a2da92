import GRDB
import XCTest
@testable import ReactiveGRDB

final class NamespaceTests: XCTestCase {
    func testRxWrapsItsBase() throws {
        let dbQueue = try DatabaseQueue()
        XCTAssertTrue(dbQueue.rx.base as AnyObject === dbQueue)
    }
}
