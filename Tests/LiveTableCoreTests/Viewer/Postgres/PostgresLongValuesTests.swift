import Foundation
import GRDB
import PostgresServer
import XCTest
@testable import LiveTableCore

/// Huge values (issue 24, item 6): a window reads them cut on the server,
/// so that a refresh never moves them; keys and exports read them whole.
final class PostgresLongValuesTests: XCTestCase {
    private static let name = "longValuesTests"
    private static let sql = """
        CREATE DOMAIN note_text AS text;
        CREATE TABLE big(id int PRIMARY KEY, note text, data bytea, doc jsonb, memo note_text, label varchar(10));
        INSERT INTO big VALUES
            (1, repeat('é', 1000000), decode(repeat('00ff', 500000), 'hex'),
             jsonb_build_object('k', repeat('j', 1000000)), repeat('m', 1000000), 'short'),
            (2, 'b', '\\x01', '{"a": 1}', 'm', 'two'),
            (3, repeat('é', 999999) || 'z', '\\x02', '[]', NULL, NULL);
        """

    private func database() throws -> PostgresDataSource {
        try PostgresTestDatabase.open(Self.name, sql: Self.sql)
    }

    private func length(_ value: DatabaseValue) -> Int {
        if case let .string(text) = value.storage { return text.unicodeScalars.count }
        return -1
    }

    func testAWindowReadsLongValuesCutOnTheServer() throws {
        let database = try database()
        let viewed = try database.open(.table("big"), sortColumn: nil, descending: false, ticket: ReadTicket())
        let window = try database.fetchWindow(
            viewed, RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 10), ticket: ReadTicket())
        let first = try XCTUnwrap(window.window.rows.first)
        let shown = RowDetail.maximumBytes + 1
        XCTAssertEqual(length(first[1]), shown)
        XCTAssertEqual(first[1], String(repeating: "é", count: shown).databaseValue)
        XCTAssertEqual(length(first[2]), 2 + 2 * shown)  // \x and two digits a byte
        XCTAssertEqual(length(first[3]), shown)
        XCTAssertEqual(length(first[4]), shown)
        XCTAssertEqual(first[5], "short".databaseValue)
        XCTAssertEqual(window.window.rows[1], [
            2.databaseValue, "b".databaseValue, "\\x01".databaseValue, "{\"a\": 1}".databaseValue, "m".databaseValue,
            "two".databaseValue,
        ])
    }

    /// Sorted by the long column, each key (read whole) finds its row again:
    /// rows 1 and 3 share their first million characters but one.
    func testKeysOfLongValuesAreReadWhole() throws {
        let database = try database()
        for column in ["note", "data", "doc", "memo"] {
            for descending in [false, true] {
                let viewed = try database.open(.table("big"), sortColumn: column, descending: descending, ticket: ReadTicket())
                try assertEachRowIsFoundFromItsPosition(database, viewed, limit: 10, count: 3, "\(column) \(descending)")
            }
        }
    }

    /// The row view shows the whole value's size (its first 16 KB, then
    /// "… N more bytes"), read whole when it opens.
    func testTheRowViewReadsTheRowWhole() throws {
        let database = try database()
        let viewed = try database.open(.table("big"), sortColumn: nil, descending: false, ticket: ReadTicket())
        var state = ViewerState.initial(databaseName: database.name, opened: viewed, width: 80, height: 24)
        var effects = [ViewerEffect]()
        func send(_ message: ViewerMessage) throws {
            var queue = [message]
            while !queue.isEmpty {
                for effect in viewerUpdate(&state, queue.removeFirst()) {
                    effects.append(effect)
                    switch effect {
                    case let .observe(viewed, request):
                        queue.append(.window(try database.fetchWindow(viewed, request, ticket: ReadTicket())))
                    case let .readWholeRow(viewed, position):
                        queue.append(.wholeRowRead(
                            position, try database.wholeRow(of: viewed, at: position, ticket: ReadTicket())))
                    default:
                        break
                    }
                }
            }
        }
        try send(.resize(width: 80, height: 24))
        XCTAssertEqual(state.table?.window?.rows.first.map { length($0[1]) }, RowDetail.maximumBytes + 1)
        try send(.key(.enter))
        XCTAssertEqual(effects.filter { if case .readWholeRow = $0 { true } else { false } }.count, 1)
        let lines = rowDetailLines(state).map(\.value)
        // é is two bytes: 2,000,000 in all, 16,384 shown.
        XCTAssertTrue(lines.contains("… 1983616 more bytes"), "\(lines.filter { $0.hasPrefix("…") })")
        XCTAssertTrue(lines.contains("… 983616 more bytes"), "\(lines.filter { $0.hasPrefix("…") })")
        // Closed, the whole row is let go.
        try send(.key(.escape))
        XCTAssertNil(state.table?.wholeRow)
    }

    func testAnExportWritesLongValuesWhole() throws {
        let database = try database()
        let viewed = try database.open(.table("big"), sortColumn: nil, descending: false, ticket: ReadTicket())
        var data = Data()
        _ = try database.export(viewed.source, format: .tsv) { data.append(contentsOf: $0) }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.count, 4)
        let fields = lines[1].split(separator: "\t", omittingEmptySubsequences: false)
        XCTAssertEqual(fields[1].unicodeScalars.count, 1_000_000)
        XCTAssertEqual(fields[2], "\\\\x" + String(repeating: "00ff", count: 500_000))  // TSV doubles the backslash
        XCTAssertEqual(fields[4].count, 1_000_000)
    }
}
