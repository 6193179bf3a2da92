import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// The demo's file for the viewer: made and written as another program
/// would, read back with the sqlite3 command, removed at the end.
final class DemoShopTests: XCTestCase {
    func testShopIsMadeWrittenAndRemoved() throws {
        let directory = try makeTemporaryDirectory().appendingPathComponent("demo")
        let shop = try DemoShop.make(in: directory, orders: 20)
        XCTAssertEqual(try ForeignFile.sqlite3(shop.path, "SELECT COUNT(*), COUNT(DISTINCT status) > 1 FROM orders;"), "20|1\n")
        XCTAssertEqual(try ForeignFile.sqlite3(shop.path, "PRAGMA journal_mode;"), "delete\n")
        XCTAssertEqual(try ForeignFile.sqlite3(shop.path, "SELECT COUNT(*) FROM orders WHERE status = 'new';"), "0\n")
        let firstRows = try ForeignFile.sqlite3(shop.path, "SELECT group_concat(status) FROM orders WHERE id <= 8;")

        shop.startWriting(every: 0.02)
        // New orders, and orders of the first rows that change status.
        let deadline = Date(timeIntervalSinceNow: 10)
        while try ForeignFile.sqlite3(shop.path, ".timeout 5000\nSELECT COUNT(*) >= 23 FROM orders;") != "1\n" {
            XCTAssertLessThan(Date(), deadline, "no new order")
            usleep(10_000)
        }
        XCTAssertNotEqual(
            try ForeignFile.sqlite3(shop.path, ".timeout 5000\nSELECT group_concat(status) FROM orders WHERE id <= 8;"), firstRows)
        shop.close()
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path))
        // Safe to call again.
        shop.close()
    }
}
