import Foundation
import XCTest

/// The parts of `livetable view`'s screen that the viewer's suites read,
/// on a capture of the pane (`TmuxSession.screen()`), whatever database
/// the viewer shows: the title's count, the last row of the list, the
/// status line.
enum ViewerScreen {
    /// The line `index` of `screen` (0 is the title), or "" when the
    /// capture has fewer lines.
    static func line(_ index: Int, of screen: String) -> String {
        let lines = screen.components(separatedBy: "\n")
        return lines.indices.contains(index) ? lines[index] : ""
    }

    /// The status line: the last line of a screen `height` lines high.
    static func statusLine(_ screen: String, height: Int = 30) -> String {
        line(height - 1, of: screen)
    }

    /// The last row of the list: the line above the footer, on a screen
    /// `height` lines high.
    static func lastListLine(_ screen: String, height: Int = 30) -> String {
        line(height - 3, of: screen)
    }

    /// The row count in the title ("row 1 of 12 · live", "12 · live"), or
    /// nil when the title shows none.
    static func titleCount(_ screen: String) -> Int? {
        guard let title = screen.components(separatedBy: "\n").first,
              let range = title.range(of: #"[0-9,]+ (rows )?· live"#, options: .regularExpression)
        else { return nil }
        return Int(title[range].prefix { $0 != " " }.replacingOccurrences(of: ",", with: ""))
    }
}

extension LiveTableTestCase {
    /// Waits until the title says that row `row` is followed (`F`), and
    /// the last row of the list (height 30) holds `name`.
    ///
    /// The whole screen is waited for: a capture may come while a screen
    /// is being written, its title new and its rows not yet.
    @discardableResult
    func waitForFollowed(
        _ session: TmuxSession, row: Int, name: String,
        file: StaticString = #filePath, line: UInt = #line) throws -> String
    {
        try session.waitForScreen("row \(row) followed, \(name) at the bottom", file: file, line: line) {
            $0.contains("row \(row) of \(row) · following") && ViewerScreen.lastListLine($0).contains(name)
        }
    }

    /// Runs livetable with `arguments`, its standard input and output not
    /// terminals, and checks that it says one line on standard error and
    /// nothing on standard output.
    ///
    /// - returns: Its exit status and the line, with its newline.
    func runOneLineError(
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
}
