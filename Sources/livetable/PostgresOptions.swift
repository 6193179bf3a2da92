import ArgumentParser
import Foundation

/// The options of `livetable view` that only a PostgreSQL database takes:
/// `--listen CHANNEL` and `--statement-timeout SECONDS`.
struct PostgresOptions: ParsableArguments {
    /// The statement timeouts accepted, in seconds: a millisecond to an
    /// hour.
    static let statementTimeoutRange: ClosedRange<TimeInterval> = 0.001...3600

    @Option(
        name: .customLong("listen"),
        help: ArgumentHelp(
            "PostgreSQL: also LISTEN on this channel, and read again at each NOTIFY.",
            discussion: """
                For writers that NOTIFY: the screen is read again as soon as a notification \
                comes, without waiting for the next poll. The channel is a name as SQL reads it: \
                folded to lower case unless written in double quotes.
                """,
            valueName: "channel"))
    var listen: String?

    // Unconditional: `--statement-timeout -1` says what is wrong with -1.
    @Option(
        name: .customLong("statement-timeout"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "PostgreSQL: stop a read of the screen after this many seconds (default 5).",
            valueName: "seconds"),
        transform: PostgresOptions.parseStatementTimeout)
    var statementTimeout: TimeInterval?

    /// The options given, by their names on the command line.
    var given: [String] {
        (listen == nil ? [] : ["--listen"]) + (statementTimeout == nil ? [] : ["--statement-timeout"])
    }

    /// A number of seconds in `statementTimeoutRange`.
    private static func parseStatementTimeout(_ text: String) throws -> TimeInterval {
        guard let seconds = Double(decimal: text), statementTimeoutRange.contains(seconds)
        else {
            throw ValidationError("the statement timeout must be a number of seconds from 0.001 to 3600")
        }
        return seconds
    }
}
