import Foundation
import XCTest

/// `livetable view` on PostgreSQL from the command line: the forms of a
/// connection (URL, key/value string, libpq's PGPASSWORD), `--format csv`
/// against `psql --csv`, and the starts that fail: one line on standard
/// error, a non-zero exit, the terminal never taken, no password anywhere.
final class PostgresCommandLineTests: LiveTableTestCase {
    // MARK: - Export

    /// `psql --csv` on `sql`, as the viewer, its password from PGPASSWORD.
    private func psqlCSV(_ sql: String, _ database: String) throws -> String {
        let psql = try XCTUnwrap(Shell.which("psql"), "psql is not installed")
        let server = try postgres
        let result = try Shell.run(
            psql, ["-X", "-w", "--csv", "-d", try viewerURL(database, withPassword: false), "-c", sql],
            environment: ["PGPASSWORD": server.viewer.password, "PATH": "/usr/bin:/bin"])
        XCTAssertEqual(result.status, 0, result.standardError)
        return result.standardOutput
    }

    func testCSVExportMatchesPsqlAndEveryFormOfTheConnection() throws {
        let database = try makeTracks()
        // Values to quote: a comma, quotes, a line break; an empty text
        // beside NULLs.
        try psqlAsWriter("""
            UPDATE tracks SET title = E'a, "quoted"\\nline' WHERE id = 7;
            UPDATE tracks SET artist = '' WHERE id = 9;
            """, database)
        // psql writes empty text as it writes NULL, an empty field; the
        // export writes it `""` (RFC 4180), as PostgreSQL's COPY does.
        let expected = try psqlCSV("SELECT * FROM tracks ORDER BY id", database)
            .replacingOccurrences(of: "9,track 009,,90\n", with: "9,track 009,\"\",90\n")
        XCTAssertTrue(expected.contains("\"a, \"\"quoted\"\"\nline\""), expected)
        XCTAssertTrue(expected.contains("\n9,track 009,\"\",90\n"), expected)

        let server = try postgres
        let keyValue = "host=127.0.0.1 port=\(server.port) dbname=\(database) user=viewer"
        for (connection, environment) in [
            (try viewerURL(database), [:]),
            (try viewerURL(database, withPassword: false), ["PGPASSWORD": server.viewer.password]),
            (keyValue, ["PGPASSWORD": server.viewer.password]),
        ] {
            let result = try Shell.run(
                Self.binaryPath, ["view", connection, "tracks", "--format", "csv"],
                environment: ["PATH": "/usr/bin:/bin"].merging(environment) { $1 })
            XCTAssertEqual(result.status, 0, result.standardError)
            XCTAssertEqual(result.standardError, "")
            // RFC 4180's CRLF line ends, where psql writes LF.
            XCTAssertEqual(result.standardOutput.replacingOccurrences(of: "\r\n", with: "\n"), expected)
        }
    }

