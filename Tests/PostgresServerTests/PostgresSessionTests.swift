import Foundation
import PostgresServer
import XCTest

/// A long-lived psql session: statements in order, a commit visible to
/// another connection as soon as the call returns, errors with the
/// server's message and never a password, a clear error when psql ends.
final class PostgresSessionTests: XCTestCase {
    func testSessionRunsStatementsInOrder() throws {
        let server = try PostgresServer.shared
        try server.createDatabase("sessionInOrder")
        let session = try server.session(database: "sessionInOrder", as: server.writer)
        defer { session.close() }
        try session.execute("CREATE TABLE step(n int)")
        for n in 1...5 {
            try session.execute("INSERT INTO step VALUES (\(n));")
        }
        try session.execute("BEGIN; UPDATE step SET n = n * 10 WHERE n = 5; COMMIT;")
        XCTAssertEqual(try session.execute("SELECT n FROM step ORDER BY ctid;"), ["1", "2", "3", "4", "50"])
        XCTAssertEqual(try session.output("SELECT current_user;"), "writer")
    }

    func testSessionCommitIsVisibleToAnotherConnectionAtOnce() throws {
        let server = try PostgresServer.shared
        try server.createDatabase("sessionCommitVisible")
        let session = try server.session(database: "sessionCommitVisible", as: server.writer)
        defer { session.close() }
        try session.execute("CREATE TABLE item(id int PRIMARY KEY);")
        for id in 1...3 {
            let committed = try session.run("INSERT INTO item VALUES (\(id));")
            XCTAssertLessThanOrEqual(committed, DispatchTime.now().uptimeNanoseconds)
            XCTAssertEqual(
                try server.psql("SELECT max(id) FROM item;", database: "sessionCommitVisible", as: server.viewer),
                "\(id)")
        }
    }

    func testSessionReportsErrorsAndGoesOn() throws {
        let server = try PostgresServer.shared
        try server.createDatabase("sessionErrors")
        let session = try server.session(database: "sessionErrors", as: server.viewer)
        defer { session.close() }
        XCTAssertThrowsError(try session.execute("CREATE TABLE mine(x int);")) { error in
            XCTAssertTrue("\(error)".contains("permission denied for schema public"), "\(error)")
        }
        XCTAssertThrowsError(try session.execute("SELECT * FROM missing")) { error in
            XCTAssertTrue("\(error)".contains("relation \"missing\" does not exist"), "\(error)")
        }
        XCTAssertEqual(try session.output("SELECT 40 + 2;"), "42")
    }

    func testSessionWithWrongPasswordFailsToStart() throws {
        let server = try PostgresServer.shared
        let intruder = PostgresServer.Role(name: "writer", password: "wrong")
        XCTAssertThrowsError(try server.session(as: intruder)) { error in
            XCTAssertTrue("\(error)".contains("password authentication failed"), "\(error)")
        }
    }

    func testSessionErrorNeverHoldsThePassword() throws {
        let server = try PostgresServer.shared
        let session = try server.session(as: server.writer)
        defer { session.close() }
        XCTAssertThrowsError(try session.execute("SELECT * FROM \"\(server.writer.password)\";")) { error in
            XCTAssertTrue("\(error)".contains("relation \"…\" does not exist"), "the error, as the server said it")
            XCTAssertFalse("\(error)".contains(server.writer.password), "the password is in the error")
        }
    }

    func testSessionWhosePsqlDiesMidCallThrowsAtOnce() throws {
        let server = try PostgresServer.shared
        let session = try server.session(as: server.writer)
        defer { session.close() }
        let start = Date()
        // The shell of `\!` kills psql, its parent, before the marker.
        XCTAssertThrowsError(try session.execute("\\! kill -9 $PPID", timeout: 20)) { error in
            XCTAssertTrue("\(error)".hasPrefix("psql has exited"), "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 10, "the call waited for its timeout")
    }

    func testSessionWhoseConnectionIsLostEnds() throws {
        let server = try PostgresServer.shared
        let session = try server.session(as: server.writer)
        defer { session.close() }
        let backend = try session.output("SELECT pg_backend_pid();")
        XCTAssertEqual(try server.psql("SELECT pg_terminate_backend(\(backend));"), "t")
        // psql sees the lost connection at its next statement, and exits.
        XCTAssertThrowsError(try session.execute("SELECT 1;")) { error in
            XCTAssertTrue("\(error)".hasPrefix("psql"), "\(error)")
        }
        XCTAssertThrowsError(try session.execute("SELECT 1;")) { error in
            XCTAssertTrue("\(error)".hasPrefix("psql has exited"), "\(error)")
        }
    }
}
