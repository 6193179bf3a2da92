import Foundation
import XCTest

/// libpq's connection service file (`PGSERVICEFILE`, `service=NAME`,
/// `?service=NAME`, `PGSERVICE`) and password file (`PGPASSFILE`), as users
/// of psql already have them: the viewer connects through them, and the
/// password it read from the file never reaches the screen or an error.
final class PostgresServiceFileTests: LiveTableTestCase {
    /// Writes a service file with the service `lt` (the shared server over
    /// TCP, as the viewer role, no password) and a password file with the
    /// viewer's password, in the test's directory; returns the environment
    /// that names them.
    private func serviceEnvironment() throws -> [String: String] {
        let server = try postgres
        let serviceFile = directory.appendingPathComponent("pg_service.conf")
        try """
            # The shared test server, as the viewer role.
            [lt]
            host=127.0.0.1
            port=\(server.port)
            user=viewer

            """.write(to: serviceFile, atomically: true, encoding: .utf8)
        let passwordFile = directory.appendingPathComponent("pgpass")
        try "127.0.0.1:\(server.port):*:viewer:\(server.viewer.password)\n"
            .write(to: passwordFile, atomically: true, encoding: .utf8)
        // libpq ignores a password file that others may read.
        chmod(passwordFile.path, 0o600)
        return ["PATH": "/usr/bin:/bin", "PGSERVICEFILE": serviceFile.path, "PGPASSFILE": passwordFile.path]
    }

    func testEveryFormOfAServiceExportsTheTable() throws {
        let database = try makeTracks()
        let environment = try serviceEnvironment()
        let plain = try Shell.run(
            Self.binaryPath, ["view", try viewerURL(database), "tracks", "--format", "csv"],
            environment: ["PATH": "/usr/bin:/bin"])
        XCTAssertEqual(plain.status, 0, plain.standardError)
        XCTAssertTrue(plain.standardOutput.contains("50,track 050,Nina,500"), plain.standardOutput)

        for (connection, more) in [
            ("service=lt dbname=\(database)", [:]),
            ("postgresql:///\(database)?service=lt", [:]),
            ("dbname=\(database)", ["PGSERVICE": "lt"]),
        ] {
            let result = try Shell.run(
                Self.binaryPath, ["view", connection, "tracks", "--format", "csv"],
                environment: environment.merging(more) { $1 })
            XCTAssertEqual(result.status, 0, "\(connection): \(result.standardError)")
            XCTAssertEqual(result.standardError, "", connection)
            XCTAssertEqual(result.standardOutput, plain.standardOutput, connection)
        }
    }

    func testAServiceThatFailsIsOneLineWithoutThePassword() throws {
        let database = try makeTracks()
        let environment = try serviceEnvironment()
        for (connection, expected) in [
            ("service=lt dbname=no_such_database", "database \"no_such_database\" does not exist"),
            ("service=nowhere dbname=\(database)", "definition of service \"nowhere\" not found"),
            // The password file has no line for the writer.
            ("service=lt user=writer dbname=\(database)", "no password supplied for user \"writer\""),
        ] {
            let (status, message) = try runOneLineError(["view", connection, "tracks"], environment: environment)
            XCTAssertEqual(status, 1, connection)
            XCTAssertTrue(message.contains(expected), "\(connection): \(message)")
            try assertNoPassword(in: message, "the error")
        }
    }

    func testAServiceIsViewedLive() throws {
        let database = try makeTracks()
        let session = try launch(["view", "service=lt dbname=\(database)", "tracks"], environment: try serviceEnvironment())
        let screen = try session.waitForScreen(containing: "row 1 of 50 · live", timeout: 10)
        XCTAssertTrue(ViewerScreen.line(0, of: screen).contains("\(try titleName(database)) — tracks"), screen)
        try writerSession(database).run("UPDATE tracks SET plays = 77777 WHERE id = 3;")
        try session.waitForScreen(containing: "77777")
        try assertNoPassword(in: try session.screen(), "the screen")
        try session.send("q")
        let exited = try waitForExit(session, status: 0)
        try assertNoPassword(in: exited, "the terminal")
    }
}
