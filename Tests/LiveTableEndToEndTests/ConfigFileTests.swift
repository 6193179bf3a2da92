import LiveTableCore
@testable import livetable
import XCTest

/// The config file's settings, and its errors: each one line that names
/// the line and the key, after the file's path.
final class ConfigFileTests: XCTestCase {
    private func error(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> String? {
        do {
            _ = try Config.parse(text)
            XCTFail("no error for \(text)", file: file, line: line)
            return nil
        } catch {
            return error.description
        }
    }

    func testAnEmptyFileIsTheDefaults() throws {
        XCTAssertEqual(try Config.parse(""), Config())
        XCTAssertEqual(try Config.parse("# nothing\n"), Config())
    }

    func testEachKeyIsRead() throws {
        let config = try Config.parse("""
            theme = "light"
            mouse = false
            poll = 0.5
            statement_timeout = 10

            [colors]
            selection = "bright-red"
            null = 245
            """)
        var theme = Theme.light
        theme.set(.selection, to: .palette(9))
        theme.set(.null, to: .palette(245))
        XCTAssertEqual(config, Config(theme: theme, mouse: false, poll: 0.5, statementTimeout: 10))
    }

    func testColorsApplyOnTheThemeWhateverTheOrder() throws {
        let config = try Config.parse("colors.header = \"red\"\ntheme = \"mono\"\n")
        var theme = Theme.mono
        theme.set(.header, to: .palette(1))
        XCTAssertEqual(config.theme, theme)
        XCTAssertFalse(config.theme.usesColor)
    }

    func testEachErrorNamesTheLineAndTheKey() {
        XCTAssertEqual(error("mouse = true\ntheme = \"blue\"\n"),
                       "2: theme: unknown theme \"blue\" (dark, light or mono)")
        XCTAssertEqual(error("theme = 3"), "1: theme: must be a string")
        XCTAssertEqual(error("\n\nmouse = \"no\""), "3: mouse: must be true or false")
        XCTAssertEqual(error("poll = 0"), "1: poll: must be a number of seconds from 0.02 to 60")
        XCTAssertEqual(error("statement_timeout = \"5\""),
                       "1: statement_timeout: must be a number of seconds from 0.001 to 3600")
        XCTAssertEqual(error("theme = \"dark\"\nfont = \"x\""),
                       "2: font: unknown key (theme, mouse, poll, statement_timeout, colors)")
        XCTAssertEqual(error("colors = 1"), "1: colors: must be a table of colours")
        XCTAssertEqual(error("[colors]\ntitle = \"red\"\nborder = \"blue\""),
                       "3: colors.border: unknown role (title, header, selection, changed, new_row, null, status)")
        XCTAssertEqual(error("[colors]\n\nnull = 300"),
                       "3: colors.null: must be a colour name (red, bright-blue, grey, default…) or a number from 0 to 255")
        XCTAssertEqual(error("colors = { status = \"pink\" }"),
                       "1: colors.status: must be a colour name (red, bright-blue, grey, default…) or a number from 0 to 255")
    }

    func testATextThatIsNotTOMLSaysItsLine() throws {
        let description = try XCTUnwrap(error("theme = \"dark\"\nmouse = \n"))
        XCTAssertTrue(description.hasPrefix("2: "), description)
        XCTAssertFalse(description.contains("\n"), description)
    }

    func testThePathFollowsXDGConfigHome() {
        XCTAssertEqual(Config.path(environment: ["XDG_CONFIG_HOME": "/x/config", "HOME": "/h"]),
                       "/x/config/livetable/config.toml")
        XCTAssertEqual(Config.path(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"]),
                       "/h/.config/livetable/config.toml")
    }
}
