import Foundation
import PostgresServer
import XCTest

/// The PostgreSQL side of the viewer's suites: the server that the tests
/// of this process share (`PostgresServer.shared`), one database per test
/// class, a `tracks` table made anew for each test, a writer session, and
/// `psql` run as the viewer role.
extension LiveTableTestCase {
    /// The server that the tests of this process share.
    var postgres: PostgresServer {
        get throws { try PostgresServer.shared }
    }

    /// The test class's database ("e2e_viewer" for PostgresViewerTests),
    /// made on the shared server at its first use. Short: the title shows
    /// it with the host, the port, the table and the liveness note.
    func classDatabase() throws -> String {
        let name = "e2e_" + String(describing: type(of: self)).lowercased()
            .replacingOccurrences(of: "postgres", with: "").replacingOccurrences(of: "tests", with: "")
            .filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
        try PostgresDatabases.makeOnce(name, on: postgres)
        return name
    }

    /// Makes `tracks` anew in the class's database, as the writer:
    /// `tracks(id integer PRIMARY KEY, title text, artist text, plays
    /// integer)`, `rows` rows "track 001"…, played 10, 20…, by "Nina" for
    /// even ids and NULL otherwise, an index on plays, analysed (the
    /// picker's estimate is then exact).
    ///
    /// For example:
    ///
    /// ```swift
    /// let database = try makeTracks()
    /// let session = try launch(["view", try viewerURL(database), "tracks"])
    /// ```
    ///
    /// - returns: The database's name.
    @discardableResult
    func makeTracks(rows: Int = 50) throws -> String {
        let database = try classDatabase()
        try postgres.psql("""
            DROP TABLE IF EXISTS tracks CASCADE;
            CREATE TABLE tracks(id integer PRIMARY KEY, title text NOT NULL, artist text, plays integer);
            CREATE INDEX tracks_plays ON tracks(plays);
            INSERT INTO tracks
                SELECT i, 'track ' || lpad(i::text, 3, '0'), CASE WHEN i % 2 = 0 THEN 'Nina' END, i * 10
                FROM generate_series(1, \(rows)) AS i;
            ANALYZE tracks;
            """, database: database, as: postgres.writer)
        return database
    }

    /// The viewer role's `postgres://` URL of `database`, over TCP on
    /// 127.0.0.1 (the title then says "database on 127.0.0.1:port"), with
    /// its password unless `withPassword` is false.
    func viewerURL(_ database: String, withPassword: Bool = true) throws -> String {
        let server = try postgres
        return server.url(role: server.viewer, database: database, host: .tcp, withPassword: withPassword)
    }

    /// "database on 127.0.0.1:port": the title's name of `database`.
    func titleName(_ database: String) throws -> String {
        "\(database) on 127.0.0.1:\(try postgres.port)"
    }

    /// A writer's session on `database` (a psql process that keeps its
    /// connection), closed after the test.
    func writerSession(_ database: String) throws -> PostgresSession {
        let server = try postgres
        let session = try server.session(database: database, as: server.writer)
        addTeardownBlock { session.close() }
        return session
    }

    /// Runs `sql` as the writer in `database` and returns what it printed.
    @discardableResult
    func psqlAsWriter(_ sql: String, _ database: String) throws -> String {
        let server = try postgres
        return try server.psql(sql, database: database, as: server.writer)
    }

    /// Fails the test if `text` holds a password of the roles of `server`
    /// (the shared server unless told); says which role, never the
    /// password.
    func assertNoPassword(
        of server: PostgresServer? = nil, in text: String, _ what: String,
        file: StaticString = #filePath, line: UInt = #line) throws
    {
        let server = try server ?? postgres
        for role in [server.viewer, server.writer, server.superuser] {
            XCTAssertFalse(text.contains(role.password), "\(what) shows the password of \(role.name)", file: file, line: line)
        }
    }
}

/// The databases made on the shared server by this process.
private enum PostgresDatabases {
    private static let lock = NSLock()
    // nonisolated(unsafe): only touched with `lock` held.
    nonisolated(unsafe) private static var made: Set<String> = []

    /// Makes `name` on `server` unless this process made it already.
    static func makeOnce(_ name: String, on server: PostgresServer) throws {
        lock.lock()
        defer { lock.unlock() }
        guard !made.contains(name) else { return }
        try server.createDatabase(name)
        made.insert(name)
    }
}
