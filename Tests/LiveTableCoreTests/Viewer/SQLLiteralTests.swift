import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// `SQLDialect.literal`, which writes a group's value into the filter that
/// opens its rows (`#`, Enter): each database reads it back as the value,
/// PostgreSQL whatever `standard_conforming_strings` says.
final class SQLLiteralTests: XCTestCase {
    private static let values = ["plain", "it's", #"back\slash"#, #"\'); SELECT 1; --"#, "two\nlines"]

    private static func hex(_ text: String) -> String {
        text.utf8.map { String(format: "%02X", $0) }.joined()
    }

    func testSQLiteReadsTheLiteralBackAsTheValue() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("literals.sqlite").path
        for value in Self.values {
            let literal = SQLDialect.sqlite.literal(value.databaseValue)
            XCTAssertEqual(try ForeignFile.sqlite3(path, "SELECT hex(\(literal));").trimmingCharacters(in: .whitespacesAndNewlines), Self.hex(value), literal)
        }
    }

    func testPostgresReadsTheLiteralBackAsTheValueWhateverItsStringSetting() throws {
        _ = try PostgresTestDatabase.open("sqlLiterals", sql: "SELECT 1;")
        for value in Self.values {
            let literal = SQLDialect.postgres.literal(value.databaseValue)
            for setting in ["on", "off"] {
                let sql = "SET standard_conforming_strings = \(setting);\n"
                    + "SELECT upper(encode(convert_to(\(literal), 'UTF8'), 'hex'));"
                XCTAssertEqual(try PostgresTestDatabase.write("sqlLiterals", sql), Self.hex(value), "\(literal), \(setting)")
            }
        }
    }
}
