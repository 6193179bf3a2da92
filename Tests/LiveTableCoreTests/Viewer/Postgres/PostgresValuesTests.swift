import Foundation
import GRDB
import PostgresServer
import XCTest
@testable import LiveTableCore

/// PostgreSQL's values as the viewer reads, binds back and exports them:
/// each key found again, each value written as PostgreSQL prints it.
final class PostgresValuesTests: XCTestCase {
    private static let name = "valuesTests"
    private static let sql = #"""
        CREATE TABLE kinds(
            n numeric, at timestamp, atz timestamptz, bytes bytea, t text, f float8, r real, b boolean,
            a int[], j jsonb, big bigint);
        INSERT INTO kinds VALUES
            (12.50, '2024-02-29 10:11:12.123456', '2024-02-29 10:11:12+01', '\x00ff10', 'héllo, "wörld"' || E'\n' || '✓', 0.1, 1.1, true, '{1,NULL,3}', '{"k": [1, "x"]}', 9007199254740993),
            (-0.000001, '1999-12-31 23:59:59', '1970-01-01 00:00:00+00', '\x', 'a\b	tab', 1e300, 3.4e38, false, '{}', '"s"', -9223372036854775808),
            ('NaN', 'infinity', '-infinity', NULL, '', 'NaN', 'Infinity', NULL, NULL, 'null', 0),
            (NULL, NULL, NULL, '\x2c22', NULL, -0.0, NULL, NULL, '{{1,2},{3,4}}', NULL, NULL);
        CREATE TABLE keyed(n numeric PRIMARY KEY, note text);
        INSERT INTO keyed VALUES (1.10, 'a'), (1.1000001, 'b'), (-2, 'c');
        CREATE TABLE typed(id int PRIMARY KEY, b boolean, n numeric, f float8, r real, j jsonb, js json, small int2);
        INSERT INTO typed VALUES
            (1, true, 12.50, 1, 1.5, '{"k": [1, "x"], "n": null}', '[1, {"a": "b"}]', 7),
            (2, false, 'NaN', 'Infinity', '-Infinity', '"s"', 'null', -3),
            (3, NULL, -0.000001, '-0', 1e-7, '3.25', '"x"', NULL),
            (4, true, 1e20, 1e300, 'NaN', 'true', '{}', 0);
        """#

    private func database() throws -> PostgresDataSource {
        try PostgresTestDatabase.open(Self.name, sql: Self.sql)
    }

    func testValuesReadAsPostgresPrintsThem() throws {
        let database = try database()
        let viewed = try database.open(.table("kinds"), sortColumn: "big", descending: true, ticket: ReadTicket())
        let window = try database.fetchWindow(
            viewed, RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 10), ticket: ReadTicket())
        let nullRow: [DatabaseValue] = [
            .null, .null, .null, "\\x2c22".databaseValue, .null, "0".databaseValue, .null, .null,
            "{{1,2},{3,4}}".databaseValue, .null, .null,
        ]
        XCTAssertEqual(window.window.rows.first, nullRow)
        var first: [DatabaseValue] = ["12.50".databaseValue, "2024-02-29 10:11:12.123456".databaseValue]
        first += ["2024-02-29 09:11:12+00".databaseValue, "\\x00ff10".databaseValue]
        first += ["héllo, \"wörld\"\n✓".databaseValue, "0.1".databaseValue, "1.1".databaseValue, "t".databaseValue]
        first += ["{1,NULL,3}".databaseValue, "{\"k\": [1, \"x\"]}".databaseValue]
        first.append(Int64(9_007_199_254_740_993).databaseValue)
        XCTAssertEqual(window.window.rows[1], first)
        XCTAssertEqual(window.window.rows[2][5], "NaN".databaseValue)
        XCTAssertEqual(window.window.rows[2][6], "Infinity".databaseValue)
    }

    /// From the position of every row, in a sort on every column: the row
    /// itself first. Its key (numeric digits, timestamps, bytea, unicode
    /// text, floats, arrays, JSON, NULLs) was bound back and found it.
    func testEveryKeyFindsItsRowAgain() throws {
        let database = try database()
        for column in ["n", "at", "atz", "bytes", "t", "f", "r", "b", "a", "j", "big"] {
            for descending in [false, true] {
                let viewed = try database.open(.table("kinds"), sortColumn: column, descending: descending, ticket: ReadTicket())
                try assertEachRowIsFoundFromItsPosition(database, viewed, limit: 10, count: 4, "\(column) \(descending)")
            }
        }
        let keyed = try database.open(.table("keyed"), sortColumn: nil, descending: false, ticket: ReadTicket())
        let keys = [StoredKey(["1.10".databaseValue]), StoredKey(["1.1000001".databaseValue]), StoredKey(["1.2".databaseValue])]
        XCTAssertEqual(try database.missingRows(of: keyed.source, among: keys, ticket: ReadTicket()), [keys[2]])
    }

    func testExportWritesValuesAsPostgresPrintsThem() throws {
        let database = try database()
        let viewed = try database.open(.table("kinds"), sortColumn: nil, descending: false, ticket: ReadTicket())
        func export(_ format: ExportFormat) throws -> String {
            var data = Data()
            let summary = try database.export(viewed.source, format: format) { data.append(contentsOf: $0) }
            XCTAssertEqual(summary.rowCount, 4)
            return String(decoding: data, as: UTF8.self)
        }
        let csv = try export(.csv)
        XCTAssertEqual(csv.components(separatedBy: "\r\n").first, "n,at,atz,bytes,t,f,r,b,a,j,big")
        XCTAssertTrue(csv.contains(
            "12.50,2024-02-29 10:11:12.123456,2024-02-29 09:11:12+00,\\x00ff10,\"héllo, \"\"wörld\"\"\n✓\",0.1,1.1,t,"
                + "\"{1,NULL,3}\",\"{\"\"k\"\": [1, \"\"x\"\"]}\",9007199254740993\r\n"), csv)
        XCTAssertTrue(csv.hasSuffix(",,,\\x2c22,,0,,,\"{{1,2},{3,4}}\",,\r\n"), csv)
        XCTAssertTrue(csv.contains("NaN,infinity,-infinity,,\"\",NaN,Infinity,,,null,0\r\n"), csv)

        let json = try export(.json)
        let objects = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        XCTAssertEqual(objects.count, 4)
        XCTAssertEqual(objects[1]["t"] as? String, "héllo, \"wörld\"\n✓")
        XCTAssertEqual(objects[1]["f"] as? Double, 0.1)
        XCTAssertTrue(json.contains("\"n\": 12.50, "), json)
        XCTAssertTrue(json.contains("\"b\": true, "), json)
        XCTAssertEqual(objects[1]["bytes"] as? String, "\\x00ff10")
        XCTAssertTrue(json.contains("\"j\": {\"k\": [1, \"x\"]}, "), json)
        XCTAssertTrue(json.contains("\"big\": 9007199254740993"), json)
        // In the all-columns order: numeric's NaN after every number, NULL last.
        XCTAssertTrue(json.contains("{\"n\": -0.000001, "), json)
        XCTAssertTrue(objects[2]["bytes"] is NSNull)
        XCTAssertEqual(objects[2]["f"] as? String, "NaN")

        let tsv = try export(.tsv)
        XCTAssertTrue(tsv.contains("a\\\\b\\ttab"), tsv)
        XCTAssertTrue(tsv.contains("\t\\N\t"), tsv)
    }

    /// JSON's own types (issue 24, item 13): booleans, numbers for the
    /// integer, numeric and floating-point columns (NaN and the infinities,
    /// which JSON has not, as strings), json and jsonb embedded.
    func testJSONExportWritesJSONTypes() throws {
        let database = try database()
        let viewed = try database.open(.table("typed"), sortColumn: nil, descending: false, ticket: ReadTicket())
        var data = Data()
        _ = try database.export(viewed.source, format: .json) { data.append(contentsOf: $0) }
        let json = String(decoding: data, as: UTF8.self)
        XCTAssertEqual(json, """
            [
            {"id": 1, "b": true, "n": 12.50, "f": 1, "r": 1.5, "j": {"k": [1, "x"], "n": null}, "js": [1, {"a": "b"}], "small": 7},
            {"id": 2, "b": false, "n": "NaN", "f": "Infinity", "r": "-Infinity", "j": "s", "js": null, "small": -3},
            {"id": 3, "b": null, "n": -0.000001, "f": -0, "r": 1e-07, "j": 3.25, "js": "x", "small": null},
            {"id": 4, "b": true, "n": 100000000000000000000, "f": 1e+300, "r": "NaN", "j": true, "js": {}, "small": 0}
            ]

