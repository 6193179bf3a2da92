import Foundation
import GRDB
import XCTest
@testable import LiveTableCore
import LiveTableTestSupport

/// Windows of a filtered source are the rows that the filter keeps, in
/// order, however they are paged: checked against the same rows filtered
/// and sorted in Swift, for a filtered view (no row identity: paged by all
/// its columns) and a filtered sort on an unindexed column (read as a
/// scan, the ranges of a side OR'ed in one statement), paging forwards and
/// backwards, for filters that hold OR, and random data.
final class ViewerFilterPagingTests: XCTestCase {
    private var path: String!
    private var database: SQLiteDataSource!
    /// Every row of `item`: id, name, price.
    private var rows: [[DatabaseValue]] = []

    override func setUpWithError() throws {
        path = try makeTemporaryDirectory().appendingPathComponent("filtered.sqlite").path
        // 1,000 rows, a third "drop"; prices with NULLs and many equal
        // values (ties), no index on price. The view has no row identity.
        try ForeignFile.sqlite3(path, """
            CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price INTEGER);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
            INSERT INTO item(name, price) SELECT
                CASE WHEN abs(random()) % 3 = 0 THEN 'drop' ELSE 'keep' END,
                CASE WHEN abs(random()) % 10 = 0 THEN NULL ELSE abs(random()) % 40 END
            FROM n;
            CREATE VIEW v AS SELECT id, name, price FROM item;
            CREATE VIEW w AS SELECT name, price FROM item;
            """)
        database = try SQLiteDataSource.open(path: path)
        rows = try database.read { db in
            try Row.fetchAll(db, sql: "SELECT id, name, price FROM item").map { Array($0.databaseValues) }
        }
    }

    // MARK: - Filters, in SQL and in Swift

    private struct Filter {
        var sql: String
        var keeps: ([String: DatabaseValue]) -> Bool
    }

    private static let filters = [
        Filter(sql: "name = 'keep'") { $0["name"] == "keep".databaseValue },
        Filter(sql: "name = 'drop' OR price IS NULL") {
            $0["name"] == "drop".databaseValue || $0["price"]!.isNull
        },
        Filter(sql: "price < 10 OR price > 30 -- a comment") { row in
            guard let price = Int64.fromDatabaseValue(row["price"]!) else { return false }
            return price < 10 || price > 30
        },
    ]

    // MARK: - The property

    func testFilteredViewPagesOnlyTheRowsItKeeps() throws {
        for filter in Self.filters {
            try assertPaging("v", columns: ["id", "name", "price"], sort: nil, descending: false, filter)
            try assertPaging("w", columns: ["name", "price"], sort: nil, descending: false, filter)
        }
    }

    func testFilteredSortOnAnUnindexedColumnPagesOnlyTheRowsItKeeps() throws {
        for filter in Self.filters {
            for descending in [false, true] {
                try assertPaging("item", columns: ["id", "name", "price"], sort: "price", descending: descending, filter)
                try assertPaging("w", columns: ["name", "price"], sort: "price", descending: descending, filter)
            }
        }
    }

