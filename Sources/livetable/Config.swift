import Foundation
import LiveTableCore
import TOMLKit

/// The settings of the config file, `$XDG_CONFIG_HOME/livetable/config.toml`:
/// the defaults of options the command line may override.
///
/// ```toml
/// theme = "light"        # dark, light or mono
/// mouse = false
/// poll = 0.5             # seconds, as --poll
/// statement_timeout = 10 # seconds, as --statement-timeout
///
/// [colors]               # a name, or a number of the 256-colour palette
/// selection = "blue"
/// null = 245
/// ```
struct Config: Equatable {
    var theme = Theme.dark
    var mouse = true
    var poll: TimeInterval?
    var statementTimeout: TimeInterval?

    /// The file's path: `$XDG_CONFIG_HOME/livetable/config.toml`, or
    /// `~/.config/livetable/config.toml`.
    static func path(environment: [String: String]) -> String {
        let configHome: String
        // The XDG spec says to ignore a relative XDG_CONFIG_HOME.
        if let xdgConfigHome = environment["XDG_CONFIG_HOME"], xdgConfigHome.hasPrefix("/") {
            configHome = xdgConfigHome
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            configHome = (home as NSString).appendingPathComponent(".config")
        }
        return (configHome as NSString).appendingPathComponent("livetable/config.toml")
    }

    /// The settings of the file, or the defaults when there is none.
    /// Throws a `CommandFailure` of status 64, in one line that names the
    /// file, the line and the key, for a file that can not be used.
    static func load(environment: [String: String]) throws(CommandFailure) -> Config {
        let path = path(environment: environment)
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            if !FileManager.default.fileExists(atPath: path) {
                return Config()
            }
            throw CommandFailure("\(path.escapingControlCharacters): cannot read it: \(error.oneLineDescription)", status: 64)
        }
        do {
            return try parse(text)
        } catch {
            throw CommandFailure("\(path.escapingControlCharacters):\(error.description)", status: 64)
        }
    }

    /// The settings of a file's text, or an error that says where.
    static func parse(_ text: String) throws(ConfigError) -> Config {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigError(line: error.source.begin.line, key: nil, problem: error.description)
        } catch {
            throw ConfigError(line: 1, key: nil, problem: "\(error)")
        }
        var config = Config()
        var colors: [(ThemeRole, ThemeColor)] = []
        let reader = ConfigReader(text: text)
        for key in table.keys.sorted() {
            guard let value = table[key] else { continue }
            switch key {
            case "theme":
                let name = try reader.string(value, key: key)
                guard let theme = Theme.named(name) else {
                    throw reader.error(key, "unknown theme \"\(name)\" (dark, light or mono)")
                }
                config.theme = theme
            case "mouse":
                config.mouse = try reader.bool(value, key: key)
            case "poll":
                config.poll = try reader.seconds(value, key: key, in: CommitPolling.intervalRange)
            case "statement_timeout":
                config.statementTimeout = try reader.seconds(value, key: key, in: PostgresOptions.statementTimeoutRange)
            case "colors":
                guard let table = value.table else { throw reader.error(key, "must be a table of colours") }
                colors = try reader.colors(table)
            default:
                throw reader.error(key, "unknown key (theme, mouse, poll, statement_timeout, colors)")
            }
        }
        // On the theme's colours, wherever the theme is named.
        for (role, color) in colors {
            config.theme.set(role, to: color)
        }
        return config
    }
}

/// What is wrong with a config file, and where.
struct ConfigError: Error, Equatable, CustomStringConvertible {
    var line: Int
    /// The key, dotted ("colors.null"); nil for a file that is not TOML.
    var key: String?
    var problem: String

    /// "3: theme: unknown theme …", for after the file's path and a colon.
    var description: String {
        let problem = problem.split(whereSeparator: \.isNewline).joined(separator: " ")
        return "\(line): " + (key.map { "\($0): " } ?? "") + problem.escapingControlCharacters
    }
}

/// Reads the values of a parsed file, and finds the line of a key in its
/// text (TOMLKit keeps no position).
private struct ConfigReader {
    let lines: [Substring]

    init(text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    func error(_ key: String, _ problem: String) -> ConfigError {
        ConfigError(line: line(of: key), key: key, problem: problem)
    }

    func string(_ value: TOMLValueConvertible, key: String) throws(ConfigError) -> String {
        guard let string = value.string else { throw error(key, "must be a string") }
        return string
    }

    func bool(_ value: TOMLValueConvertible, key: String) throws(ConfigError) -> Bool {
        guard let bool = value.bool else { throw error(key, "must be true or false") }
        return bool
    }

    func seconds(_ value: TOMLValueConvertible, key: String, in range: ClosedRange<Double>) throws(ConfigError) -> Double {
        guard let seconds = value.double ?? value.int.map(Double.init), range.contains(seconds) else {
            throw error(key, "must be a number of seconds from \(String(format: "%g", range.lowerBound)) to \(String(format: "%g", range.upperBound))")
        }
        return seconds
    }

    func colors(_ table: TOMLTable) throws(ConfigError) -> [(ThemeRole, ThemeColor)] {
        var colors: [(ThemeRole, ThemeColor)] = []
        let roles = ThemeRole.allCases.map(\.rawValue).joined(separator: ", ")
        for name in table.keys.sorted() {
            let key = "colors." + name
            guard let role = ThemeRole(rawValue: name) else {
                throw error(key, "unknown role (\(roles))")
            }
            let value = table[name]
            let color = value?.string.flatMap(ThemeColor.init(name:)) ?? value?.int.flatMap(ThemeColor.init(number:))
            guard let color else {
                throw error(key, "must be a colour name (red, bright-blue, grey, default…) or a number from 0 to 255")
            }
            colors.append((role, color))
        }
        return colors
    }

    /// The line (from 1) where `key` is set: under its table's header, or
    /// dotted; else its table's line; else 1.
    func line(of key: String) -> Int {
        let path = key.split(separator: ".").map(String.init)
        for length in stride(from: path.count, through: 1, by: -1) {
            if let line = line(ofPath: Array(path.prefix(length))) {
                return line
            }
        }
        return 1
    }

    private func line(ofPath path: [String]) -> Int? {
        var table: [String] = []
        for (number, line) in lines.enumerated() {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("[") {
                let name = text.drop { $0 == "[" }.prefix { $0 != "]" }
                table = Self.keyPath(name)
                if table == path { return number + 1 }
            } else if let equals = text.firstIndex(of: "="), !text.hasPrefix("#") {
                if table + Self.keyPath(text[..<equals]) == path { return number + 1 }
            }
        }
        return nil
    }

    /// `a.b`, `"a".b`, `a . b` as ["a", "b"].
    private static func keyPath(_ text: some StringProtocol) -> [String] {
        text.split(separator: ".").map { part in
            part.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
        }
    }
}
