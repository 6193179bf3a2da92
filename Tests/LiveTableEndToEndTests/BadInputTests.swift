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

    /// Runs livetable with `arguments`, its standard input and output not
    /// terminals, and checks that it says one line on standard error and
    /// nothing on standard output.
    private func runOneLineError(
        _ arguments: [String], environment: [String: String] = [:],
        file: StaticString = #filePath, line: UInt = #line) throws -> (status: Int32, message: String)
    {
        let result = try Shell.run(Self.binaryPath, arguments, environment: [
            "TERM": "xterm-256color", "XDG_DATA_HOME": dataHome.path, "PATH": "/usr/bin:/bin",
        ].merging(environment) { $1 })
        XCTAssertEqual(result.standardOutput, "", file: file, line: line)
        XCTAssertTrue(result.standardError.hasPrefix("livetable: error: "), result.standardError, file: file, line: line)
        XCTAssertEqual(
            result.standardError.filter { $0 == "\n" }.count, 1,
            "one line: \(result.standardError)", file: file, line: line)
        return (result.status, result.standardError)
    }

    func testUnknownOptionIsOneLineAndStatus64() throws {
        let (status, message) = try runOneLineError(["--bogus"])
        XCTAssertEqual(status, 64)
        XCTAssertEqual(message, "livetable: error: Unknown option '--bogus' (see 'livetable --help')\n")
    }

    func testInvalidSubcommandValueIsOneLineAndStatus64() throws {
        let (status, message) = try runOneLineError(["demo", "--speed", "0"])
        XCTAssertEqual(status, 64)
        XCTAssertEqual(message, "livetable: error: --speed must be a positive number. (see 'livetable --help')\n")
        XCTAssertEqual(try runOneLineError(["bench", "--rows", "0"]).status, 64)
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
private final class SQLiteLock {
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
