import ArgumentParser
import Foundation
import LiveTableCore

/// The `livetable` command: the live Hall of Fame on a database file.
@main
struct LiveTable: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "livetable",
        abstract: "A live Hall of Fame of players, redrawn each time the database changes.",
        discussion: helpDiscussion,
        subcommands: subcommands)

    @Option(
        name: .customLong("database"),
        help: ArgumentHelp(
            "The SQLite database file (created if missing; its directory must exist).",
            discussion: "Default: $XDG_DATA_HOME/livetable/players.sqlite, or ~/.local/share/livetable/players.sqlite.",
            valueName: "path"))
    var databasePath: String?

    @Option(help: ArgumentHelp("Makes random names and scores reproducible.", valueName: "n"))
    var seed: UInt64?

    @Flag(name: .customLong("no-color"), help: "Draw in monochrome (also when NO_COLOR is set).")
    var noColor = false

    mutating func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let launch = try Launch.prepare(environment: environment, noColor: noColor)
        let path = try databasePath ?? Launch.defaultDatabasePath(environment: environment)
        let database = try Launch.openDatabase(path: path, seed: seed)
        try Launch.populate(database, path: path)
        launch.start(database: database, demo: nil)
    }
}
