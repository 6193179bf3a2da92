import Foundation
import PostgresClient
import XCTest

/// libpq is loaded by the first connection or connection-string parse
/// that needs it; a libpq that cannot be loaded is a ``PostgresError``,
/// every time it is asked for, and never a crash.
///
/// A test process loads libpq once, so the missing library is tried in a
/// child: this same test bundle, running this one test with
/// LIVETABLE_LIBPQ naming a file that does not exist.
final class PostgresLibraryTests: XCTestCase {
    private static let missingLibrary = "/nonexistent/libpq.so.5"

    func testAMissingLibPQIsAConnectionErrorNotACrash() throws {
        if ProcessInfo.processInfo.environment["LIVETABLE_LIBPQ"] == Self.missingLibrary {
            try checkEveryPathThrows()
        } else {
            try ChildTest.run(
                "PostgresClientTests.PostgresLibraryTests/testAMissingLibPQIsAConnectionErrorNotACrash",
                environment: ["LIVETABLE_LIBPQ": Self.missingLibrary])
        }
    }

    /// In the child: each way into libpq throws the same one-line error.
    private func checkEveryPathThrows() throws {
        let expected = PostgresError(
            kind: .connection,
            message: "PostgreSQL support needs libpq (libpq5): \(Self.missingLibrary): "
                + "cannot open shared object file: No such file or directory")
        for _ in 1...2 {
            XCTAssertThrowsError(try PostgresConnection("postgres://viewer:secret@127.0.0.1:1/tracks")) { error in
                XCTAssertEqual(error as? PostgresError, expected)
            }
            XCTAssertThrowsError(try PostgresConnection("")) { error in
                XCTAssertEqual(error as? PostgresError, expected)
            }
            XCTAssertThrowsError(try PostgresConnectionString("host=db dbname=tracks")) { error in
                XCTAssertEqual(error as? PostgresError, expected)
            }
        }
        // What needs no libpq still works: a bare database name, redaction.
        XCTAssertEqual(try PostgresConnectionString("tracks").databaseName, "tracks")
        XCTAssertEqual(
            PostgresConnectionString.redacted("postgres://ann:secret@db/tracks"),
            "postgres://ann:***@db/tracks")
    }
}
