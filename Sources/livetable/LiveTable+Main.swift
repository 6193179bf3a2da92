import ArgumentParser
import Foundation
import LiveTableCore

/// An error that ends the command: one line on standard error, and the
/// documented exit status.
struct CommandFailure: Error, CustomStringConvertible {
    /// What went wrong, said in one line.
    var description: String
    /// The exit status.
    var status: Int32

    init(_ description: String, status: Int32) {
        self.description = description
        self.status = status
    }
}

/// A command that may run the terminal app, which observes signals with
/// `SignalSources`.
protocol TerminalCommand {
    /// True when the command runs the terminal app (and not, say, an export).
    var usesTerminal: Bool { get }
}

extension LiveTable: TerminalCommand {
    /// The Hall of Fame is a terminal app.
    var usesTerminal: Bool { true }
}

extension Demo: TerminalCommand {
    /// The demo plays in the terminal.
    var usesTerminal: Bool { true }
}

extension ViewCommand: TerminalCommand {
    /// A live view, unless the rows are printed (`--format`, or standard
    /// output is not a terminal).
    var usesTerminal: Bool { format == nil && until == nil && isatty(STDOUT_FILENO) != 0 }
}

extension LiveTable {
    /// The one way out of the command line for every error: it prints one line, `livetable: error: …`,
    /// and exits with its status: a `CommandFailure`'s own (1 for the database, 2 for the terminal), 64
    /// for a command-line error, an `ExitCode`'s code (`bench`'s missed targets), or 1.
    static func main() {
        // Before any other thread starts, so that all of them block the
        // signals that the terminal app observes (see `SignalSources.block`).
        SignalSources.block(SignalSources.observed)
        // Before the parser reads the arguments, and before `ps` is likely
        // to: a password in a connection string is replaced in place.
        CommandLinePasswords.hide()
        var command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            // --help, and ArgumentParser's other clean exits.
            if exitCode(for: error) == .success {
                exit(withError: error)
            }
            // ExitCode thrown by `validate()` stays as it is.
            if let code = error as? ExitCode {
                exit(status: code.rawValue)
            }
            fail(CommandFailure(
                "\(message(for: error)) (see '\(helpCommand(CommandLine.arguments))')",
                status: exitCode(for: error).rawValue))
        }
        if (command as? TerminalCommand)?.usesTerminal != true {
            // No signal source: the signals take their default actions, on
            // the main thread.
            SignalSources.unblock(SignalSources.observed)
        }
        do {
            try command.run()
        } catch let code as ExitCode {
            exit(status: code.rawValue)
        } catch let failure as CommandFailure {
            fail(failure)
        } catch {
            // `livetable help` runs a command that throws the help request.
            if exitCode(for: error) == .success {
                exit(withError: error)
            }
            fail(CommandFailure(error.oneLineDescription, status: 1))
        }
        exit(status: 0)
    }

    /// The help that explains a command-line error: the subcommand's,
    /// when the first argument names one (`livetable view --help`).
    static func helpCommand(_ arguments: [String]) -> String {
        guard let first = arguments.dropFirst().first,
            subcommands.contains(where: { $0._commandName == first })
        else { return "livetable --help" }
        return "livetable \(first) --help"
    }

    private static func fail(_ failure: CommandFailure) -> Never {
        let message = CommandLinePasswords.scrub(failure.oneLineDescription)
        FileHandle.standardError.write(Data("livetable: error: \(message)\n".utf8))
        exit(status: failure.status)
    }

    private static func exit(status: Int32) -> Never {
        Foundation.exit(status)
    }
}
