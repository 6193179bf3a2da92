import LiveTableCore

extension LiveTable {
    /// The `--help` discussion: the key table, as the help overlay shows it.
    static var helpDiscussion: String {
        let width = keyBindings.map(\.keys.count).max() ?? 0
        let keys = keyBindings.map { binding in
            "  " + binding.keys.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + binding.description
        }
        return """
            The players pane, the player-count pane and the max-score pane come from \
            one database observation: they are redrawn together each time the database \
            changes, and always agree. Changes written by other processes (another \
            livetable, sqlite3) show too, highlighted for about two seconds (H turns \
            highlighting off and on). A file on a network or FUSE file system (NFS, SMB, \
            sshfs, LiteFS, 9p...) is checked every 0.1 s for other machines' commits, and \
            the status line says so ("polled every 0.1 s: nfs"); --poll SECONDS checks any \
            file at that interval.

            Keys:
            \(keys.joined(separator: "\n"))

            Config file: $XDG_CONFIG_HOME/livetable/config.toml, or \
            ~/.config/livetable/config.toml when XDG_CONFIG_HOME is not set. Optional: \
            theme = "dark", "light" or "mono"; a [colors] table (title, header, selection, \
            changed, new_row, null, status = a colour name or a number from 0 to 255); \
            mouse = false; poll and statement_timeout, the defaults of --poll and \
            --statement-timeout. Options given on the command line win; NO_COLOR wins \
            over any theme.

            Environment:
              XDG_CONFIG_HOME  where the config file lives (livetable/config.toml)
              XDG_DATA_HOME    where the default database lives (livetable/players.sqlite)
              NO_COLOR         when set and not empty, draw in monochrome
              TERM             the terminal type; it must be known to terminfo

            Errors are one line on standard error, "livetable: error: ...". Exit \
            status: 0 on quit, 1 when the database cannot be opened (for bench: when a \
            target is missed or a measurement fails), 2 when standard input or output \
            is not a terminal or TERM cannot be used, 64 on a command-line error or a \
            bad config file, \
            128 + n after signal n (SIGTERM, SIGHUP, SIGINT).

            Examples:
              livetable                              the default database
              livetable --database scores.sqlite     another file (created if missing)
              livetable demo --speed 2               a walkthrough, twice as fast
              livetable view app.sqlite              a live view of any SQLite file
              livetable view postgres://db/shop      or of a PostgreSQL database
            """
    }
}
