import Foundation
import PostgresClient
import XCTest

/// Statements: parameters bound as text, values as text with NULL apart,
/// columns and command tags, the server's errors, the read-only session.
final class PostgresStatementTests: XCTestCase {
    private var connection: PostgresConnection!

    override func setUpWithError() throws {
        connection = try PostgresConnection(try SharedCluster.get().url)
    }

    func testParametersAreBoundAsText() throws {
        let hostile = "it's'; DROP TABLE x; --"
        let result = try connection.execute("SELECT $1::int + 1, $2, $2 = $3", ["41", hostile, hostile])
        XCTAssertEqual(result.rows, [["42", hostile, "t"]])
    }

    func testNullIsNilAndEmptyStringIsEmpty() throws {
        let result = try connection.execute(
            "SELECT $1::text IS NULL, $2::text = '', $1::text, $2::text, NULL, ''", [nil, ""])
        XCTAssertEqual(result.rows, [["t", "t", nil, "", nil, ""]])
    }

    func testValuesAreTextAsPostgreSQLPrintsThem() throws {
        let result = try connection.execute(
            "SELECT true, 1.50::numeric, ARRAY[1,2], '{\"a\": 1}'::jsonb, '\\x00ff'::bytea, 'é ✓'")
        XCTAssertEqual(result.rows, [["t", "1.50", "{1,2}", "{\"a\": 1}", "\\x00ff", "é ✓"]])
    }

    func testColumnsCommandTagAndAffectedRows() throws {
        _ = try connection.execute("CREATE TEMP TABLE t (id int PRIMARY KEY, name text)")
        let insert = try connection.execute("INSERT INTO t VALUES (1, 'a'), (2, NULL)")
        XCTAssertEqual(insert.commandTag, "INSERT 0 2")
        XCTAssertEqual(insert.affectedRows, 2)
        XCTAssertEqual(insert.columns, [])
        let select = try connection.execute("SELECT id, name FROM t ORDER BY id")
        XCTAssertEqual(select.columns, [
            PostgresColumn(name: "id", typeOID: 23), PostgresColumn(name: "name", typeOID: 25),
        ])
        XCTAssertEqual(select.rows, [["1", "a"], ["2", nil]])
        XCTAssertEqual(select.commandTag, "SELECT 2")
        XCTAssertEqual(try connection.execute("SET TimeZone = 'UTC'").affectedRows, nil)
    }

    func testServerErrorIsOneLineWithItsSQLState() throws {
        XCTAssertThrowsError(try connection.execute("SELEC 1")) { error in
            guard let error = error as? PostgresError else { return XCTFail("not a PostgresError") }
            XCTAssertEqual(error.kind, .query)
            XCTAssertEqual(error.sqlState, "42601")
            XCTAssertEqual(error.message, "syntax error at or near \"SELEC\"")
        }
        XCTAssertThrowsError(try connection.execute("SELECT * FROM missing")) { error in
            XCTAssertEqual((error as? PostgresError)?.sqlState, "42P01")
        }
        // The connection is still usable after an error.
        XCTAssertEqual(try connection.execute("SELECT 1").rows, [["1"]])
    }

    func testParameterWithNULIsRefused() throws {
        XCTAssertThrowsError(try connection.execute("SELECT $1", ["a\u{0}b"])) { error in
            XCTAssertEqual((error as? PostgresError)?.kind, .usage)
        }
    }

    func testCopyIsRefusedAndTheConnectionStaysUsable() throws {
        XCTAssertThrowsError(try connection.execute("COPY (SELECT 1) TO STDOUT")) { error in
            XCTAssertEqual((error as? PostgresError)?.kind, .usage)
        }
        XCTAssertEqual(try connection.execute("SELECT 3").rows, [["3"]])
    }

    func testReadOnlySessionRefusesAWriteWithTheServersMessage() throws {
        let cluster = try SharedCluster.get()
        _ = try connection.execute("CREATE TABLE IF NOT EXISTS readonly_target (id int)")
        let readOnly = try PostgresConnection(cluster.url, settings: [
            "application_name": "livetable",
            "options": "-c default_transaction_read_only=on -c statement_timeout=5000",
        ])
        XCTAssertEqual(readOnly.parameterStatus("default_transaction_read_only"), "on")
        XCTAssertThrowsError(try readOnly.execute("INSERT INTO readonly_target VALUES (1)")) { error in
            guard let error = error as? PostgresError else { return XCTFail("not a PostgresError") }
            XCTAssertEqual(error.kind, .query)
            XCTAssertEqual(error.sqlState, "25006")
            XCTAssertEqual(error.message, "cannot execute INSERT in a read-only transaction")
        }
        XCTAssertEqual(try readOnly.execute("SELECT count(*) FROM readonly_target").rows, [["0"]])
    }
}

extension PostgresStatementTests {
    /// libpq's default notice processor writes on stderr, over the screen.
    func testServerNoticesAreNotWrittenOnStandardError() throws {
        let file = NSTemporaryDirectory() + "LiveTable-stderr-\(UUID().uuidString)"
        let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let savedStandardError = dup(2)
        dup2(descriptor, 2)
        close(descriptor)
        _ = try? connection.execute("DROP TABLE IF EXISTS no_such_table")   // a NOTICE
        _ = try? connection.execute("DO $$ BEGIN RAISE WARNING 'careful'; END $$")
        dup2(savedStandardError, 2)
        close(savedStandardError)
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), "")
    }
}
