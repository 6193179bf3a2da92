import Foundation
import GRDB
import PostgresServer
import XCTest
@testable import LiveTableCore

/// A database of the shared test server, made once per name by the
/// writer, with `sql`, and the viewer's `PostgresDataSource` on it.
enum PostgresTestDatabase {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var made: Set<String> = []

    /// Creates the database `name` (once per process) with `sql` run by
    /// the writer, and opens it as the viewer role.
    static func open(
        _ name: String, sql: String, settings: PostgresDataSource.Settings = .init()) throws -> PostgresDataSource
    {
        let server = try PostgresServer.shared
        try lock.withLock {
            guard !made.contains(name) else { return }
            try server.createDatabase(name)
            try server.psql(sql, database: name, as: server.writer)
            made.insert(name)
        }
        return try PostgresDataSource(server.url(role: server.viewer, database: name), settings: settings)
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

    /// A table `item(id, name)` of 12 rows, "Item 1" to "Item 12".
    static let twelveItems = """
        CREATE TABLE item(id int PRIMARY KEY, name text);
        INSERT INTO item SELECT i, 'Item ' || i FROM generate_series(1, 12) i;
        """

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

/// The rows of `viewed`, each made one string by `row`, read 7 at a time
/// from one end, as PgDn and PgUp anchor each page on the last row of the one before.
func pagedRows(
    _ database: PostgresDataSource, _ viewed: ViewedSource, forward: Bool, maxPages: Int,
    _ row: ([String]) -> String) throws -> [String]
{
    var rows: [String] = []
    var request = RowWindowRequest(
        ordering: viewed.ordering, anchor: forward ? .first : .last, before: forward ? 0 : 7, after: forward ? 7 : 0)
    for _ in 0..<maxPages {
        let window = try database.fetchWindow(viewed, request, ticket: ReadTicket())
        var page = texts(window).map(row)
        if case .position = request.anchor {
            // The anchor row is the first one read after (or the last one
            // read before) the previous page: drop it.
            page = forward ? Array(page.dropFirst()) : Array(page.dropLast())
        }
        rows = forward ? rows + page : page + rows
        let reachesEnd = forward ? window.window.reachesEnd : window.window.reachesStart
        guard !reachesEnd, let position = forward ? window.window.positions.last : window.window.positions.first else {
            return rows
        }
        request = RowWindowRequest(
            ordering: viewed.ordering, anchor: .position(position), before: forward ? 0 : 7, after: forward ? 8 : 1)
    }
    XCTFail("paging never reached the end: \(rows.count) rows read")
    return rows
}

/// Reads the first `limit` rows of `viewed` (`count` of them, if given),
/// then `after` rows from each one's position: its key, bound back, finds
/// that row first and the ones after it next.
func assertEachRowIsFoundFromItsPosition(
    _ database: PostgresDataSource, _ viewed: ViewedSource, limit: Int, after: Int? = nil, count: Int? = nil,
    _ label: String, file: StaticString = #filePath, line: UInt = #line) throws
{
    let all = try database.fetchWindow(
        viewed, RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: limit), ticket: ReadTicket())
    if let count {
        XCTAssertEqual(all.window.rows.count, count, label, file: file, line: line)
    }
    let after = after ?? limit
    for (index, position) in all.window.positions.enumerated() {
        let from = try database.fetchWindow(
            viewed, RowWindowRequest(ordering: viewed.ordering, anchor: .position(position), before: 0, after: after),
            ticket: ReadTicket())
        XCTAssertEqual(
            from.window.rows, Array(all.window.rows[index...].prefix(after)), "\(label) at \(index)", file: file, line: line)
    }
}
