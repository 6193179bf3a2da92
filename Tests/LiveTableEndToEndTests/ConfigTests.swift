import Foundation
import XCTest

/// The config file, `$XDG_CONFIG_HOME/livetable/config.toml`, in tmux: a
/// light theme changes the colours drawn, NO_COLOR and the command line
/// win over it, a bad file stops the command before the screen is taken,
/// in one line and with status 64.
final class ConfigTests: LiveTableTestCase {
    private var configHome: URL {
        directory.appendingPathComponent("config-home")
    }

    private func writeConfig(_ text: String) throws {
        let folder = configHome.appendingPathComponent("livetable")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try text.write(to: folder.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
    }

    private func makeFile() throws -> URL {
        let file = directory.appendingPathComponent("config.sqlite")
        guard !FileManager.default.fileExists(atPath: file.path) else { return file }
        _ = try sqlite(file, """
            CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT);
            INSERT INTO item VALUES (1, 'first'), (2, NULL);
            """)
        return file
    }

    /// The codes of the title, the header and the selected row's text, as
    /// drawn with the config file and `environment`. (tmux writes each
    /// cell's codes as a change from the cell before: the title, first,
    /// has them all.)
    private func codes(arguments: [String] = [], environment: [String: String] = [:]) throws
        -> (title: Set<String>, header: Set<String>, row: Set<String>)
    {
        let session = try launch(["view", try makeFile().path, "item"] + arguments, height: 10,
                                 environment: ["XDG_CONFIG_HOME": configHome.path].merging(environment) { $1 })
        try session.waitForScreen(containing: "row 1 of 2")
        let lines = try session.styledLines()
        let title = try XCTUnwrap(lines[0].codes(of: "row 1 of 2"))
        let header = try XCTUnwrap(lines[1].codes(of: "name"))
        let row = try XCTUnwrap(lines.codes(of: "first"))
        try session.send("q")
        try waitForExit(session, status: 0)
        return (title, header, row)
    }

    func testALightThemeChangesTheColoursAndAColourPerRoleToo() throws {
        let dark = try codes()
        XCTAssertEqual(dark.title, ["1", "7", "36"])
        XCTAssertTrue(dark.header.contains("36"), "\(dark)")
        XCTAssertTrue(dark.row.contains("33"), "\(dark)")

        try writeConfig("theme = \"light\"\n")
        let light = try codes()
        XCTAssertEqual(light.title, ["1", "7", "34"])
        XCTAssertTrue(light.header.contains("34"), "\(light)")

        try writeConfig("theme = \"light\"\n[colors]\nheader = 208\nselection = \"red\"\n")
        let roles = try codes()
        XCTAssertEqual(roles.title, ["1", "7", "34"])
        XCTAssertTrue(roles.header.contains("38;5;208"), "\(roles)")
        XCTAssertTrue(roles.row.contains("31"), "\(roles)")
    }

    func testNoColorAndTheCommandLineWinOverTheFile() throws {
        try writeConfig("theme = \"light\"\npoll = 0.5\n")
        XCTAssertEqual(try codes(environment: ["NO_COLOR": "1"]).title, ["1", "7"])

        let file = try makeFile()
        let environment = ["XDG_CONFIG_HOME": configHome.path]
        let session = try launch(["view", file.path, "item"], environment: environment)
        try session.waitForScreen(containing: "polled every 0.5 s")
        let option = try launch(["view", file.path, "item", "--poll", "0.25"], environment: environment)
        try option.waitForScreen(containing: "polled every 0.25 s")
    }

    func testTheFilesStatementTimeoutStopsASlowPostgreSQLReadAndTheOptionWins() throws {
        let database = try makeTracks()
        // 50 ms a row: a screenful takes more than a second.
        try psqlAsWriter("""
            CREATE OR REPLACE FUNCTION slowly(i integer) RETURNS integer VOLATILE
                LANGUAGE plpgsql AS 'BEGIN PERFORM pg_sleep(0.05); RETURN i; END';
            CREATE OR REPLACE VIEW slow AS SELECT slowly(id) AS id, title FROM tracks;
            """, database)
        try writeConfig("statement_timeout = 0.3\n")
        let environment = ["XDG_CONFIG_HOME": configHome.path]
        let session = try launch(["view", try viewerURL(database), "slow"], environment: environment)
        try session.waitForScreen(containing: "timed out after 0.3 s", timeout: 10)
        let option = try launch(["view", try viewerURL(database), "slow", "--statement-timeout", "0.4"],
                                environment: environment)
        try option.waitForScreen(containing: "timed out after 0.4 s", timeout: 10)
    }

    func testABadFileStopsBeforeTheScreenInOneLineWithStatus64() throws {
        try writeConfig("mouse = true\n\n[colors]\nnull = \"pink\"\n")
        let path = configHome.appendingPathComponent("livetable/config.toml").path
        let errors = directory.appendingPathComponent("errors.txt")
        let session = try launch(["view", try makeFile().path, "item"], environment: ["XDG_CONFIG_HOME": configHome.path],
                                 redirections: "2> \(Shell.quote(errors.path))")
        let screen = try waitForExit(session, status: 64)
        XCTAssertFalse(screen.contains("row 1 of 2"), screen)
        XCTAssertFalse(try session.reportsMouse())
        XCTAssertEqual(
            try String(contentsOf: errors, encoding: .utf8),
            "livetable: error: \(path):4: colors.null: must be a colour name (red, bright-blue, grey, default…) "
                + "or a number from 0 to 255\n")

        // Not TOML; and the Hall of Fame reads it too. A missing file is no error.
        try writeConfig("theme = \"dark\"\ntheme = \"light\"\n")
        let (status, message) = try runOneLineError([], environment: ["XDG_CONFIG_HOME": configHome.path])
        XCTAssertEqual(status, 64)
        XCTAssertTrue(message.hasPrefix("livetable: error: \(path):2: "), message)
        let (_, missing) = try runOneLineError(["view", "/nonexistent.sqlite"], environment: [
            "XDG_CONFIG_HOME": directory.appendingPathComponent("nowhere").path,
        ])
        XCTAssertFalse(missing.contains("config.toml"), missing)
    }

    func testTheHelpNamesTheFile() throws {
        for arguments in [["--help"], ["view", "--help"]] {
            let result = try Shell.run(Self.binaryPath, arguments, environment: ["PATH": "/usr/bin:/bin"])
            XCTAssertTrue(result.standardOutput.contains("livetable/config.toml"), "\(arguments)")
        }
    }
}
