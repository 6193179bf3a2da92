import Foundation
import PostgresServer
import XCTest

/// A server made with `ssl: true`: TCP clients over SSL only, with a
/// certificate for localhost signed by its own authority. The shared
/// server keeps SSL off, whose cost would change what the other tests and
/// the benchmark measure.
final class PostgresServerSSLTests: XCTestCase {
    func testAnSSLServerTakesTCPClientsOverSSLOnly() throws {
        let server = try PostgresServer(ssl: true)
        defer { server.remove() }
        let authority = try XCTUnwrap(server.certificateAuthority)
        let base = "port=\(server.port) dbname=postgres user=viewer"
        let sql = "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid();"
        XCTAssertEqual(try psql("host=127.0.0.1 \(base) sslmode=require", server.viewer.password, sql).output, "t")
        XCTAssertEqual(
            try psql("host=localhost \(base) sslmode=verify-full sslrootcert=\(authority.path)",
                     server.viewer.password, sql).output,
            "t")
        let refused = try psql("host=127.0.0.1 \(base) sslmode=disable", server.viewer.password, sql)
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.error.contains("no pg_hba.conf entry"), refused.error)
        // The socket, which the fixture's own psql uses, needs none.
        XCTAssertEqual(try server.psql("SELECT current_user;", as: server.viewer), "viewer")
    }

    func testTheSharedServerKeepsSSLOff() throws {
        let server = try PostgresServer.shared
        XCTAssertNil(server.certificateAuthority)
        XCTAssertEqual(try server.psql("SHOW ssl;"), "off")
    }

    /// psql on a key/value string, the password in its environment.
    private func psql(
        _ connection: String, _ password: String, _ sql: String) throws -> (status: Int32, output: String, error: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", "-X", "-A", "-t", "-w", "-c", sql, connection]
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PG") }
        environment["PGPASSWORD"] = password
        environment["PGCONNECT_TIMEOUT"] = "10"
        process.environment = environment
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus,
                String(decoding: outputData, as: UTF8.self).trimmingCharacters(in: .newlines),
                String(decoding: errorData, as: UTF8.self))
    }
}
