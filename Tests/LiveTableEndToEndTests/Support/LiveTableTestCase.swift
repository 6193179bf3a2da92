import Foundation
import XCTest

/// The base of the end-to-end tests: the real `livetable` binary, a
/// temporary directory per test (for XDG_DATA_HOME and database files),
/// and tmux sessions that are killed after each test.
class LiveTableTestCase: XCTestCase {
    /// The test's own directory, removed after the test.
    private(set) var directory: URL!
    private var sessions: [TmuxSession] = []

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("livetable-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        for session in sessions {
            session.kill()
        }
        sessions = []
        if let directory {
            // Read-only test files and directories must be writable to go.
            _ = try? Shell.run("/bin/chmod", ["-R", "u+w", directory.path])
            try? FileManager.default.removeItem(at: directory)
        }
        try super.tearDownWithError()
    }

    // MARK: - The binary

    /// The `livetable` executable that `swift build` / `swift test` built:
    /// next to the test bundle, or in the package's `.build/debug`.
    static let binaryPath: String = {
        var candidates: [String] = []
        if let bundle = CommandLine.arguments.first(where: { $0.hasSuffix(".xctest") }) {
            candidates.append(URL(fileURLWithPath: bundle).deletingLastPathComponent()
                .appendingPathComponent("livetable").path)
        }
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(packageRoot.appendingPathComponent(".build/debug/livetable").path)
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates.last!
    }()

    /// The command line that runs livetable with `arguments`, then prints
    /// its exit status (`EXITED n`) and whether the terminal modes were
    /// restored (`TTY SANE`, or `TTY RAW` when echo or canonical input are
    /// still off).
    func script(_ arguments: [String], before: String = "", redirections: String = "") -> String {
        let command = ([Self.binaryPath] + arguments).map(Shell.quote).joined(separator: " ")
        return """
            \(before)\(command) \(redirections)
            echo "EXITED $?"
            if stty -a | grep -Eq '(^| )-(icanon|echo)( |;|$)'; then echo 'TTY RAW'; else echo 'TTY SANE'; fi
            """
    }

    /// Starts livetable in tmux, with XDG_DATA_HOME in the test's directory.
    func launch(
        _ arguments: [String] = [],
        width: Int = 100, height: Int = 30,
        environment: [String: String] = [:],
        before: String = "", redirections: String = "") throws -> TmuxSession
    {
        XCTAssertTrue(
            FileManager.default.isExecutableFile(atPath: Self.binaryPath),
            "\(Self.binaryPath) is missing: run `swift build` first")
        var environment = environment
        environment["XDG_DATA_HOME"] = environment["XDG_DATA_HOME"] ?? dataHome.path
        environment["HOME"] = environment["HOME"] ?? directory.path
        environment["XDG_STATE_HOME"] = environment["XDG_STATE_HOME"] ?? stateHome.path
        var before = before
        if environment["NO_COLOR"] == nil {
            // swift test sets NO_COLOR for the tests it runs.
            before = "unset NO_COLOR; " + before
        }
        let session = try TmuxSession(
            command: script(arguments, before: before, redirections: redirections),
            width: width, height: height, environment: environment)
        sessions.append(session)
        return session
    }

    /// XDG_STATE_HOME of the launched apps: the query history.
    var stateHome: URL {
        directory.appendingPathComponent("state")
    }

    /// XDG_DATA_HOME of the launched apps.
    var dataHome: URL {
        directory.appendingPathComponent("data")
    }

    /// The database that livetable opens without `--database`.
    var defaultDatabase: URL {
        dataHome.appendingPathComponent("livetable/players.sqlite")
    }

    // MARK: - Exit

    /// Waits for the app to exit, and returns the screen then.
    @discardableResult
    func waitForExit(
        _ session: TmuxSession, status: Int32, timeout: TimeInterval = 5,
        file: StaticString = #filePath, line: UInt = #line) throws -> String
    {
        let screen = try session.waitForScreen(containing: "TTY ", timeout: timeout, file: file, line: line)
        XCTAssertTrue(screen.contains("EXITED \(status)\n"), "expected exit status \(status):\n\(screen)", file: file, line: line)
        XCTAssertTrue(screen.contains("TTY SANE"), "terminal modes not restored:\n\(screen)", file: file, line: line)
        return screen
    }

    // MARK: - Waiting

    /// Polls `condition` until it holds; fails the test after `timeout`.
    func waitUntil(
        _ description: String, timeout: TimeInterval = 5,
        file: StaticString = #filePath, line: UInt = #line,
        _ condition: () throws -> Bool) throws
    {
        let deadline = Date().addingTimeInterval(timeout)
        while try !condition() {
            if Date() > deadline {
                XCTFail("Timed out waiting for \(description)", file: file, line: line)
                throw HarnessError("timed out waiting for \(description)")
            }
            usleep(20_000)
        }
    }

    // MARK: - Database

    /// Runs SQL with the sqlite3 command-line tool and returns its output.
    func sqlite(_ database: URL, _ sql: String) throws -> String {
        guard let sqlite3 = Shell.which("sqlite3") else {
            throw HarnessError("sqlite3 is not installed: the end-to-end tests need it (apt-get install sqlite3)")
        }
        // Another process as users run one: it waits for a lock the app
        // holds for one read (2 s at most), rather than failing at once.
        let result = try Shell.run(sqlite3, ["-cmd", ".timeout 2000", database.path, sql])
        guard result.status == 0 else {
            throw HarnessError("sqlite3 failed: \(result.standardError)")
        }
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Waits until the database holds `count` players.
    func waitForPlayerCount(
        _ database: URL, _ count: Int,
        file: StaticString = #filePath, line: UInt = #line) throws
    {
        try waitUntil("\(count) players in the database", file: file, line: line) {
            try sqlite(database, "SELECT COUNT(*) FROM player") == "\(count)"
        }
    }

    /// The bytes of a file.
    func contents(_ url: URL) throws -> Data {
        try Data(contentsOf: url)
    }
}

extension LiveTableTestCase {
    /// A livetable database in the test's directory, made by livetable
    /// itself (8 random players), then grown by sqlite3 with `morePlayers`
    /// players named "Player 0001", "Player 0002"…
    func makeDatabase(
        _ name: String = "players.sqlite", morePlayers: Int = 0,
        file: StaticString = #filePath, line: UInt = #line) throws -> URL
    {
        let database = directory.appendingPathComponent(name)
        let session = try launch(["--database", database.path, "--seed", "1"])
        try session.waitForScreen(containing: "Hall of Fame", file: file, line: line)
        try session.send("q")
        try waitForExit(session, status: 0, file: file, line: line)
        session.kill()
        XCTAssertEqual(try sqlite(database, "SELECT COUNT(*) FROM player"), "8", file: file, line: line)
        if morePlayers > 0 {
            _ = try sqlite(database, """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(morePlayers))
                INSERT INTO player(name, score) SELECT printf('Player %04d', i), (i * 7919) % 1000 FROM n
                """)
            XCTAssertEqual(try sqlite(database, "SELECT COUNT(*) FROM player"), "\(8 + morePlayers)", file: file, line: line)
        }
        return database
    }

    /// Starts livetable on a new database in the test's directory, and
    /// waits until it shows the 8 players of the first launch.
    func startApp(
        seed: Int = 1, width: Int = 100, height: Int = 30,
        arguments: [String] = [],
        environment: [String: String] = [:],
        file: StaticString = #filePath, line: UInt = #line) throws -> (TmuxSession, URL)
    {
        let database = directory.appendingPathComponent("players.sqlite")
        let session = try launch(
            ["--database", database.path, "--seed", "\(seed)"] + arguments,
            width: width, height: height, environment: environment)
        let screen = try waitForScreenMatchingDatabase(session, database, file: file, line: line)
        XCTAssertEqual(screen.playerCount, "8", file: file, line: line)
        return (session, database)
    }
}
