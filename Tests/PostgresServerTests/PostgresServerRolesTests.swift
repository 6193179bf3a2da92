import Foundation
import PostgresServer
import XCTest

/// The roles of the test server: the writer writes, the viewer only reads,
/// a wrong password is refused, and no password reaches a message.
final class PostgresServerRolesTests: XCTestCase {
    func testWriterCreatesTablesThatViewerReads() throws {
        let server = try PostgresServer.shared
        try server.createDatabase("rolesWriterCreates")
        try server.psql("""
            CREATE TABLE item(id int PRIMARY KEY, name text);
            INSERT INTO item VALUES (1, 'apple'), (2, 'pear');
            """, database: "rolesWriterCreates", as: server.writer)
        XCTAssertEqual(
            try server.psql("SELECT id, name FROM item ORDER BY id;", database: "rolesWriterCreates", as: server.viewer),
            "1|apple\n2|pear")
        XCTAssertEqual(
            try server.psql("SELECT tableowner FROM pg_tables WHERE tablename = 'item';", database: "rolesWriterCreates"),
            "writer")
        // A table made after the viewer's first read: default privileges.
        try server.psql("CREATE TABLE later(x int); INSERT INTO later VALUES (7);",
                        database: "rolesWriterCreates", as: server.writer)
        XCTAssertEqual(try server.psql("SELECT x FROM later;", database: "rolesWriterCreates", as: server.viewer), "7")
    }

    func testViewerCannotWrite() throws {
        let server = try PostgresServer.shared
        try server.createDatabase("rolesViewerCannotWrite")
        try server.psql("CREATE TABLE item(id int PRIMARY KEY);", database: "rolesViewerCannotWrite", as: server.writer)
        XCTAssertThrowsError(
            try server.psql("INSERT INTO item VALUES (1);", database: "rolesViewerCannotWrite", as: server.viewer)
        ) { error in
            XCTAssertTrue("\(error)".contains("permission denied for table item"), "\(error)")
        }
        XCTAssertThrowsError(
            try server.psql("CREATE TABLE mine(x int);", database: "rolesViewerCannotWrite", as: server.viewer)
        ) { error in
            XCTAssertTrue("\(error)".contains("permission denied for schema public"), "\(error)")
        }
        XCTAssertEqual(try server.psql("SELECT count(*) FROM item;", database: "rolesViewerCannotWrite"), "0")
    }

    func testOnlyWriterViewerAndSuperuserConnect() throws {
        let server = try PostgresServer.shared
        try server.createDatabase("rolesConnect")
        try server.psql("CREATE ROLE stranger LOGIN PASSWORD 'strangerPassword1';")
        let stranger = PostgresServer.Role(name: "stranger", password: "strangerPassword1")
        XCTAssertEqual(try server.psql("SELECT current_user;", as: stranger), "stranger")
        XCTAssertThrowsError(try server.psql("SELECT 1;", database: "rolesConnect", as: stranger)) { error in
            XCTAssertTrue("\(error)".contains("permission denied for database"), "\(error)")
        }
        XCTAssertEqual(try server.psql("SELECT current_user;", database: "rolesConnect", as: server.viewer), "viewer")
    }

    func testWrongPasswordIsRefused() throws {
        let server = try PostgresServer.shared
        let intruder = PostgresServer.Role(name: "viewer", password: "wrong")
        XCTAssertThrowsError(try server.psql("SELECT 1;", as: intruder)) { error in
            XCTAssertTrue("\(error)".contains("password authentication failed for user \"viewer\""), "\(error)")
        }
        XCTAssertEqual(try server.psql("SELECT current_user;", as: server.viewer), "viewer")
    }

    func testURLsConnectOverSocketAndTCP() throws {
        let server = try PostgresServer.shared
        try server.createDatabase("rolesURL")
        let socket = server.url(role: server.viewer, database: "rolesURL", host: .socket, withPassword: false)
        XCTAssertTrue(socket.hasPrefix("postgres://viewer@%2Ftmp%2F"), socket)
        XCTAssertEqual(
            try runPsql(url: socket, password: server.viewer.password,
                        "SELECT current_user, current_database(), inet_server_port() IS NULL;"),
            "viewer|rolesURL|t")
        let tcp = server.url(role: server.viewer, database: "rolesURL", host: .tcp, withPassword: false)
        XCTAssertEqual(tcp, "postgres://viewer@127.0.0.1:\(server.port)/rolesURL")
        XCTAssertEqual(
            try runPsql(url: tcp, password: server.viewer.password, "SELECT current_user, inet_server_port();"),
            "viewer|\(server.port)")
        XCTAssertEqual(
            server.url(role: server.writer, database: "rolesURL", host: .tcp),
            "postgres://writer:\(server.writer.password)@127.0.0.1:\(server.port)/rolesURL")
    }

    func testPasswordsStayOutOfDescriptionsAndErrors() throws {
        let server = try PostgresServer.shared
        XCTAssertEqual("\(server.writer)", "writer")
        let reflected = String(reflecting: server.writer) + String(describing: Mirror(reflecting: server.writer).children.map { $0 })
        XCTAssertFalse(reflected.contains(server.writer.password), "a role's description shows its password")
        // psql echoes a failed statement's text in its error.
        XCTAssertThrowsError(
            try server.psql("ALTER ROLE writer PASSWORD '\(server.writer.password)' nonsense;")
        ) { error in
            XCTAssertTrue("\(error)".contains("nonsense"), "the error is not the server's")
            XCTAssertFalse("\(error)".contains(server.writer.password), "a password is in an error")
        }
        let log = try String(contentsOf: server.directory.appendingPathComponent("server.log"), encoding: .utf8)
        for role in [server.superuser, server.writer, server.viewer] {
            XCTAssertFalse(log.contains(role.password), "\(role)'s password is in the server's log")
        }
    }

    /// psql as a client given a URL, with the password in its environment.
    private func runPsql(url: String, password: String, _ sql: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", "-X", "-A", "-t", "-w", "-c", sql, url]
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PG") }
        environment["PGPASSWORD"] = password
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
    }
}
