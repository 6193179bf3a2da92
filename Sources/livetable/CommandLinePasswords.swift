import Foundation
import PostgresClient

/// The passwords that a PostgreSQL connection string on the command line
/// holds (`postgres://viewer:secret@db/tracks`, `"password=secret …"`),
/// kept out of `ps` and out of every error the command prints.
///
/// Any user of the machine may read another process's command line
/// (`ps`, `/proc/PID/cmdline`). As `mysql --password` and PostgreSQL's own
/// server processes do, the command overwrites its arguments in place once
/// it has copied them: after the first milliseconds, `ps` shows
/// `postgres://viewer:***@db/tracks`. The window before that is why the
/// docs recommend `PGPASSWORD` or `~/.pgpass` instead.
///
/// For example:
///
/// ```swift
/// let arguments = CommandLinePasswords.hide()   // the arguments as given
/// CommandLinePasswords.scrub("Unexpected argument '\(arguments[3])'")
/// // "Unexpected argument 'postgres://viewer:***@db/tracks'"
/// ```
enum CommandLinePasswords {
    /// The arguments that held a password, and their redacted forms.
    // nonisolated(unsafe): written once by `hide()`, first thing in `main`,
    // before any other thread starts; only read afterwards.
    nonisolated(unsafe) private static var redactions: [(argument: String, redacted: String)] = []

    /// Copies the command line (`CommandLine.arguments`, which the parser
    /// reads), then overwrites each connection string in the process's own
    /// argument memory with its redacted form. Call once, first thing in
    /// `main`, before any other thread starts.
    ///
    /// - returns: The arguments as given.
    @discardableResult
    static func hide() -> [String] {
        // The first read of `CommandLine.arguments` copies argv into Swift
        // strings: from then on the parser never reads the C memory again.
        let arguments = CommandLine.arguments
        for (index, argument) in arguments.enumerated().dropFirst()
        where ViewerDataSourceKind(argument) == .postgres {
            let redacted = PostgresConnectionString.redacted(argument)
            guard redacted != argument else { continue }
            redactions.append((argument, redacted))
            overwrite(argumentAt: index, with: redacted)
        }
        return arguments
    }

    /// `text` with every argument that held a password replaced by its
    /// redacted form: for the parser's messages, which quote arguments.
    static func scrub(_ text: String) -> String {
        redactions.reduce(text) { text, redaction in
            text.replacingOccurrences(of: redaction.argument, with: redaction.redacted)
        }
    }

    /// Writes `text` over argument `index` in place, cut to the argument's
    /// length and padded with NULs: the kernel reports the argument area
    /// as it is now (`/proc/PID/cmdline`), and the area can not grow.
    private static func overwrite(argumentAt index: Int, with text: String) {
        guard index < Int(CommandLine.argc), let argument = CommandLine.unsafeArgv[index] else { return }
        let length = strlen(argument)
        let replacement = Array(text.utf8.prefix(length))
        for offset in 0..<length {
            argument[offset] = offset < replacement.count ? CChar(bitPattern: replacement[offset]) : 0
        }
    }
}
