import Foundation
import PostgresServer

/// The server of these tests: the test process's shared `PostgresServer`,
/// as the superuser sees it.
struct SharedCluster {
    let server: PostgresServer

    /// The directory of the server's Unix socket.
    var directory: String { server.directory.path }
    /// The TCP port on 127.0.0.1.
    var port: Int { server.port }
    /// The superuser's password.
    var password: String { server.superuser.password }
    /// The superuser's URL over TCP.
    var url: String { server.url(role: server.superuser, host: .tcp) }

    /// Makes the role `echo_test` anew, with a new password, and returns
    /// its password: for the tests that send a password as a value, which
    /// the server echoes in its log, where the shared roles' passwords
    /// must never be (`PostgresServerRolesTests`).
    func makeEchoRole() throws -> String {
        let password = "echo-" + UUID().uuidString
        try server.psql("""
            DROP ROLE IF EXISTS echo_test;
            CREATE ROLE echo_test LOGIN PASSWORD '\(password)';
            """)
        return password
    }

    func start() throws { try server.start() }
    func stop() throws { try server.stop() }

    static func get() throws -> SharedCluster {
        SharedCluster(server: try PostgresServer.shared)
    }
}
