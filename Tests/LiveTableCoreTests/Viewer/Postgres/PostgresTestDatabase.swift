import Foundation
import GRDB
import PostgresServer
import XCTest
@testable import LiveTableCore

/// A database of the shared test server, made once per name by the
/// writer, with `sql`, and the viewer's `PostgresDatabase` on it.
enum PostgresTestDatabase {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var made: Set<String> = []

    /// Creates the database `name` (once per process) with `sql` run by
    /// the writer, and opens it as the viewer role.
    static func open(
        _ name: String, sql: String, settings: PostgresDatabase.Settings = .init()) throws -> PostgresDatabase
    {
        let server = try PostgresServer.shared
        try lock.withLock {
            guard !made.contains(name) else { return }
            try server.createDatabase(name)
            try server.psql(sql, database: name, as: server.writer)
            made.insert(name)
        }
        return try PostgresDatabase(server.url(role: server.viewer, database: name), settings: settings)
    }

    /// Runs `body` once per process for `key`: a fixture's setup that
    /// several tests share.
    static func once(_ key: String, _ body: () throws -> Void) throws {
        try lock.withLock {
            guard !made.contains(key) else { return }
            try body()
            made.insert(key)
        }
    }

    /// Runs `sql` as the writer on the database `name`.
    @discardableResult
    static func write(_ name: String, _ sql: String) throws -> String {
        let server = try PostgresServer.shared
        return try server.psql(sql, database: name, as: server.writer)
    }
}

/// The rows of a window, as text (NULL as "NULL").
func texts(_ window: ViewerWindow) -> [[String]] {
    window.window.rows.map { row in
        row.map { value in
            switch value.storage {
            case .null: return "NULL"
            case let .int64(integer): return String(integer)
            case let .double(double): return "\(double)"
            case let .string(text): return text
            case let .blob(data): return "blob \(data.count)"
            }
        }
    }
}
