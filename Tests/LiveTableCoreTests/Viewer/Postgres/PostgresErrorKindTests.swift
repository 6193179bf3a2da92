import Foundation
import PostgresClient
import XCTest
@testable import LiveTableCore

/// How `PostgresDataSource` reads its errors, names and settings, from
/// values rather than a server's refusals: the kinds the screen acts on,
/// parameters refused up front, SQL names, the session's options beside
/// the user's own.
final class PostgresErrorKindTests: XCTestCase {
    private func kind(_ sqlState: String?, _ kind: PostgresError.Kind = .query) throws -> ViewerFailureKind {
        let database = try PostgresTestDatabase.open("errorKindTests", sql: "SELECT 1;")
        return database.failureKind(of: PostgresError(kind: kind, message: "m", sqlState: sqlState))
    }

    func testServerGoneRestartingOrInConflictIsTransient() throws {
        XCTAssertEqual(try kind(nil, .connection), .transient)        // cannot connect, connection lost
        XCTAssertEqual(try kind("57P01", .connection), .transient)    // admin shutdown
        XCTAssertEqual(try kind("57P05", .connection), .transient)    // idle session timeout
        XCTAssertEqual(try kind("40001"), .transient)                 // conflict with recovery on a standby
        XCTAssertEqual(try kind("42P01"), .missingSource)             // undefined_table
        XCTAssertEqual(try kind("42703"), .missingSource)             // undefined_column
        XCTAssertEqual(try kind("42501"), .transient)                 // permission denied: a GRANT (a commit) ends it
        XCTAssertEqual(try kind("28P01", .authentication), .transient) // a password changed: it may be set back
        XCTAssertEqual(try kind("57014", .timeout), .other)           // statement timeout
    }

    func testParametersAreFoundOutsideStringsNamesAndComments() {
        XCTAssertTrue(PostgresDataSource.hasParameter("id = $1"))
        XCTAssertTrue(PostgresDataSource.hasParameter("x IN ($12)"))
        XCTAssertFalse(PostgresDataSource.hasParameter("name = '$1'"))
        XCTAssertFalse(PostgresDataSource.hasParameter("\"price$1\" > 0 -- $1"))
        XCTAssertFalse(PostgresDataSource.hasParameter("a$1 > 0 /* $2 */"))
        XCTAssertFalse(PostgresDataSource.hasParameter("price > 10"))
        // A `$1` in a dollar-quoted string is text: it was taken for one.
        XCTAssertFalse(PostgresDataSource.hasParameter("note = $$ $1 $$ OR note = $t$ $2 $t$"))
    }

    func testSessionSettingsFollowTheUsersOwnOptions() {
        let settings = PostgresDataSource.Settings(statementTimeout: 2.5)
        let options = settings.connectionSettings(for: "host=/tmp dbname=shop options='-c search_path=sales' connect_timeout=3")
        XCTAssertEqual(
            options["options"],
            "-c search_path=sales -c default_transaction_read_only=on -c standard_conforming_strings=on -c statement_timeout=2500 -c DateStyle=ISO -c IntervalStyle=postgres -c extra_float_digits=3 -c bytea_output=hex -c lc_monetary=C -c idle_in_transaction_session_timeout=60000")
        XCTAssertEqual(options["fallback_application_name"], "livetable")
        XCTAssertNil(options["connect_timeout"])
        XCTAssertEqual(PostgresDataSource.Settings().connectionSettings(for: "dbname=shop")["connect_timeout"], "10")
    }

    func testSQLNamesAreReadAsSQLReadsThem() {
        XCTAssertEqual(PostgresDataSource.sqlName("Sales.Orders").map { [$0.0, $0.1] }, ["sales", "orders"])
        XCTAssertEqual(PostgresDataSource.sqlName("\"Mixed.Case\"").map { [$0.0, $0.1] }, ["public", "Mixed.Case"])
        XCTAssertEqual(PostgresDataSource.sqlName("s.\"a \"\"b\"\"\"").map { [$0.0, $0.1] }, ["s", "a \"b\""])
        XCTAssertNil(PostgresDataSource.sqlName("a.b.c"))
        XCTAssertNil(PostgresDataSource.sqlName("\"open"))
    }
}
