import ArgumentParser

/// The options of `livetable` that `livetable demo` shares.
///
/// Both commands declare them with `@OptionGroup`: ArgumentParser parses
/// them once, wherever they stand on the command line, and hands the same
/// values to the subcommand, so `livetable demo --seed 3` and
/// `livetable --seed 3 demo` mean the same.
struct AppOptions: ParsableArguments {
    @Option(
        name: .customLong("database"),
        help: ArgumentHelp(
            "The SQLite database file (created if missing; its directory must exist).",
            discussion: """
                Default for livetable: $XDG_DATA_HOME/livetable/players.sqlite, or \
                ~/.local/share/livetable/players.sqlite. Default for demo: a temporary database.
                """,
            valueName: "path"))
    var databasePath: String?

    @Option(help: ArgumentHelp("Makes random names and scores reproducible.", valueName: "n"))
    var seed: UInt64?

    @Flag(name: .customLong("no-color"), help: "Draw in monochrome (also when NO_COLOR is set and not empty).")
    var noColor = false
}
