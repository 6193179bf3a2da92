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

    @OptionGroup var options: AppOptions

    mutating func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let config = try Config.load(environment: environment)
        let launch = try Launch.prepare(environment: environment, noColor: options.noColor, config: config)
        let path = try options.databasePath ?? Launch.defaultDatabasePath(environment: environment)
        // A new database gets 8 random players, or is removed if it can
        // not (a full disk).
        let database = try Launch.openDatabase(path: path, seed: options.seed) { database in
            try database.createRandomPlayersIfEmpty()
        }
        try launch.start(database: database, polling: options.pollOption.polling(config))
    }
}
