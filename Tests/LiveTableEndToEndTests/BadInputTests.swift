import Foundation
import XCTest

/// Terminals and database files that livetable refuses: a one-line error,
/// a non-zero exit status, the terminal and the file left as they were.
final class BadInputTests: LiveTableTestCase {
    // MARK: - Terminals (exit status 2)

    func testPipedOutputAndInputExitWithStatus2AndOneLine() throws {
        let result = try Shell.run(Self.binaryPath, [], environment: [
            "TERM": "xterm-256color", "XDG_DATA_HOME": dataHome.path, "PATH": "/usr/bin:/bin",
        ])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.standardOutput, "")
        XCTAssertEqual(result.standardError, "livetable: error: standard input is not a terminal\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dataHome.path), "nothing is created")
    }

    func testOutputToAFileExitsWithStatus2() throws {
        let output = directory.appendingPathComponent("output.txt")
        let errors = directory.appendingPathComponent("errors.txt")
        let session = try launch(redirections: "> \(Shell.quote(output.path)) 2> \(Shell.quote(errors.path))")
        try waitForExit(session, status: 2)
        XCTAssertEqual(try contents(output), Data(), "nothing written to the screen")
        XCTAssertEqual(
            try String(contentsOf: errors, encoding: .utf8),
            "livetable: error: standard output is not a terminal\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dataHome.path), "nothing is created")
    }

    func testInputFromAFileExitsWithStatus2() throws {
        let session = try launch(redirections: "< /dev/null")
        let screen = try waitForExit(session, status: 2)
        XCTAssertTrue(screen.contains("livetable: error: standard input is not a terminal\nEXITED 2"), screen)
    }

    func testDumbTerminalExitsWithStatus2() throws {
        let session = try launch(environment: ["TERM": "dumb"])
        let screen = try waitForExit(session, status: 2)
        XCTAssertTrue(screen.contains("livetable: error: TERM=dumb: this terminal cannot move the cursor\nEXITED 2"), screen)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dataHome.path), "nothing is created")
    }

    func testUnsetTermExitsWithStatus2() throws {
        let session = try launch(before: "unset TERM; ")
        let screen = try waitForExit(session, status: 2)
        XCTAssertTrue(screen.contains("livetable: error: the TERM environment variable is not set\nEXITED 2"), screen)
    }

    func testUnknownTermExitsWithStatus2() throws {
        let session = try launch(environment: ["TERM": "no-such-terminal"])
        let screen = try waitForExit(session, status: 2)
        XCTAssertTrue(screen.contains("livetable: error: unknown terminal type TERM=no-such-terminal\nEXITED 2"), screen)
    }

    // MARK: - Command lines (exit status 64)

    func testNegativeOrInvalidSeedSaysWhatIsWrong() throws {
        for arguments in [["--seed", "-1"], ["--seed", "abc"], ["demo", "--seed", "-1"], ["--seed", "18446744073709551616"]] {
            let (status, message) = try runOneLineError(arguments)
            XCTAssertEqual(status, 64, "\(arguments)")
            XCTAssertEqual(
                message,
                "livetable: error: The value '\(arguments.last!)' is invalid for '--seed <n>': the seed must be a whole number from 0 to 18446744073709551615 (see '\(arguments[0] == "demo" ? "livetable demo --help" : "livetable --help")')\n",
                "\(arguments)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: dataHome.path), "nothing is created")
        }
    }

    func testEmptyDatabasePathSaysSo() throws {
        let (status, message) = try runOneLineError(["--database", ""])
        XCTAssertEqual(status, 64)
        XCTAssertEqual(
            message,
            "livetable: error: --database needs the path of a file, not an empty string (see 'livetable --help')\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dataHome.path), "nothing is created")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [])
    }

    func testUnknownOptionIsOneLineAndStatus64() throws {
        let (status, message) = try runOneLineError(["--bogus"])
        XCTAssertEqual(status, 64)
        XCTAssertEqual(message, "livetable: error: Unknown option '--bogus' (see 'livetable --help')\n")
    }

    func testInvalidSubcommandValueIsOneLineAndStatus64() throws {
        let (status, message) = try runOneLineError(["demo", "--speed", "0"])
        XCTAssertEqual(status, 64)
        XCTAssertEqual(message, "livetable: error: --speed must be a positive number. (see 'livetable demo --help')\n")
        XCTAssertEqual(try runOneLineError(["bench", "--rows", "0"]).status, 64)
        let viewerRows = try runOneLineError(["bench", "--viewer-rows", "0"])
        XCTAssertEqual(viewerRows.status, 64)
        XCTAssertEqual(viewerRows.message, "livetable: error: --viewer-rows takes positive numbers of rows. (see 'livetable bench --help')\n")
        XCTAssertEqual(try runOneLineError(["bench", "--only", "everything"]).status, 64)
        let postgresRows = try runOneLineError(["bench", "--postgres-rows", "0"])
        XCTAssertEqual(postgresRows.status, 64)
        XCTAssertEqual(
            postgresRows.message,
            "livetable: error: --postgres-rows takes a positive number of rows. (see 'livetable bench --help')\n")
        let view = try runOneLineError(["view", "app.sqlite", "--desc"])
        XCTAssertEqual(view.status, 64)
        XCTAssertEqual(view.message, "livetable: error: --desc needs --sort COLUMN. (see 'livetable view --help')\n")
    }

    // MARK: - Errors while running (exit status 1)

    func testBenchErrorWhileRunningIsOneLineAndStatus1() throws {
        // Its databases can not be created: the temporary directory is a
        // file.
        let file = directory.appendingPathComponent("not-a-directory")
        try Data().write(to: file)
        let (status, message) = try runOneLineError(
            ["bench", "--rows", "10", "--samples", "5"], environment: ["TMPDIR": file.path])
        XCTAssertEqual(status, 1, message)
        XCTAssertFalse(message.contains("Usage"), message)
    }

    func testBenchMeasurementErrorIsOneLineAndStatus1() throws {
        let notes = directory.appendingPathComponent("notes.txt")
        try Data("not a database\n".utf8).write(to: notes)
        let output = directory.appendingPathComponent("figures.json")
        let (status, message) = try runOneLineError([
            "bench", "--measure", "pipeline", "--measure-database", notes.path, "--output", output.path,
        ])
        XCTAssertEqual(status, 1, message)
        XCTAssertEqual(message, "livetable: error: cannot open \"\(notes.path)\": not a SQLite database\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.path))
    }

    // MARK: - Database files (exit status 1)

    /// Runs livetable on `database` in tmux, expecting it to exit with
    /// status 1, and returns what it printed on stderr.
    private func openError(_ database: URL) throws -> String {
        let errors = directory.appendingPathComponent("errors.txt")
        let session = try launch(
            ["--database", database.path],
            redirections: "2> \(Shell.quote(errors.path))")
        let screen = try waitForExit(session, status: 1)
        XCTAssertEqual(screen.trimmingCharacters(in: .whitespacesAndNewlines), "EXITED 1\nTTY SANE", "the screen is left alone")
        return try String(contentsOf: errors, encoding: .utf8)
    }

    func testMissingDirectoryIsAnError() throws {
        let missing = directory.appendingPathComponent("missing")
        let database = missing.appendingPathComponent("players.sqlite")
        XCTAssertEqual(
            try openError(database),
            "livetable: error: cannot open \"\(database.path)\": the directory \"\(missing.path)\" does not exist\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing.path))
    }

    func testNotADatabaseIsLeftUnchanged() throws {
        let file = directory.appendingPathComponent("notes.txt")
        let bytes = Data("These are my notes, not a database.\n".utf8)
        try bytes.write(to: file)
        XCTAssertEqual(
            try openError(file),
            "livetable: error: cannot open \"\(file.path)\": not a SQLite database\n")
        XCTAssertEqual(try contents(file), bytes)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["errors.txt", "notes.txt"])
    }


    /// Schema objects of another app, views included, are refused before
    /// anything is written: no WAL switch, no migration table, no -wal or
    /// -shm file left behind.
    func testFilesOfOtherAppsAreLeftUnchanged() throws {
        let schemas = [
            "CREATE VIEW player AS SELECT 1 AS id, 'Ann' AS name, 3 AS score",
            "CREATE VIEW report AS SELECT 42 AS answer",
        ]
        for (index, schema) in schemas.enumerated() {
            let file = directory.appendingPathComponent("other-\(index).sqlite")
            _ = try sqlite(file, schema)
            let checksum = try Shell.sha256(file)
            XCTAssertEqual(
                try openError(file),
                "livetable: error: cannot open \"\(file.path)\": a SQLite database, but not a livetable one (it holds other tables, views, indexes or triggers)\n",
                schema)
            XCTAssertEqual(try Shell.sha256(file), checksum, schema)
            XCTAssertEqual(try sqlite(file, "PRAGMA journal_mode"), "delete", schema)
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            XCTAssertFalse(files.contains { $0.hasSuffix("-wal") || $0.hasSuffix("-shm") }, "\(files)")
        }
    }

    /// A file of another app with a hot journal (its writer died in the
    /// middle of a big transaction) is refused as it is: neither the file
    /// nor its journal changes, and the next writer rolls it back.
    func testForeignFileWithAHotJournalIsNotRolledBack() throws {
        let file = directory.appendingPathComponent("notes.sqlite")
        _ = try sqlite(file, "CREATE TABLE note(body TEXT); INSERT INTO note VALUES ('kept')")
        try Shell.python(#"""
            import os, sqlite3, sys
            c = sqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute("PRAGMA cache_size = 10")
            c.execute("BEGIN")
            c.execute("INSERT INTO note SELECT hex(randomblob(1000)) FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500) SELECT i FROM n)")
            os._exit(0)
            """#, [file.path])
        let journal = directory.appendingPathComponent("notes.sqlite-journal")
        let checksums = (try Shell.sha256(file), try Shell.sha256(journal))
        XCTAssertEqual(
            try openError(file),
            "livetable: error: cannot open \"\(file.path)\": a writer stopped in the middle of a transaction "
                + "(its -journal is left); livetable does not roll back another program's file: open it with that program first\n")
        XCTAssertTrue(try (Shell.sha256(file), Shell.sha256(journal)) == checksums, "the file or its journal changed")
        XCTAssertEqual(try sqlite(file, "SELECT group_concat(body) FROM note"), "kept")
    }

    /// A livetable database whose player table another program replaced
    /// is refused in one line, instead of showing "Observation failed".
    func testReplacedPlayerTableIsRefusedAtOpen() throws {
        let replacements = [
            ("DROP TABLE player; CREATE VIEW player AS SELECT 1 AS id, 'Ann' AS name, 3 AS score", "player is not a table"),
            ("DROP TABLE player; CREATE TABLE player(id INTEGER PRIMARY KEY, label TEXT)", "player has no name column"),
        ]
        for (sql, reason) in replacements {
            let database = try makeDatabase()
            _ = try sqlite(database, sql)
            let checksum = try Shell.sha256(database)
            XCTAssertEqual(
                try openError(database),
                "livetable: error: cannot open \"\(database.path)\": a livetable database changed by another program (\(reason))\n")
            XCTAssertEqual(try Shell.sha256(database), checksum)
            try FileManager.default.removeItem(at: database)
        }
    }

    /// On a full disk, a new database and an existing one: "the disk is
    /// full", in one line, and no file left behind (no empty database, no
    /// -wal or -shm). The disk is a 64 KiB tmpfs, filled, mounted in a user
    /// and mount namespace of the test's own (`unshare -rm`), so that no
    /// root is needed where user namespaces are allowed.
    func testFullDiskSaysSoAndLeavesNothingBehind() throws {
        let existing = try makeDatabase()
        let disk = directory.appendingPathComponent("disk")
        try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
        let target = disk.appendingPathComponent("players.sqlite").path
        for copiesExisting in [false, true] {
            let inside = """
                mount -t tmpfs -o size=64k tmpfs \(Shell.quote(disk.path)) || { echo "MOUNT FAILED"; exit; }
                \(copiesExisting ? "cp \(Shell.quote(existing.path)) \(Shell.quote(target))" : "true")
                dd if=/dev/zero of=\(Shell.quote(disk.appendingPathComponent("filler").path)) bs=1k count=1000 2>/dev/null
                echo "BEFORE $(sha256sum \(Shell.quote(target)) 2>/dev/null | cut -c1-64)"
                \(script(["--database", target]))
                echo "AFTER $(sha256sum \(Shell.quote(target)) 2>/dev/null | cut -c1-64)"
                echo "FILES $(ls -A \(Shell.quote(disk.path)) | tr '\\n' ' ')"
                """
            let session = try TmuxSession(command: "unshare -rm sh -c \(Shell.quote(inside))", width: 200, height: 30)
            defer { session.kill() }
            let screen = try session.waitForScreen(containing: "FILES ")
            XCTAssertFalse(screen.contains("MOUNT FAILED"), "unshare -rm and tmpfs are needed: \(screen)")
            XCTAssertTrue(
                screen.contains("livetable: error: cannot open \"\(target)\": the disk is full\nEXITED 1\nTTY SANE"),
                screen)
            let lines = screen.components(separatedBy: "\n")
            let files = lines.first { $0.hasPrefix("FILES ") }?.trimmingCharacters(in: .whitespaces)
            XCTAssertEqual(files, copiesExisting ? "FILES filler players.sqlite" : "FILES filler", screen)
            let before = lines.first { $0.hasPrefix("BEFORE ") }?.dropFirst(7)
            let after = lines.first { $0.hasPrefix("AFTER ") }?.dropFirst(6)
            XCTAssertEqual(before, after, "the existing file is unchanged")
        }
    }

    func testReadOnlyFileIsLeftUnchanged() throws {
        let database = try makeDatabase()
        let bytes = try contents(database)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: database.path)
        XCTAssertEqual(
            try openError(database),
            "livetable: error: cannot open \"\(database.path)\": the file is read-only\n")
        XCTAssertEqual(try contents(database), bytes)
    }

    func testLockedFileIsLeftUnchanged() throws {
        let database = try makeDatabase()
        let bytes = try contents(database)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        let lock = try SQLiteLock(database)
        defer { lock.release() }
        // The lock itself writes nothing to the database file.
        XCTAssertEqual(try contents(database), bytes)
        let lockFiles = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        XCTAssertEqual(
            try openError(database),
            "livetable: error: cannot open \"\(database.path)\": the database is locked by another process\n")
        XCTAssertEqual(try contents(database), bytes)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(),
            (lockFiles + ["errors.txt"]).sorted(), "no file created but the error output, before: \(files)")
    }
}

/// A `sqlite3` process that holds an exclusive transaction on a database
/// until released.
final class SQLiteLock {
    private let process = Process()
    private let input = Pipe()

    init(_ database: URL) throws {
        guard let sqlite3 = Shell.which("sqlite3") else {
            throw HarnessError("sqlite3 is not installed: the end-to-end tests need it (apt-get install sqlite3)")
        }
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: sqlite3)
        process.arguments = [database.path]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data("BEGIN EXCLUSIVE;\nSELECT 'locked';\n".utf8))
        // Wait until the lock is held.
        var received = ""
        while !received.contains("locked") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty {
                throw HarnessError("sqlite3 ended before locking: \(received)")
            }
            received += String(decoding: data, as: UTF8.self)
        }
    }

    func release() {
        input.fileHandleForWriting.write(Data("ROLLBACK;\n.quit\n".utf8))
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
