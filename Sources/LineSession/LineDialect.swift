/// What a `LineSession` needs to know of its tool: how to make it print a
/// marker, which of its lines are its own commands, and which are errors.
///
/// For example:
///
/// ```swift
/// let session = try LineSession(executable: sqlite3, arguments: ["-batch", path], dialect: .sqlite3)
/// ```
package struct LineDialect: Sendable {
    /// The tool's name, as errors say it: "psql".
    package var name: String
    /// The tool's command that prints the rest of its line: `\echo`.
    package var echo: String
    /// How the tool's own commands start (`\` for psql, `.` for sqlite3):
    /// they take no semicolon.
    package var commandPrefix: String
    /// Whether a line that the tool printed is an error.
    package var isError: @Sendable (String) -> Bool

    /// Creates a dialect.
    ///
    /// For example:
    ///
    /// ```swift
    /// let bash = LineDialect(name: "bash", echo: "echo", commandPrefix: "#") { $0.hasPrefix("bash:") }
    /// ```
    package init(name: String, echo: String, commandPrefix: String, isError: @escaping @Sendable (String) -> Bool) {
        self.name = name
        self.echo = echo
        self.commandPrefix = commandPrefix
        self.isError = isError
    }

    /// `psql`, run with `-X -q -A -t`: a row per line, values separated by
    /// `|`. Its errors are the server's (`ERROR:`, `FATAL:`), read from
    /// standard input (`psql:<stdin>:1: ERROR:`), or psql's own
    /// (`psql: error:`, `invalid command`, a lost connection).
    package static let psql = LineDialect(name: "psql", echo: "\\echo", commandPrefix: "\\") { line in
        ["ERROR:", "FATAL:", "PANIC:", "psql:", "invalid command", "connection to server"]
            .contains { line.hasPrefix($0) }
    }

    /// The `sqlite3` command, run with `-batch`: a row per line, values
    /// separated by `|`. Its errors start with `Error`, `Parse error` or
    /// `Runtime error`.
    package static let sqlite3 = LineDialect(name: "sqlite3", echo: ".print", commandPrefix: ".") { line in
        ["Error", "Parse error", "Runtime error"].contains { line.hasPrefix($0) }
    }
}
