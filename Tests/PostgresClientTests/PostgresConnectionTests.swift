import Foundation
import PostgresClient
import XCTest

/// Opening connections in each form libpq accepts, their facts, and the
/// errors of a refused login, which never hold the password.
final class PostgresConnectionTests: XCTestCase {
    func testConnectsByURL() throws {
        let cluster = try SharedCluster.get()
        let connection = try PostgresConnection(cluster.url)
        XCTAssertEqual(connection.status, .ok)
        XCTAssertEqual(connection.host, "127.0.0.1")
        XCTAssertEqual(connection.port, "\(cluster.port)")
        XCTAssertEqual(connection.databaseName, "postgres")
        XCTAssertEqual(connection.user, "postgres")
        XCTAssertEqual(connection.displayName, "postgres on 127.0.0.1:\(cluster.port)")
        XCTAssertGreaterThanOrEqual(connection.serverVersion, 150000)
        XCTAssertEqual(connection.isInHotStandby, false)
        XCTAssertEqual(try connection.execute("SELECT 1").rows, [["1"]])
    }

    func testConnectsByKeyValueString() throws {
        let cluster = try SharedCluster.get()
        let connection = try PostgresConnection(
            "host=127.0.0.1 port=\(cluster.port) user=postgres password='\(cluster.password)' dbname=postgres")
        XCTAssertEqual(try connection.execute("SELECT current_user").rows, [["postgres"]])
    }

    func testConnectsThroughTheSocketDirectory() throws {
        let cluster = try SharedCluster.get()
        let connection = try PostgresConnection(
            "host=\(cluster.directory) port=\(cluster.port) user=postgres dbname=postgres",
            settings: ["password": cluster.password])
        XCTAssertEqual(connection.host, cluster.directory)
        // A Unix socket has no client address.
        XCTAssertEqual(try connection.execute("SELECT inet_client_addr() IS NULL").rows, [["t"]])
    }

    func testSettingsOverrideTheConnectionString() throws {
        let cluster = try SharedCluster.get()
        let connection = try PostgresConnection(
            cluster.url + "?application_name=fromurl", settings: ["application_name": "livetable"])
        XCTAssertEqual(try connection.execute("SHOW application_name").rows, [["livetable"]])
        XCTAssertEqual(try connection.execute("SHOW client_encoding").rows, [["UTF8"]])
    }

    func testWrongPasswordIsOneLineWithoutThePassword() throws {
        let cluster = try SharedCluster.get()
        let wrong = "Wr0ng-S3cret"
        XCTAssertThrowsError(try PostgresConnection(
            "postgres://postgres:\(wrong)@127.0.0.1:\(cluster.port)/postgres")) { error in
            guard let error = error as? PostgresError else { return XCTFail("not a PostgresError") }
            XCTAssertEqual(error.kind, .authentication)
            XCTAssertEqual(error.sqlState, "28P01")
            XCTAssertTrue(error.message.contains("password authentication failed for user \"postgres\""))
            XCTAssertFalse(error.message.contains("\n"))
            XCTAssertFalse("\(error)".contains(wrong), "the password leaked")
        }
    }

    func testMissingPasswordSaysSo() throws {
        let cluster = try SharedCluster.get()
        XCTAssertThrowsError(try PostgresConnection(
            "host=127.0.0.1 port=\(cluster.port) user=postgres dbname=postgres passfile=/nonexistent",
            settings: ["password": ""])) { error in
            guard let error = error as? PostgresError else { return XCTFail("not a PostgresError") }
            XCTAssertEqual(error.kind, .authentication)
            XCTAssertTrue(error.message.contains("no password supplied for user \"postgres\""), error.message)
        }
    }

    func testRefusedConnectionIsOneLine() throws {
        let cluster = try SharedCluster.get()
        // Nothing listens on the cluster's port + 1 (most likely).
        XCTAssertThrowsError(try PostgresConnection(
            "postgres://postgres:hunter2hunter2@127.0.0.1:\(cluster.port + 1)/postgres?connect_timeout=2"))
        { error in
            guard let error = error as? PostgresError else { return XCTFail("not a PostgresError") }
            XCTAssertEqual(error.kind, .connection)
            XCTAssertTrue(error.message.contains("Connection refused"), PostgresConnectionString.redacted(error.message))
            XCTAssertFalse(error.message.contains("\n"))
            // libpq's second line starts with a tab: one space, not two.
            XCTAssertFalse(error.message.contains("  "), error.message)
            XCTAssertFalse(error.message.contains("hunter2"))
        }
    }

    func testPasswordNeverReachesAStatementError() throws {
        let cluster = try SharedCluster.get()
        let password = try cluster.makeEchoRole()
        let connection = try PostgresConnection(
            "host=127.0.0.1 port=\(cluster.port) user=echo_test dbname=postgres", settings: ["password": password])
        // The server echoes a value it cannot read: here, the password.
        XCTAssertThrowsError(try connection.execute("SELECT $1::int", [password])) { error in
            guard let error = error as? PostgresError else { return XCTFail("not a PostgresError") }
            XCTAssertEqual(error.sqlState, "22P02")
            // No message in the failure: it would hold the password.
            XCTAssertTrue(error.message.contains("***"))
            XCTAssertFalse(error.message.contains(password), "the password leaked")
        }
    }

    func testServerRestartBreaksTheConnectionAndResetReopensIt() throws {
        let cluster = try SharedCluster.get()
        let connection = try PostgresConnection(cluster.url)
        try cluster.stop()
        try cluster.start()
        XCTAssertThrowsError(try connection.execute("SELECT 1")) { error in
            XCTAssertEqual((error as? PostgresError)?.kind, .connection, "\(error)")
        }
        XCTAssertEqual(connection.status, .bad)
        try connection.reset()
        XCTAssertEqual(connection.status, .ok)
        XCTAssertEqual(try connection.execute("SELECT 2").rows, [["2"]])
    }
}

/// libpq's own conventions come for free: here, a password file.
final class PostgresPasswordFileTests: XCTestCase {
    func testPasswordFileIsReadAndItsPasswordNeverReachesAnError() throws {
        let cluster = try SharedCluster.get()
        let directory = NSTemporaryDirectory() + "LiveTable-pgpass-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: directory) }
        let passwordFile = directory + "/pgpass"
        let password = try cluster.makeEchoRole()
        try "127.0.0.1:\(cluster.port):*:echo_test:\(password)\n"
            .write(toFile: passwordFile, atomically: true, encoding: .utf8)
        chmod(passwordFile, 0o600)   // libpq ignores a file others can read

        let connection = try PostgresConnection(
            "host=127.0.0.1 port=\(cluster.port) user=echo_test dbname=postgres passfile=\(passwordFile)")
        XCTAssertThrowsError(try connection.execute("SELECT $1::int", [password])) { error in
            XCTAssertFalse("\(error)".contains(password), "the password leaked")
        }
    }
}

extension PostgresConnectionTests {
    func testSeveralHostsFallBackToOneThatAnswers() throws {
        let cluster = try SharedCluster.get()
        // The first host refuses (nothing listens on port + 1), the second
        // answers as a read-write primary.
        let connection = try PostgresConnection(
            "postgresql://postgres:\(cluster.password)@127.0.0.1:\(cluster.port + 1),127.0.0.1:\(cluster.port)"
            + "/postgres?target_session_attrs=read-write&connect_timeout=5")
        XCTAssertEqual(connection.port, "\(cluster.port)")
        XCTAssertEqual(connection.displayName, "postgres on 127.0.0.1:\(cluster.port)")
    }
}