            """)
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: data))
    }

    /// A float shows as the server prints it, as psql and the CSV do.
    func testFloatsShowAsTheServerPrintsThem() throws {
        let database = try database()
        let viewed = try database.open(.table("typed"), sortColumn: nil, descending: false, ticket: ReadTicket())
        let window = try database.fetchWindow(
            viewed, RowWindowRequest(ordering: viewed.ordering, anchor: .first, before: 0, after: 10), ticket: ReadTicket())
        let server = try PostgresServer.shared
        let printed = try server.psql("SELECT f, r FROM typed ORDER BY id;", database: Self.name, as: server.viewer)
            .split(separator: "\n").map { $0.split(separator: "|").map(String.init) }
        XCTAssertEqual(printed.count, 4)
        XCTAssertEqual(window.window.rows.map { [CellText($0[3]).text, CellText($0[4]).text] }, printed)
    }

    func testAnExportOfAQueryKeepsItsOrder() throws {
        let database = try database()
        let viewed = try database.open(.query("SELECT note FROM keyed ORDER BY note DESC"), sortColumn: nil, descending: false, ticket: ReadTicket())
        var data = Data()
        _ = try database.export(viewed.source, format: .csv) { data.append(contentsOf: $0) }
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "note\r\nc\r\nb\r\na\r\n")
    }
}
