import Foundation
import PostgresServer
import XCTest

/// `livetable view` on a server that takes TCP clients over SSL only,
/// with a certificate for `localhost` signed by an authority of its own:
/// libpq's `sslmode` and `sslrootcert` as users give them. A refusal is
/// one line, with no password, and leaves the terminal as it was.
///
/// A server of its own, shared by these tests: the others' server keeps
/// SSL off, whose cost would change what they and the benchmark measure.
final class PostgresSSLTests: LiveTableTestCase {
    private static let server = Result { try PostgresServer(ssl: true) }
    private static let database = "tracks_ssl"
    private static let madeDatabase = Result<Void, any Error> {
        let server = try PostgresSSLTests.server.get()
        try server.createDatabase(database)
        try server.psql("""
            CREATE TABLE tracks(id integer PRIMARY KEY, title text NOT NULL);
            INSERT INTO tracks SELECT i, 'track ' || lpad(i::text, 3, '0') FROM generate_series(1, 50) AS i;
            """, database: database, as: server.writer)
    }

    /// The SSL server, with its `tracks` table of 50 rows.
    private func sslServer() throws -> PostgresServer {
        try Self.madeDatabase.get()
        return try Self.server.get()
    }

    /// A key/value string of the viewer role on the SSL server, its
    /// password in it.
    private func connection(host: String, _ ssl: String) throws -> String {
        let server = try sslServer()
        return "host=\(host) port=\(server.port) dbname=\(Self.database) user=viewer "
            + "password=\(server.viewer.password) \(ssl)"
    }

    func testRequireAndVerifyFullWithTheServersAuthorityConnect() throws {
        let server = try sslServer()
        let authority = try XCTUnwrap(server.certificateAuthority)
        for string in [
            try connection(host: "127.0.0.1", "sslmode=require"),
            // The certificate names localhost: verify-full checks it.
            try connection(host: "localhost", "sslmode=verify-full sslrootcert=\(authority.path)"),
        ] {
            let result = try Shell.run(
                Self.binaryPath, ["view", string, "tracks", "--format", "csv"], environment: ["PATH": "/usr/bin:/bin"])
            XCTAssertEqual(result.status, 0, result.standardError)
            XCTAssertEqual(result.standardError, "")
            XCTAssertTrue(result.standardOutput.hasPrefix("id,title\r\n1,track 001\r\n"), result.standardOutput)
            XCTAssertTrue(result.standardOutput.hasSuffix("50,track 050\r\n"), result.standardOutput)
        }
    }

    func testVerifyFullWithAnotherAuthorityIsRefusedInOneLine() throws {
        let server = try sslServer()
        let openssl = try XCTUnwrap(Shell.which("openssl"), "openssl is not installed")
        let other = directory.appendingPathComponent("other-ca.crt")
        let made = try Shell.run(openssl, [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", "/CN=Another authority", "-keyout", directory.appendingPathComponent("other-ca.key").path,
            "-out", other.path,
        ])
        XCTAssertEqual(made.status, 0, made.standardError)
        let string = try connection(host: "localhost", "sslmode=verify-full sslrootcert=\(other.path)")
        let (status, message) = try runOneLineError(["view", string, "tracks"])
        XCTAssertEqual(status, 1)
        XCTAssertTrue(message.contains("certificate verify failed"), message)
        try assertNoPassword(of: server, in: message, "the error")

        // On a terminal: the error, on a screen the app never took.
        let session = try launch(["view", string, "tracks"], width: 200)
        let screen = try waitForExit(session, status: 1, timeout: 10)
        XCTAssertTrue(screen.contains("livetable: error: "), screen)
        XCTAssertTrue(screen.contains("certificate verify failed"), screen)
        try assertNoPassword(of: server, in: screen, "the terminal")
    }

    func testWithoutSSLTheServerRefusesWithItsMessage() throws {
        let server = try sslServer()
        let (status, message) = try runOneLineError(
            ["view", try connection(host: "127.0.0.1", "sslmode=disable"), "tracks"])
        XCTAssertEqual(status, 1)
        XCTAssertTrue(
            message.contains(
                "no pg_hba.conf entry for host \"127.0.0.1\", user \"viewer\", database \"\(Self.database)\", no encryption"),
            message)
        try assertNoPassword(of: server, in: message, "the error")
    }
}
