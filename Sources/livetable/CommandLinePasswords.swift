import Foundation
import PostgresClient

/// The passwords that a PostgreSQL connection string on the command line
/// holds (`postgres://viewer:secret@db/tracks`, `"password=secret …"`),
/// kept out of `ps` and out of every error the command prints.
/// Any user may read another process's command line: as `mysql --password` does, the command
/// overwrites its arguments in place once copied. The moment before is why the docs recommend
/// `PGPASSWORD` or `~/.pgpass`.
enum CommandLinePasswords {
    /// The arguments that held a password, and their redacted forms.
    // nonisolated(unsafe): written once by `hide()`, first thing in `main`,
    // before any other thread starts; only read afterwards.
    nonisolated(unsafe) private static var redactions: [(argument: String, redacted: String)] = []

    /// Copies the command line (`CommandLine.arguments`, which the parser
    /// reads), then writes it again in the process's own argument memory
    /// with each connection string in its redacted form. Call once, first
    /// thing in `main`, before any other thread starts.
    @discardableResult
    static func hide() -> [String] {
        // The first read of `CommandLine.arguments` copies argv into Swift
        // strings: from then on the parser never reads the C memory again.
        let arguments = CommandLine.arguments
        var shown = arguments
        for (index, argument) in arguments.enumerated().dropFirst()
        where ViewerDataSourceKind(argument) == .postgres {
            let redacted = PostgresConnectionString.redacted(argument)
            guard redacted != argument else { continue }
            redactions.append((argument, redacted))
            shown[index] = redacted
        }
        if !redactions.isEmpty { rewriteCommandLine(shown) }
        return arguments
    }

    /// `text` with every argument that held a password replaced by its
    /// redacted form: for the parser's messages, which quote arguments.
    static func scrub(_ text: String) -> String {
        redactions.reduce(text) { text, redaction in
            text.replacingOccurrences(of: redaction.argument, with: redaction.redacted)
        }
    }

    /// Writes `arguments` over the process's argument area, which the
    /// kernel reports as it is now (`/proc/PID/cmdline`, hence `ps`). The
    /// arguments are written one after the other, the rest of the area
    /// cleared: `ps` drops trailing NULs, so neither a gap nor the line's
    /// length tells a password's length. `***` is longer than a password
    /// of one or two characters. The area then takes in the environment
    /// strings after it (moved to the heap first), and holds the line as
    /// one string, as `setproctitle` does.
    private static func rewriteCommandLine(_ arguments: [String]) {
        let argv = CommandLine.unsafeArgv
        let count = Int(CommandLine.argc)
        guard count > 0, let start = argv[0] else { return }
        // The arguments' strings lie end to end on Linux; anything else is
        // left as it is.
        var end = start
        for index in 0..<count {
            guard let argument = argv[index], argument == end else { return }
            end = argument + strlen(argument) + 1
        }
        var text = Array(arguments.joined(separator: "\0").utf8)
        if text.count + 1 > end - start {
            end = takingEnvironment(after: end)
            text = Array(arguments.joined(separator: " ").utf8)
        }
        let area = end - start
        // Cut only when the environment was too small to take the line.
        let length = min(text.count, area - 1)
        for offset in 0..<area {
            start[offset] = offset < length ? CChar(bitPattern: text[offset]) : 0
        }
    }

    /// Moves the environment strings that follow `end` (as the kernel lays
    /// them out) to the heap, and returns the end of the area they held.
    private static func takingEnvironment(after end: UnsafeMutablePointer<CChar>) -> UnsafeMutablePointer<CChar> {
        var variables: [String] = []
        var areaEnd = end
        var index = 0
        while let variable = environ[index] {
            if variable == areaEnd { areaEnd = variable + strlen(variable) + 1 }
            variables.append(String(cString: variable))
            index += 1
        }
        guard areaEnd != end else { return end }
        // Made again by putenv from copies on the heap, in the same order.
        clearenv()
        for variable in variables where variable.contains("=") {
            putenv(strdup(variable))
        }
        return areaEnd
    }
}
