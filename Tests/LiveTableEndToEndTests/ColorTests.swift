import Foundation
import XCTest

/// Colours, and the monochrome fallback of NO_COLOR and --no-color: no
/// colour at all, but the title bar and the selection still stand out in
/// bold and reverse.
final class ColorTests: LiveTableTestCase {
    /// Foreground and background colours, 8, 16 or 256 of them.
    private func colorCodes(_ codes: Set<String>) -> Set<String> {
        codes.filter { code in
            guard let value = Int(code) else { return false }
            return (30...38).contains(value) || (40...48).contains(value)
                || (90...97).contains(value) || (100...107).contains(value)
        }
    }

    func testColorsByDefault() throws {
        let (session, _) = try startApp()
        let codes = try session.attributeCodes()
        XCTAssertFalse(colorCodes(codes).isEmpty, "\(codes)")
        XCTAssertTrue(codes.isSuperset(of: ["1", "7"]), "\(codes)")
    }

    func testNoColorEnvironmentDrawsInMonochrome() throws {
        let (session, _) = try startApp(environment: ["NO_COLOR": "1"])
        let codes = try session.attributeCodes()
        XCTAssertEqual(colorCodes(codes), [], "\(codes)")
        XCTAssertTrue(codes.isSuperset(of: ["1", "7"]), "\(codes)")
    }

    func testNullDiffersFromTheTextNullInMonochrome() throws {
        let database = directory.appendingPathComponent("nulls.sqlite")
        _ = try sqlite(database, "CREATE TABLE t(id INTEGER PRIMARY KEY, note TEXT); INSERT INTO t VALUES (1, 'x'), (2, NULL), (3, 'NULL');")
        let session = try launch(["view", database.path, "t"], environment: ["NO_COLOR": "1"])
        try session.waitForScreen(containing: "row 1 of 3")
        let lines = try session.styledLines().filter { $0.text.contains("NULL") }
        XCTAssertEqual(lines.count, 2, lines.map(\.text).joined(separator: "\n"))
        XCTAssertEqual(colorCodes(lines.first?.codes(of: "NULL") ?? []), [])
        XCTAssertNotEqual(lines.first?.codes(of: "NULL"), lines.last?.codes(of: "NULL"))
    }

    func testNoColorOptionDrawsInMonochrome() throws {
        let database = directory.appendingPathComponent("players.sqlite")
        let session = try launch(["--database", database.path, "--no-color"])
        try waitForScreenMatchingDatabase(session, database)
        let codes = try session.attributeCodes()
        XCTAssertEqual(colorCodes(codes), [], "\(codes)")
        XCTAssertTrue(codes.isSuperset(of: ["1", "7"]), "\(codes)")
    }

    /// `view --no-color`, before or after the file: the parser gives the
    /// flag to `livetable` itself, which the viewer reads too.
    func testNoColorOptionOfTheViewerDrawsInMonochrome() throws {
        let database = directory.appendingPathComponent("mono.sqlite")
        _ = try sqlite(database, "CREATE TABLE t(id INTEGER PRIMARY KEY, note TEXT); INSERT INTO t VALUES (1, 'x');")
        for arguments in [["view", "--no-color", database.path, "t"], ["view", database.path, "t", "--no-color"]] {
            let session = try launch(arguments)
            try session.waitForScreen(containing: "row 1 of 1")
            let codes = try session.attributeCodes()
            XCTAssertEqual(colorCodes(codes), [], "\(arguments): \(codes)")
            XCTAssertTrue(codes.isSuperset(of: ["1", "7"]), "\(arguments): \(codes)")
            try session.send("q")
        }
    }
}
