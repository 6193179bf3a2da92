import Foundation
import XCTest

/// `livetable view FILE TABLE --format csv|tsv|json`, the real binary on
/// files made by Python: what it prints is read back by Python's csv and
/// json modules and compared with Python's own reading of the file, and
/// the file is left byte for byte as it was.
final class ViewExportTests: LiveTableTestCase {
    private var database: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        database = directory.appendingPathComponent("foreign.sqlite")
        try Shell.python(Self.makeDatabase, [database.path])
    }

    /// 2,500 rows (more than two pages) of awkward values, a WITHOUT ROWID
    /// table and a view with duplicate rows.
    private static let makeDatabase = #"""
        import sqlite3, sys
        c = sqlite3.connect(sys.argv[1])
        c.execute("CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, v, note)")
        names = ["plain", "a,b", 'say "hi"', "two\nlines", "cr\r\nlf", "tab\there", "back\\slash",
                 "", None, "Zoë 中文 😀", "\x1b[2J\x1b[31mred", "NULL", " padded "]
        values = [0, -7, 2.5, 1e300, -0.5, b"\x00\xff\x10", b"", None, "text", 9223372036854775807]
        rows = [(names[i % len(names)], values[i % len(values)], None if i % 3 else "n%d" % i) for i in range(2500)]
        c.executemany("INSERT INTO item(name, v, note) VALUES (?, ?, ?)", rows)
        c.execute("CREATE TABLE pair(a TEXT, b INTEGER, PRIMARY KEY(b, a)) WITHOUT ROWID")
        c.executemany("INSERT INTO pair VALUES (?, ?)", [("x", 2), ("y", 1), ("x", 1)])
        c.execute("CREATE VIEW twice AS SELECT name FROM item WHERE id <= 3 UNION ALL SELECT name FROM item WHERE id <= 3")
        c.commit()
        c.close()
        """#

    /// Compares an export (file argv[2], format argv[3], source argv[4])
    /// with what Python reads from the database (argv[1]).
    private static let compare = #"""
        import base64, csv, io, json, sqlite3, sys
        path, output, fmt, sql = sys.argv[1:5]
        c = sqlite3.connect("file:" + path + "?mode=ro", uri=True)
        cur = c.execute(sql)
        names = [d[0] for d in cur.description]
        expected = cur.fetchall()
        data = open(output, "rb").read().decode("utf-8")
        def fail(message):
            print(message)
            sys.exit(1)
        def same(value, text):
            if value is None: return text in ("", None)
            if isinstance(value, bytes): return text == value.hex()
            if isinstance(value, float): return float(text) == value
            return text == str(value)
        if fmt == "csv":
            rows = list(csv.reader(io.StringIO(data, newline="")))
            if not data.endswith("\r\n") and expected: fail("not CRLF")
            if rows[0] != names: fail("header %r" % rows[0])
            rows = rows[1:]
        elif fmt == "tsv":
            def unescape(field):
                if field == "\\N": return None
                out, i = "", 0
                while i < len(field):
                    if field[i] == "\\":
                        out += {"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}[field[i + 1]]
                        i += 2
                    else:
                        out += field[i]
                        i += 1
                return out
            lines = data.split("\n")
            if lines[-1] != "": fail("no final LF")
            if lines[0].split("\t") != names: fail("header")
            rows = [[unescape(f) for f in line.split("\t")] for line in lines[1:-1]]
        else:
            objects = json.loads(data)
            rows = []
            for o in objects:
                if list(o.keys()) != names: fail("keys %r" % list(o.keys()))
                rows.append(list(o.values()))
        if len(rows) != len(expected): fail("%d rows, expected %d" % (len(rows), len(expected)))
        for i, (row, want) in enumerate(zip(rows, expected)):
            for text, value in zip(row, want):
                if fmt == "json":
                    ok = (base64.b64decode(text) == value) if isinstance(value, bytes) else (text == value and type(text) == type(value))
                elif fmt == "tsv" and value is None:
                    ok = text is None
                elif fmt == "csv" and value == "":
                    ok = text == ""
                else:
                    ok = same(value, text)
                if not ok: fail("row %d: %r for %r" % (i, text, value))
        print("ok %d" % len(rows))
        """#



    private func listing() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    private func view(_ arguments: [String]) throws -> Shell.Result {
        try Shell.run(Self.binaryPath, ["view"] + arguments)
    }

    /// Exports `arguments` in each format and checks each output with Python.
    private func assertExportsMatch(
        _ arguments: [String], sql: String, rowCount: Int,
        file: StaticString = #filePath, line: UInt = #line) throws
    {
        for format in ["csv", "tsv", "json"] {
            let result = try view([database.path] + arguments + ["--format", format])
            XCTAssertEqual(result.status, 0, result.standardError, file: file, line: line)
            XCTAssertEqual(result.standardError, "", file: file, line: line)
            let output = directory.appendingPathComponent("output.\(format)")
            try Data(result.standardOutput.utf8).write(to: output)
            XCTAssertEqual(
                try Shell.python(Self.compare, [database.path, output.path, format, sql]), "ok \(rowCount)\n",
                format, file: file, line: line)
            try FileManager.default.removeItem(at: output)
        }
    }

    // MARK: - Formats

    func testTableExportsMatchWhatPythonReads() throws {
        let sha256 = try Shell.sha256(database)
        let listing = try listing()
        try assertExportsMatch(["item"], sql: "SELECT * FROM item ORDER BY rowid", rowCount: 2500)
        XCTAssertEqual(try Shell.sha256(database), sha256)
        XCTAssertEqual(try self.listing(), listing, "no -journal, -wal or -shm file left")
        XCTAssertEqual(try sqlite(database, "PRAGMA journal_mode"), "delete")
    }

    func testWithoutRowidTableViewAndQueryExports() throws {
        try assertExportsMatch(["pair"], sql: "SELECT * FROM pair ORDER BY b, a", rowCount: 3)
        try assertExportsMatch(["twice"], sql: "SELECT * FROM twice ORDER BY name", rowCount: 6)
        try assertExportsMatch(
            ["--query", "SELECT id, v FROM item WHERE id % 1000 = 0 -- thousands"],
            sql: "SELECT id, v FROM item WHERE id % 1000 = 0 ORDER BY id, v", rowCount: 2)
    }

    func testCSVQuotingAndJSONTypes() throws {
        let csv = try view([database.path, "--query", "SELECT name, v FROM item WHERE id IN (2, 3, 4, 7, 8, 9)", "--format", "csv"])
        XCTAssertEqual(csv.standardOutput, [
            "name,v", "\"a,b\",-7", "\"say \"\"hi\"\"\",2.5", "\"two\nlines\",1e+300",
            // An empty BLOB is quoted, as empty text is: an empty field is NULL.
            "back\\slash,\"\"", "\"\",", ",text", "",
        ].joined(separator: "\r\n"))
        let json = try view([database.path, "--query", "SELECT v FROM item WHERE id IN (1, 3, 6, 8, 10)", "--format", "json"])
        XCTAssertEqual(json.standardOutput, """
            [
            {"v": 0},
            {"v": 2.5},
            {"v": "AP8Q"},
            {"v": null},
            {"v": 9223372036854775807}
            ]

            """)
    }

    func testEmptyResult() throws {
        let json = try view([database.path, "--query", "SELECT * FROM item WHERE 0", "--format", "json"])
        XCTAssertEqual(json.standardOutput, "[]\n")
        let csv = try view([database.path, "--query", "SELECT id, name FROM item WHERE 0", "--format", "csv"])
        XCTAssertEqual(csv.standardOutput, "id,name\r\n")
    }

    // MARK: - Read-only

    func testReadOnlyFileInReadOnlyDirectoryAsAnUnprivilegedUser() throws {
        XCTAssertEqual(chmod(database.path, 0o444), 0)
        XCTAssertEqual(chmod(directory.path, 0o555), 0)
        let sha256 = try Shell.sha256(database)
        let listing = try listing()
        let result = try runUnprivileged([Self.binaryPath, "view", database.path, "pair", "--format", "csv"])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertEqual(result.standardOutput, "a,b\r\nx,1\r\ny,1\r\nx,2\r\n")
        XCTAssertEqual(try Shell.sha256(database), sha256)
        XCTAssertEqual(try self.listing(), listing)
    }

    func testWALFileInReadOnlyDirectorySaysWhy() throws {
        let wal = directory.appendingPathComponent("wal.sqlite")
        try Shell.python("""
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            c.execute("PRAGMA journal_mode = WAL")
            c.execute("CREATE TABLE t(a)")
            c.commit()
            c.close()
            """, [wal.path])
        XCTAssertEqual(chmod(directory.path, 0o555), 0)
        let listing = try listing()
        let result = try runUnprivileged([Self.binaryPath, "view", wal.path, "t", "--format", "csv"])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.standardOutput, "")
        XCTAssertEqual(result.standardError, """
            livetable: error: cannot open "\(wal.path)": a WAL database in a read-only directory \
            can be read only while its -shm file exists (while a writer has it open)

            """)
        XCTAssertEqual(try self.listing(), listing)
    }

    /// Runs a command as an unprivileged user: as root, through `setpriv`
    /// as nobody, since root ignores file permissions.
    private func runUnprivileged(_ command: [String]) throws -> Shell.Result {
        guard getuid() == 0 else {
            return try Shell.run(command[0], Array(command.dropFirst()))
        }
        guard let setpriv = Shell.which("setpriv") else {
            throw HarnessError("setpriv is not installed: the test needs it to drop root (util-linux)")
        }
        return try Shell.run(setpriv, ["--reuid=nobody", "--regid=nogroup", "--clear-groups"] + command)
    }

    // MARK: - Bad input

    func testBadInputIsOneLineAndExitStatus1() throws {
        let cases: [([String], String)] = [
            (["missing.sqlite", "t"], #"cannot open "missing.sqlite": no such file"#),
            ([database.path, "itme"], #"no table or view "itme": the file has "item", "pair", "twice""#),
            ([database.path, "--query", "DELETE FROM item"], "the query is not read-only: livetable view only reads"),
            ([database.path, "--query", "SELECT 1; DELETE FROM item"], "the query holds more than one statement: give one SELECT"),
        ]
        let sha256 = try Shell.sha256(database)
        for (arguments, message) in cases {
            let result = try view(arguments + ["--format", "csv"])
            XCTAssertEqual(result.status, 1, "\(arguments)")
            XCTAssertEqual(result.standardOutput, "")
            XCTAssertEqual(result.standardError, "livetable: error: \(message)\n")
        }
        XCTAssertEqual(try Shell.sha256(database), sha256)
        XCTAssertEqual(try sqlite(database, "SELECT COUNT(*) FROM item"), "2500")
    }

    func testFullDiskSaysSoInOneLine() throws {
        let command = [Self.binaryPath, "view", database.path, "item", "--format", "csv"].map(Shell.quote).joined(separator: " ")
        let result = try Shell.run("/bin/sh", ["-c", "exec \(command) > /dev/full"])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.standardError, "livetable: error: cannot write the output: No space left on device\n")
    }

    func testNotADatabase() throws {
        let text = directory.appendingPathComponent("notes.txt")
        try Data(String(repeating: "not a database\n", count: 20).utf8).write(to: text)
        let result = try view([text.path, "t", "--format", "csv"])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.standardError, "livetable: error: cannot open \"\(text.path)\": not a SQLite database (or encrypted)\n")
    }

    func testWithoutFormatOrTable() throws {
        // Without a table: the tables, with their row counts.
        let tables = try view([database.path])
        XCTAssertEqual(tables.status, 0)
        XCTAssertEqual(tables.standardOutput, "item\ttable\t2500\npair\twithout-rowid\t3\ntwice\tview\t6\n")
        // A view whose read never ends: the other lines come, and its count
        // is "?" once its time is out.
        _ = try Shell.run("/usr/bin/sqlite3", [database.path, """
            CREATE VIEW forever AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
            SELECT x FROM c WHERE x < 0
            """])
        let slow = try Shell.run("/usr/bin/timeout", ["20", Self.binaryPath, "view", database.path])
        XCTAssertEqual(slow.status, 0, slow.standardError)
        XCTAssertEqual(slow.standardOutput, "forever\tview\t?\nitem\ttable\t2500\npair\twithout-rowid\t3\ntwice\tview\t6\n")
        // A table without --format is the live view, which needs a terminal.
        let noFormat = try view([database.path, "item"])
        XCTAssertEqual(noFormat.status, 2)
        XCTAssertEqual(
            noFormat.standardError,
            "livetable: error: standard output is not a terminal: give --format csv, tsv or json to print the rows\n")
    }
}