    /// `--format csv` is PostgreSQL's `COPY … TO STDOUT WITH (FORMAT csv,
    /// HEADER)` byte for byte (sha256sum), its line ends CRLF as the SQLite
    /// export's; with `--filter`, `--sort`, `--desc` and `--columns` too,
    /// and for a `--query` (issue 25, item 11).
    func testCSVExportIsCopysOutputByteForByte() throws {
        let database = try classDatabase()
        try psqlAsWriter("""
            DROP TABLE IF EXISTS kinds;
            CREATE TABLE kinds(id integer PRIMARY KEY, t text, e text, n numeric, f double precision, b boolean,
                               at timestamptz, bytes bytea, a integer[], j jsonb);
            INSERT INTO kinds SELECT i,
                'v ' || i || CASE WHEN i % 7 = 0 THEN E'\\n"x", y' ELSE '' END,
                CASE i % 5 WHEN 0 THEN NULL WHEN 1 THEN '' ELSE 'é' END,
                i * 0.1, i / 3.0, i % 2 = 0, timestamptz '2024-02-29 10:00:00+00' + i * interval '1 minute',
                CASE WHEN i % 3 = 0 THEN NULL ELSE decode(lpad(to_hex(i), 8, '0'), 'hex') END,
                ARRAY[i, NULL], jsonb_build_object('k', i, 's', 'a,b')
            FROM generate_series(1, 20000) i;
            """, database)
        // The class's other tests list its tables.
        addTeardownBlock { [self] in _ = try? psqlAsWriter("DROP TABLE kinds;", database) }
        let server = try postgres
        let cases: [(arguments: [String], select: String)] = [
            (["kinds"], "SELECT * FROM kinds ORDER BY id"),
            (["kinds", "--filter", "id % 3 = 0", "--sort", "n", "--desc", "--columns", "t,id,bytes"],
             "SELECT t, id, bytes FROM kinds WHERE id % 3 = 0 ORDER BY n DESC"),
            (["--query", "SELECT id, e, j FROM kinds WHERE id < 500 ORDER BY id DESC"],
             "SELECT id, e, j FROM kinds WHERE id < 500 ORDER BY id DESC"),
        ]
        for (index, (arguments, select)) in cases.enumerated() {
            let exported = directory.appendingPathComponent("exported-\(index).csv")
            let copied = directory.appendingPathComponent("copied-\(index).csv")
            let result = try Shell.run(
                "/bin/sh", ["-c", "\"$0\" \"$@\" | sed 's/\\r$//' > \(Shell.quote(exported.path))", Self.binaryPath,
                            "view", try viewerURL(database, withPassword: false)] + arguments + ["--format", "csv"],
                environment: ["PGPASSWORD": server.viewer.password, "PATH": "/usr/bin:/bin"])
            XCTAssertEqual(result.status, 0, result.standardError)
            let psql = try XCTUnwrap(Shell.which("psql"), "psql is not installed")
            let copy = try Shell.run(
                "/bin/sh", ["-c", "\"$0\" \"$@\" > \(Shell.quote(copied.path))", psql, "-X", "-w", "-d",
                            try viewerURL(database, withPassword: false), "-c",
                            "COPY (\(select)) TO STDOUT WITH (FORMAT csv, HEADER)"],
                environment: ["PGPASSWORD": server.viewer.password, "PATH": "/usr/bin:/bin"])
            XCTAssertEqual(copy.status, 0, copy.standardError)
            XCTAssertGreaterThan(try Data(contentsOf: copied).count, 1000, "\(arguments)")
            XCTAssertEqual(try Shell.sha256(exported), try Shell.sha256(copied), "\(arguments)")
        }
    }

