import ArgumentParser
import CNcurses
import Foundation
import LiveTableCore

/// What every command does before the app takes over the screen: checks
/// that can fail with a one-line error, in an order that leaves the
/// terminal and the database file untouched when they do.
struct Launch {
    /// The colours of the cells: the config file's, mono for `NO_COLOR`.
    var theme: Theme
    /// Whether the terminal reports the mouse.
    var mouse = false

    /// Sets the locale and checks the terminal. Throws a `CommandFailure`
    /// of status 2 when the app can not run here.
    static func prepare(
        environment: [String: String], noColor: Bool, config: Config = Config(), mouse: Bool = false) throws -> Launch
    {
        setlocale(LC_ALL, "")
        // Wide characters need a UTF-8 locale; a bare "C" locale (no LANG)
        // would turn every accented name into escapes.
        if String(cString: lt_codeset()) != "UTF-8" {
            setlocale(LC_CTYPE, "C.UTF-8")
        }
        do {
            try TerminalRequirements.check(environment: environment)
        } catch {
            throw CommandFailure(error.description, status: 2)
        }
        let noColorVariable = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        // NO_COLOR wins over any theme.
        return Launch(theme: noColor || noColorVariable ? .mono : config.theme, mouse: mouse && config.mouse)
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
            throw CommandFailure("cannot create the directory \"\(directory.escapingControlCharacters)\": \(error.oneLineDescription)", status: 1)
        }
        return (directory as NSString).appendingPathComponent("players.sqlite")
    }

    /// Opens the database file, and runs `prepare`, or throws a
    /// `CommandFailure` of status 1 that names the file and the cause;
    /// files that a failed open created are removed.
    static func openDatabase(
        path: String, seed: UInt64?,
        prepare: ((AppDatabase) throws -> Void)? = nil) throws -> AppDatabase
    {
        do {
            return try AppDatabase.open(path: path, seed: seed, prepare: prepare)
        } catch let error as AppDatabaseOpenError {
            throw CommandFailure(error.description, status: 1)
        } catch {
            throw CommandFailure("cannot open \"\(path.escapingControlCharacters)\": \(error.oneLineDescription)", status: 1)
        }
    }

    /// Called first, before the options and the config are read: a
    /// PostgreSQL server's client library is loaded on another thread
    /// meanwhile.
    static func prepareViewerDataSource(_ argument: String) {
        if ViewerDataSourceKind(argument) == .postgres {
            PostgresDataSource.prepare()
        }
    }

    /// Opens what `livetable view` reads, picking the data source from the
    /// argument (`ViewerDataSourceKind`): a SQLite file, read-only; or a
    /// PostgreSQL database, whose connection is made here, so that a wrong
    /// password or an unreachable server is said before the screen is
    /// taken. This is the one place where a database is chosen.
    static func openViewerDataSource(
        _ argument: String, polling: CommitPolling, postgres: PostgresOptions) throws -> any ViewerDataSource
    {
        switch ViewerDataSourceKind(argument) {
        case .sqliteFile:
            do {
                return try SQLiteDataSource.open(path: argument, polling: polling)
            } catch {
                throw CommandFailure(error.oneLineDescription, status: 1)
            }
        case .postgres:
            var settings = PostgresDataSource.Settings()
            if let timeout = postgres.statementTimeout {
                settings.statementTimeout = timeout
            }
            if let interval = polling.interval {
                settings.pollInterval = interval
            }
            settings.listenChannel = postgres.listen
            do {
                // Connects at once: a wrong password or an unreachable
                // server fails here, before the screen is taken.
                return try PostgresDataSource(argument, settings: settings)
            } catch {
                // PostgresClient's errors hold no password.
                throw CommandFailure(error.oneLineDescription.escapingControlCharacters, status: 1)
            }
        }
    }

    /// Takes over the terminal and runs the Hall of Fame until it exits, or
    /// throws a `CommandFailure` of status 2 when the terminal can not be
    /// set up.
    func start(
        database: AppDatabase,
        polling: CommitPolling = CommitPolling(),
        close: @escaping @MainActor () -> Void = {},
        started: @MainActor (Runtime<HallOfFameProgram>) -> Void = { _ in }) throws -> Never
    {
        try run(
            { terminal in
                AppLoop(
                    program: HallOfFameProgram(database: database, polling: polling),
                    state: .initial(width: terminal.width, height: terminal.height, useColor: terminal.usesColor))
            },
            close: {
                try? database.close()
                close()
            },
            started: started)
    }

    /// Takes over the terminal and runs the program of the loop that
    /// `makeLoop` makes for it until the app exits, or throws a
    /// `CommandFailure` of status 2 when the terminal can not be set up.
    func run<Program: AppProgram>(
        _ makeLoop: @MainActor (Terminal) -> AppLoop<Program>,
        close: @escaping @MainActor () -> Void,
        started: @MainActor (Runtime<Program>) -> Void = { _ in }) throws -> Never
    where Program.Message: TerminalMessage
    {
        try MainActor.assumeIsolated { () throws -> Never in
            let terminal: Terminal
            do {
                terminal = try Terminal(theme: theme, mouse: mouse)
            } catch {
                throw CommandFailure(error.oneLineDescription, status: 2)
            }
            Runtime.run(terminal: terminal, loop: makeLoop(terminal), close: close, started: started)
        }
    }
}

/// Which database `livetable view` reads, from its argument.
enum ViewerDataSourceKind: Equatable {
    /// A SQLite file: any argument that names no server.
    case sqliteFile
    /// A PostgreSQL server: a `postgres://` or `postgresql://` URL, or a
    /// libpq key/value string (`host=db dbname=tracks`).
    case postgres

    /// The kind of `argument`. A key/value string is text that starts with
    /// a libpq keyword and `=`, and is not the name of an existing file:
    /// a file called `a=b.sqlite` stays a file.
    init(_ argument: String, fileExists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }) {
        // libpq's own test (PQconnectdbParams' expand_dbname): the scheme
        // in lower case.
        if argument.hasPrefix("postgres://") || argument.hasPrefix("postgresql://") {
            self = .postgres
        } else if Self.startsWithKeyword(argument) && !fileExists(argument) {
            self = .postgres
        } else {
            self = .sqliteFile
        }
    }

    /// Whether `argument` starts as a key/value string does: spaces, a
    /// keyword of letters and underscores, spaces, `=`.
    private static func startsWithKeyword(_ argument: String) -> Bool {
        let text = argument.drop { $0 == " " || $0 == "\t" }
        let keyword = text.prefix { ($0.isASCII && $0.isLetter) || $0 == "_" }
        guard !keyword.isEmpty else { return false }
        return text.dropFirst(keyword.count).drop { $0 == " " || $0 == "\t" }.first == "="
    }
}
