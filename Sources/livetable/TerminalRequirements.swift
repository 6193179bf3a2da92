import CNcurses
import Foundation

/// Why the app can not run on this terminal. Reported before the screen is
/// touched, with exit status 2.
struct TerminalError: Error, CustomStringConvertible {
    var description: String
}

/// The checks that `initscr` would otherwise fail on, sometimes by exiting
/// the process itself with the screen half set up.
enum TerminalRequirements {
    /// Throws unless standard input and output are terminals, and `TERM`
    /// names a terminal that terminfo knows and that can address the cursor.
    static func check(environment: [String: String]) throws(TerminalError) {
        guard isatty(STDIN_FILENO) == 1 else {
            throw TerminalError(description: "standard input is not a terminal")
        }
        guard isatty(STDOUT_FILENO) == 1 else {
            throw TerminalError(description: "standard output is not a terminal")
        }
        guard let term = environment["TERM"], !term.isEmpty else {
            throw TerminalError(description: "the TERM environment variable is not set")
        }
        guard term != "dumb" else {
            throw TerminalError(description: "TERM=dumb: this terminal cannot move the cursor")
        }
        var status: Int32 = 0
        // With a status pointer, setupterm reports errors instead of
        // printing them and exiting.
        guard setupterm(term, STDOUT_FILENO, &status) == OK, status == 1 else {
            if status == -1 {
                throw TerminalError(description: "no terminfo database found for TERM=\(term.escapingControlCharacters)")
            }
            throw TerminalError(description: "unknown terminal type TERM=\(term.escapingControlCharacters)")
        }
        defer {
            // newterm loads its own copy.
            if let terminal = set_curterm(nil) {
                del_curterm(terminal)
            }
        }
        guard lt_tigetstr("cup") != nil else {
            throw TerminalError(description: "TERM=\(term.escapingControlCharacters): this terminal cannot move the cursor")
        }
    }
}