    func testKeyValueStringIsViewedLiveItsPasswordHiddenFromPs() throws {
        let database = try makeTracks()
        let server = try postgres
        let session = try launch([
            "view", "host=127.0.0.1 port=\(server.port) dbname=\(database) user=viewer password=\(server.viewer.password)",
            "tracks",
        ])
        let screen = try session.waitForScreen(containing: "row 1 of 50 · live", timeout: 10)
        XCTAssertTrue(ViewerScreen.line(0, of: screen).contains("\(try titleName(database)) — tracks"), screen)
        let pid = try session.childProcessID(named: "livetable")
        let commandLine = try String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)
        XCTAssertTrue(commandLine.contains("user=viewer password=***"), "the string is redacted in place")
        try assertNoPassword(in: commandLine, "the command line in ps")
        try writerSession(database).run("UPDATE tracks SET plays = 77777 WHERE id = 3;")
        try session.waitForScreen(containing: "77777")
        try session.send("q")
        try waitForExit(session, status: 0)
    }

    /// The command line as `ps` shows it: its NULs as spaces, the trailing
    /// ones dropped.
    private func commandLineAsPsShowsIt(_ pid: pid_t) throws -> String {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))
        let text = String(decoding: bytes.reversed().drop { $0 == 0 }.reversed(), as: UTF8.self)
        return text.replacingOccurrences(of: "\0", with: " ")
    }

    /// `ps` shows `***` for a password of any length: no gap the length
    /// of the password, and with a password shorter than `***`, nothing
    /// after it cut (`/sh` for `/shop`).
    func testPsShowsTheCommandLineWholeWhateverThePasswordsLength() throws {
        let database = try makeTracks()
        let server = try postgres
        for (role, password) in [("short_pw", "x"), ("long_pw", String(repeating: "p", count: 40))] {
            try server.psql("""
                DROP ROLE IF EXISTS \(role);
                CREATE ROLE \(role) LOGIN PASSWORD '\(password)' IN ROLE viewer;
                """)
            let url = "postgres://\(role):\(password)@127.0.0.1:\(server.port)/\(database)"
            let shown = "postgres://\(role):***@127.0.0.1:\(server.port)/\(database)"
            let session = try launch(["view", url, "tracks", "--poll", "1"])
            try session.waitForScreen(containing: "row 1 of 50", timeout: 10)
            let pid = try session.childProcessID(named: "livetable")
            let commandLine = try commandLineAsPsShowsIt(pid)
            XCTAssertTrue(commandLine.hasSuffix(" view \(shown) tracks --poll 1"), "\(role): \(commandLine)")
            XCTAssertFalse(commandLine.contains("  "), "\(role): \(commandLine)")
            XCTAssertFalse(commandLine.contains(":\(password)@"), role)
            let ps = try Shell.run(try XCTUnwrap(Shell.which("ps")), ["-ww", "-o", "args=", "-p", "\(pid)"])
            XCTAssertEqual(ps.standardOutput, commandLine + "\n", role)
            try session.send("q")
            try waitForExit(session, status: 0)
        }
    }

    func testTablesAreListedWhenOutputIsNoTerminal() throws {
        let database = try makeTracks()
        let result = try Shell.run(Self.binaryPath, ["view", try viewerURL(database), "--format", "csv"])
        XCTAssertEqual(result.status, 0, result.standardError)
        // Counted: a table under 100,000 rows is counted at once.
        XCTAssertEqual(result.standardOutput, "tracks\ttable\t50\n")

        // A big table analysed: the planner's estimate. One never analysed
        // (autovacuum off, or its ANALYZE would come) has none: counted up
        // to 100,000 rows.
        addTeardownBlock { [self] in
            _ = try? psqlAsWriter("DROP TABLE IF EXISTS plays, unanalysed;", database)
        }
        try psqlAsWriter("""
            CREATE TABLE plays AS SELECT i AS id FROM generate_series(1, 150000) AS i;
            ANALYZE plays;
            CREATE TABLE unanalysed WITH (autovacuum_enabled = false) AS SELECT i AS id FROM generate_series(1, 120000) AS i;
            """, database)
        let listed = try Shell.run(Self.binaryPath, ["view", try viewerURL(database), "--format", "csv"])
        XCTAssertEqual(listed.status, 0, listed.standardError)
        let lines = listed.standardOutput.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, listed.standardOutput)
        XCTAssertTrue(lines.contains { $0.hasPrefix("plays\ttable\t~1") }, listed.standardOutput)
        XCTAssertTrue(lines.contains("unanalysed\ttable\t100000+"), listed.standardOutput)
        XCTAssertTrue(lines.contains("tracks\ttable\t50"), listed.standardOutput)
    }

    // MARK: - Failed starts

    func testWrongPasswordIsOneLineBeforeTheScreen() throws {
        let database = try classDatabase()
        let url = try viewerURL(database).replacingOccurrences(
            of: ":\(try postgres.viewer.password)@", with: ":Wr0ngSecret@")
        let (status, message) = try runOneLineError(["view", url, "tracks"])
        XCTAssertEqual(status, 1)
        XCTAssertTrue(message.contains("password authentication failed for user \"viewer\""), message)
        XCTAssertFalse(message.contains("Wr0ngSecret"), "the error shows the password given")

        // On a terminal: the error, and the shell's prompt right after it,
        // on a screen the app never took.
        let session = try launch(["view", url, "tracks"], width: 200)
        let screen = try waitForExit(session, status: 1)
        let lines = screen.components(separatedBy: "\n").filter { !$0.isEmpty }
        XCTAssertEqual(lines.count, 3, screen)
        XCTAssertTrue(lines.first?.hasPrefix("livetable: error: ") == true, screen)
        XCTAssertFalse(screen.contains("Wr0ngSecret"))
        try assertNoPassword(in: screen, "the terminal")
    }

    /// A `--query` whose parentheses do not balance, or that leaves a
    /// string or comment open, is refused before the server sees it, in
    /// the words of SQLite's refusal. The server said "syntax error at or
    /// near ")"" of the statement around it; the nested comment was cut
    /// away, and the rest opened.
    func testAQueryThatLeavesAParenthesisStringOrCommentOpenIsOneLine() throws {
        let database = try makeTracks()
        for (query, reason) in [
            ("SELECT title FROM tracks WHERE (plays > 100", "unbalanced parentheses"),
            ("SELECT title FROM tracks WHERE plays > 100)", "unbalanced parentheses"),
            ("SELECT $$)$$ AS t, title FROM tracks WHERE title = 'track 001", "unterminated '"),
            ("SELECT title FROM tracks /* a /* nested */", "unterminated comment"),
        ] {
            let (status, message) = try runOneLineError(["view", try viewerURL(database), "--query", query])
            XCTAssertEqual(status, 1, query)
            XCTAssertEqual(message, "livetable: error: invalid query: \(reason)\n", query)
        }
    }

    func testUnreachableServerUnknownDatabaseAndForbiddenTableAreOneLine() throws {
        let server = try postgres
        // A port nobody listens on.
        let unreachable = "postgres://viewer:\(server.viewer.password)@127.0.0.1:1/tracks?connect_timeout=2"
        var (status, message) = try runOneLineError(["view", unreachable, "tracks"])
        XCTAssertEqual(status, 1)
        XCTAssertTrue(message.lowercased().contains("connection refused"), message)
        try assertNoPassword(in: message, "the error")

        (status, message) = try runOneLineError(["view", try viewerURL("no_such_database"), "tracks"])
        XCTAssertEqual(status, 1)
        XCTAssertTrue(message.contains("database \"no_such_database\" does not exist"), message)
        try assertNoPassword(in: message, "the error")

        // A missing table, once connected; a table the role may not read.
        let database = try makeTracks()
        (status, message) = try runOneLineError(["view", try viewerURL(database), "no_such_table"])
        XCTAssertEqual(status, 1)
        XCTAssertTrue(message.contains("no_such_table"), message)
        try assertNoPassword(in: message, "the error")
        try psqlAsWriter("REVOKE SELECT ON tracks FROM viewer;", database)
        // (The export has written its header line by then.)
        let export = try Shell.run(Self.binaryPath, ["view", try viewerURL(database), "tracks", "--format", "csv"])
        XCTAssertEqual(export.status, 1)
        XCTAssertEqual(export.standardError, "livetable: error: permission denied for table tracks\n")
        // On the screen: the server's message, and the picker still works.
        let session = try launch(["view", try viewerURL(database), "tracks"])
        try session.waitForScreen(containing: "permission denied for table tracks", timeout: 10)
        try session.send("t")
        try session.waitForScreen(containing: "tables and views")
        try session.send("q")
        try waitForExit(session, status: 0)
    }

    func testPostgresOptionsAreRefusedForAFileAndCheckedForAServer() throws {
        let file = try makeItemFile("app.sqlite", rows: 1)
        var (status, message) = try runOneLineError(["view", file.path, "item", "--listen", "changes"])
        XCTAssertEqual(status, 64)
        XCTAssertTrue(message.contains("--listen is for a PostgreSQL database"), message)
        (status, message) = try runOneLineError(["view", file.path, "--statement-timeout", "2"])
        XCTAssertEqual(status, 64)

        // A misplaced argument is quoted by the parser: without its password.
        let url = try viewerURL(try classDatabase())
        (status, message) = try runOneLineError(["view", "tracks", "extra", url])
        XCTAssertEqual(status, 64)
        XCTAssertTrue(message.contains("viewer:***@"), message)
        try assertNoPassword(in: message, "the error")
        for value in ["-1", "0x10", "nan", "1e400"] {
            (status, message) = try runOneLineError(["view", url, "tracks", "--statement-timeout", value])
            XCTAssertEqual(status, 64, value)
            XCTAssertTrue(message.contains("the statement timeout must be a number of seconds"), message)
        }
    }
}
