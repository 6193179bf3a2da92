import ArgumentParser
import CNcurses
import Foundation
import LiveTableCore

/// What every command does before the app takes over the screen: checks
/// that can fail with a one-line error, in an order that leaves the
/// terminal and the database file untouched when they do.
struct Launch {
    /// Whether cells are drawn in colour.
    var useColor: Bool

    /// Sets the locale and checks the terminal. Throws an exit status of 2,
    /// after a one-line error on stderr, when the app can not run here.
    static func prepare(environment: [String: String], noColor: Bool) throws -> Launch {
        setlocale(LC_ALL, "")
        // Wide characters need a UTF-8 locale; a bare "C" locale (no LANG)
        // would turn every accented name into escapes.
        if String(cString: lt_codeset()) != "UTF-8" {
            setlocale(LC_CTYPE, "C.UTF-8")
        }
        do {
            try TerminalRequirements.check(environment: environment)
        } catch {
            throw Self.fail(error.description, status: 2)
        }
        let noColorVariable = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        return Launch(useColor: !noColor && !noColorVariable)
    }

    /// `$XDG_DATA_HOME/livetable/players.sqlite`, or
    /// `~/.local/share/livetable/players.sqlite`, creating the directories.
    static func defaultDatabasePath(environment: [String: String]) throws -> String {
        let dataHome: String
        // The XDG spec says to ignore a relative XDG_DATA_HOME.
        if let xdgDataHome = environment["XDG_DATA_HOME"], xdgDataHome.hasPrefix("/") {
            dataHome = xdgDataHome
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            dataHome = (home as NSString).appendingPathComponent(".local/share")
        }
        let directory = (dataHome as NSString).appendingPathComponent("livetable")
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw fail("cannot create the directory \"\(directory.escapingControlCharacters)\": \(error.oneLineDescription)", status: 1)
        }
        return (directory as NSString).appendingPathComponent("players.sqlite")
    }

    /// Opens the database file, and runs `prepare`, or throws an exit
    /// status of 1 after a one-line error that names the file and the
    /// cause; files that a failed open created are removed.
    static func openDatabase(
        path: String, seed: UInt64?,
        prepare: ((AppDatabase) throws -> Void)? = nil) throws -> AppDatabase
    {
        do {
            return try AppDatabase.open(path: path, seed: seed, prepare: prepare)
        } catch let error as AppDatabaseOpenError {
            throw fail(error.description, status: 1)
        } catch {
            throw fail("cannot open \"\(path.escapingControlCharacters)\": \(error.oneLineDescription)", status: 1)
        }
    }

    /// Takes over the terminal and runs the app until it exits.
    func start(database: AppDatabase, demo: DemoPlayer?) -> Never {
        MainActor.assumeIsolated {
            let terminal: Terminal
            do {
                terminal = try Terminal(useColor: useColor)
            } catch {
                Self.printError("\(error)")
                Foundation.exit(2)
            }
            Runtime.run(terminal: terminal, database: database, demo: demo)
        }
    }

    // MARK: - Errors

    /// Prints `livetable: error: message` on stderr and returns the exit
    /// code to throw.
    static func fail(_ message: String, status: Int32) -> ExitCode {
        printError(message)
        return ExitCode(status)
    }

    static func printError(_ message: String) {
        FileHandle.standardError.write(Data("livetable: error: \(message)\n".utf8))
    }
}