    /// Opens `table` as the viewer does, filters it, and pages it both
    /// ways, as an index search and as a scan would read it.
    private func assertPaging(
        _ table: String, columns: [String], sort: String?, descending: Bool, _ filter: Filter,
        file: StaticString = #filePath, line: UInt = #line) throws
    {
        let viewed = try database.read { db in
            try ViewedSource.open(.table(table), sortColumn: sort, descending: descending, in: db)
                .filtered(filter.sql, in: db).viewed
        }
        if sort != nil {
            XCTAssertEqual(viewed.cost, .scan, "an unindexed sort", file: file, line: line)
        }
        let expected = expectedRows(columns: columns, sort: sort, descending: descending, filter)
        let label = "\(table) by \(sort ?? "its key")\(descending ? " DESC" : "") where \(filter.sql)"
        XCTAssertGreaterThan(expected.count, 16, label, file: file, line: line)
        for scans in [viewed.cost == .scan, viewed.cost != .scan] {
            for size in [7, 16] {
                let forwards = try pageForwards(viewed, size: size, scans: scans)
                XCTAssertEqual(forwards.count, expected.count, "\(label), forwards by \(size)", file: file, line: line)
                XCTAssertTrue(forwards == expected, "\(label), forwards by \(size)", file: file, line: line)
                let backwards = try pageBackwards(viewed, size: size, scans: scans)
                XCTAssertEqual(backwards.count, expected.count, "\(label), backwards by \(size)", file: file, line: line)
                XCTAssertTrue(backwards == expected, "\(label), backwards by \(size)", file: file, line: line)
            }
        }
    }

    private func fetch(_ viewed: ViewedSource, _ anchor: RowAnchor, before: Int, after: Int, scans: Bool) throws -> RowWindow {
        try database.read { db in
            try RowWindow.fetch(
                db, viewed.source, RowWindowRequest(ordering: viewed.ordering, anchor: anchor, before: before, after: after),
                scans: scans)
        }
    }

    /// Every row, window after window from the first, each window from
    /// the position after the last row of the previous one.
    private func pageForwards(_ viewed: ViewedSource, size: Int, scans: Bool) throws -> [[DatabaseValue]] {
        var paged: [[DatabaseValue]] = []
        var window = try fetch(viewed, .first, before: 0, after: size, scans: scans)
        while true {
            paged += window.rows
            guard !window.reachesEnd, var next = window.positions.last, paged.count <= rows.count else { break }
            next.occurrence += 1
            window = try fetch(viewed, .position(next), before: 0, after: size, scans: scans)
        }
        return paged
    }

    /// Every row, window after window from the last, each window the rows
    /// before the first row of the next one.
    private func pageBackwards(_ viewed: ViewedSource, size: Int, scans: Bool) throws -> [[DatabaseValue]] {
        var paged: [[DatabaseValue]] = []
        var window = try fetch(viewed, .last, before: size, after: 0, scans: scans)
        while true {
            paged = window.rows + paged
            guard !window.reachesStart, let first = window.positions.first, paged.count <= rows.count else { break }
            window = try fetch(viewed, .position(first), before: size, after: 0, scans: scans)
        }
        return paged
    }

    // MARK: - The same rows, in Swift

    /// The rows `filter` keeps, sorted as SQLite sorts them: on the sort
    /// column, then on each column (the view's key, or the rowid `id`).
    private func expectedRows(columns: [String], sort: String?, descending: Bool, _ filter: Filter) -> [[DatabaseValue]] {
        let names = ["id", "name", "price"]
        let kept = rows
            .map { row in Dictionary(uniqueKeysWithValues: zip(names, row)) }
            .filter(filter.keeps)
        // A table is identified by its rowid; a view by all its columns.
        let tiebreakers = columns.contains("id") ? ["id"] : columns
        let key = (sort.map { [$0] } ?? []) + tiebreakers.filter { $0 != sort }
        let sorted = kept.sorted { a, b in
            for name in key {
                let order = Self.compare(a[name]!, b[name]!)
                if order != 0 { return descending ? order > 0 : order < 0 }
            }
            return false
        }
        return sorted.map { row in columns.map { row[$0]! } }
    }

    /// SQLite's order of values: NULL, numbers by value, text byte by
    /// byte (BINARY), blobs.
    private static func compare(_ a: DatabaseValue, _ b: DatabaseValue) -> Int {
        func rank(_ value: DatabaseValue) -> Int {
            switch value.storage {
            case .null: return 0
            case .int64, .double: return 1
            case .string: return 2
            case .blob: return 3
            }
        }
        if rank(a) != rank(b) { return rank(a) < rank(b) ? -1 : 1 }
        switch (a.storage, b.storage) {
        case let (.int64(x), .int64(y)): return x == y ? 0 : (x < y ? -1 : 1)
        case let (.string(x), .string(y)):
            return x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : (x.utf8.elementsEqual(y.utf8) ? 0 : 1)
        default: return 0
        }
    }

    // MARK: - As a user pages

    func testViewFilteredThenPagedDownShowsOnlyKeptRows() throws {
        // A view of 1,000 rows, `f name = 'keep'`, PgDn PgDn: rows named
        // "drop" came in with the second window.
        let driver = try ViewerDriver(path: path, table: "v", width: 60, height: 20)
        try driver.send(.key(.character("f")))
        try driver.type("name = 'keep'")
        try driver.send(.key(.enter))
        XCTAssertEqual(driver.state.table?.viewed.source.filter, "name = 'keep'")
        for press in 1...4 {
            try driver.send(.key(.pageDown))
            let window = try XCTUnwrap(driver.state.table?.window)
            XCTAssertFalse(window.rows.isEmpty)
            XCTAssertEqual(
                window.rows.filter { $0[1] != "keep".databaseValue }.count, 0,
                "PgDn \(press): rows that the filter drops")
        }
        XCTAssertFalse(driver.lines.contains { $0.contains("drop") }, driver.lines.joined(separator: "\n"))
    }
}
