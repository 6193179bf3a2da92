import PostgresClient
import XCTest

/// Reading connection strings without connecting, and redacting them.
final class PostgresConnectionStringTests: XCTestCase {
    func testRedactsTheURLPassword() {
        XCTAssertEqual(
            PostgresConnectionString.redacted("postgres://ann:s3cr%40t@db.example.com:5433/tracks"),
            "postgres://ann:***@db.example.com:5433/tracks")
        XCTAssertEqual(
            PostgresConnectionString.redacted("postgresql://ann@h1,h2/db?password=x&sslmode=require"),
            "postgresql://ann@h1,h2/db?password=***&sslmode=require")
        XCTAssertEqual(
            PostgresConnectionString.redacted("postgresql://h/db?%70assword=x"),
            "postgresql://h/db?%70assword=***")
        XCTAssertEqual(
            PostgresConnectionString.redacted("postgres://db.example.com/tracks"),
            "postgres://db.example.com/tracks")
    }

    func testRedactsTheKeyValuePassword() {
        XCTAssertEqual(
            PostgresConnectionString.redacted("host=db password = 's e\\'c' dbname=t"),
            "host=db password=*** dbname=t")
        XCTAssertEqual(
            PostgresConnectionString.redacted("password=hunter2"),
            "password=***")
        XCTAssertEqual(PostgresConnectionString.redacted("tracks"), "tracks")
    }

    func testParsesEveryFormLibpqAccepts() throws {
        let url = try PostgresConnectionString("postgres://ann:secret@db.example.com:5433/tracks")
        XCTAssertEqual(url.host, "db.example.com")
        XCTAssertEqual(url.port, "5433")
        XCTAssertEqual(url.databaseName, "tracks")
        XCTAssertEqual(url.user, "ann")
        XCTAssertNil(url.options["password"])
        XCTAssertEqual(url.displayName, "tracks on db.example.com:5433")

        let keyValue = try PostgresConnectionString("host=/var/run/postgresql dbname='my db'")
        XCTAssertEqual(keyValue.displayName, "my db on /var/run/postgresql")

        let multiHost = try PostgresConnectionString(
            "postgresql://h1:5432,h2:5433/db?target_session_attrs=read-write")
        XCTAssertEqual(multiHost.displayName, "db on h1:5432,h2:5433")
        XCTAssertEqual(multiHost.options["target_session_attrs"], "read-write")

        XCTAssertEqual(try PostgresConnectionString("tracks").displayName, "tracks")
        XCTAssertEqual(try PostgresConnectionString("").displayName, "PostgreSQL")
    }

    func testMalformedStringErrorHoldsNoPassword() {
        XCTAssertThrowsError(try PostgresConnectionString("host=db hunter2secret")) { error in
            guard let error = error as? PostgresError else { return XCTFail("not a PostgresError") }
            XCTAssertEqual(error.kind, .usage)
            XCTAssertFalse(error.message.contains("hunter2"), "the password leaked")
        }
        XCTAssertThrowsError(try PostgresConnectionString("postgres://ann:hunter2@db/x?bogus=1")) { error in
            XCTAssertFalse("\(error)".contains("hunter2"), "the password leaked")
        }
    }
}
