import Foundation
import XCTest

/// libpq is loaded only when a PostgreSQL source opens (CLibPQ's dlopen):
/// the binary does not link it, a Hall of Fame process never maps it, a
/// `livetable view postgres://…` process does, and a missing libpq is one
/// line on standard error, not a crash. The processes are the real binary,
/// their memory maps read in /proc.
final class PostgresLibraryLoadingTests: LiveTableTestCase {
    /// The shared libraries `pid` has mapped, by path.
    private func mappedLibraries(of pid: pid_t) throws -> Set<String> {
        // Through cat: Foundation reads a /proc file, whose size is 0,
        // only as far as its first page.
        let result = try Shell.run("/bin/cat", ["/proc/\(pid)/maps"])
        XCTAssertEqual(result.status, 0, result.standardError)
        return Set(result.standardOutput.split(separator: "\n").compactMap { line in
            line.split(separator: " ", omittingEmptySubsequences: true).last
                .map(String.init).flatMap { $0.contains(".so") ? $0 : nil }
        })
    }

    private func isLibPQ(_ path: String) -> Bool {
        URL(fileURLWithPath: path).lastPathComponent.hasPrefix("libpq.so")
    }

    // MARK: - Not loaded

    func testHelpLoadsNoLibPQ() throws {
        // glibc's loader lists each library it loads (LD_DEBUG=files), on
        // standard error: what the binary links, before main runs.
        let result = try Shell.run(
            Self.binaryPath, ["--help"], environment: ["LD_DEBUG": "files", "PATH": "/usr/bin:/bin"])
        XCTAssertEqual(result.status, 0, result.standardError)
        let loads = result.standardError.split(separator: "\n").filter { $0.contains("file=") }
        XCTAssertTrue(loads.contains { $0.contains("libsqlite3") }, "the loader's list is read:\n\(result.standardError)")
        XCTAssertEqual(loads.filter { $0.contains("libpq") }, [])
    }

    func testHallOfFameProcessHasNoLibPQMapped() throws {
        let (session, _) = try startApp()
        let pid = try session.childProcessID(named: "livetable")
        let libraries = try mappedLibraries(of: pid)
        XCTAssertTrue(libraries.contains { $0.contains("libsqlite3") }, "the maps are read: \(libraries)")
        XCTAssertEqual(libraries.filter(isLibPQ), [])
        try session.send("q")
        try waitForExit(session, status: 0)
    }

    func testSQLiteViewerWorksWithoutLibPQ() throws {
        let file = try makeItemFile("items.sqlite", rows: 3)
        let result = try Shell.run(
            Self.binaryPath, ["view", file.path, "item", "--format", "csv"],
            environment: ["LIVETABLE_LIBPQ": "/nonexistent/libpq.so.5", "PATH": "/usr/bin:/bin"])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertEqual(result.standardError, "")
        XCTAssertTrue(result.standardOutput.contains("item 003"), result.standardOutput)
    }

    // MARK: - Loaded

    func testPostgresViewerProcessHasLibPQMapped() throws {
        let database = try makeTracks()
        let session = try launch(["view", try viewerURL(database), "tracks"])
        try session.waitForScreen(containing: "row 1 of 50 · live", timeout: 10)
        let pid = try session.childProcessID(named: "livetable")
        let libraries = try mappedLibraries(of: pid)
        XCTAssertEqual(libraries.filter(isLibPQ).count, 1, "\(libraries)")
        try session.send("q")
        try waitForExit(session, status: 0)
    }

    // MARK: - Missing

    func testMissingLibPQIsOneLineError() throws {
        let database = try classDatabase()
        let missing = ["LIVETABLE_LIBPQ": "/nonexistent/libpq.so.5"]
        let expected = "livetable: error: PostgreSQL support needs libpq (libpq5): "
            + "/nonexistent/libpq.so.5: cannot open shared object file: No such file or directory\n"
        let server = try postgres
        for connection in [
            try viewerURL(database),
            "host=127.0.0.1 port=\(server.port) dbname=\(database) user=viewer password=\(server.viewer.password)",
        ] {
            for arguments in [["view", connection, "tracks"], ["view", connection, "tracks", "--format", "csv"]] {
                let (status, message) = try runOneLineError(arguments, environment: missing)
                XCTAssertEqual(status, 1)
                XCTAssertEqual(message, expected)
            }
        }

        // On a terminal: the error, and the shell's prompt right after it,
        // on a screen the app never took.
        let session = try launch(["view", try viewerURL(database), "tracks"], width: 200, environment: missing)
        let screen = try waitForExit(session, status: 1)
        XCTAssertTrue(screen.contains("PostgreSQL support needs libpq (libpq5): "), screen)
        XCTAssertFalse(screen.contains("Backtrace"), screen)
        try assertNoPassword(in: screen, "the terminal")
    }
}
