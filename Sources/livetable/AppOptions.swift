import ArgumentParser
import Foundation
import LiveTableCore

/// The options of `livetable` that `livetable demo` shares.
/// ArgumentParser parses them once, wherever they stand: `livetable demo --seed 3` and
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

    // Unconditional: the next argument is the value even when it starts
    // with a dash, so that `--seed -1` says what is wrong with -1 instead
    // of "Missing value".
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Makes random names and scores reproducible.", valueName: "n"),
        transform: AppOptions.parseSeed)
    var seed: UInt64?

    @Flag(name: .customLong("no-color"), help: "Draw in monochrome (also when NO_COLOR is set and not empty).")
    var noColor = false

    @OptionGroup var pollOption: PollOption

    /// The checks at an interval that `--poll` asks for.
    var polling: CommitPolling {
        pollOption.polling
    }

    /// An empty `--database` would open a temporary database, or fail with
    /// an error about WAL mode: say what is wrong instead.
    func validate() throws {
        if databasePath?.isEmpty == true {
            throw ValidationError("--database needs the path of a file, not an empty string")
        }
    }

    /// A seed: a whole number from 0 to 2^64 - 1.
    private static func parseSeed(_ text: String) throws -> UInt64 {
        guard let seed = UInt64(text) else {
            throw ValidationError("the seed must be a whole number from 0 to \(UInt64.max)")
        }
        return seed
    }
}

/// `--poll SECONDS`, of `livetable`, `livetable demo` and `livetable view`.
struct PollOption: ParsableArguments {
    // Unconditional: `--poll -1` says what is wrong with -1.
    @Option(
        name: .customLong("poll"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "Also check the file for other processes' commits every this many seconds (0.02 to 60).",
            discussion: """
                Besides inotify, on any file system: for a file that another machine writes \
                behind a file system livetable does not recognise. Files on NFS, SMB, FUSE \
                (sshfs, LiteFS), 9p, virtiofs, Ceph, Lustre and the like are checked every \
                0.1 s without it. The title or status line says "polled every 0.1 s: fuse". \
                For a PostgreSQL database (livetable view): the interval of the poll of the \
                server's commit token (its snapshot; a standby's replayed WAL position), \
                0.05 s when not given.
                """,
            valueName: "seconds"),
        transform: { text in
            do {
                return try CommitPolling.interval(parsing: text)
            } catch {
                throw ValidationError("\(error)")
            }
        })
    var poll: TimeInterval?

    /// The checks at an interval that `--poll` asks for.
    var polling: CommitPolling {
        CommitPolling(interval: poll)
    }

    /// `--poll`, else the config file's `poll`.
    func polling(_ config: Config) -> CommitPolling {
        CommitPolling(interval: poll ?? config.poll)
    }
}
