import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import LiveTableCore

/// `livetable view FILE|URL [TABLE] [--sort COLUMN [--desc]]`: a live,
/// read-only view of a table, a view or a read-only query of any SQLite
/// file or PostgreSQL database, or, with `--format`, its rows printed.
/// The file is opened read-only and never written; a PostgreSQL session
/// is read-only, enforced by the server.
struct ViewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        abstract: "View a table, view or read-only query of a SQLite file or a PostgreSQL database, live; or print its rows.",
        discussion: """
            The file is opened read-only: it is never written, and its journal mode is \
            left as it is. The screen shows a window of rows, fetched by keyset (never \
            OFFSET), and follows the commits of other processes within milliseconds: the \
            selection stays on its row (by rowid or primary key), the sort and the scroll \
            are kept. The title shows the row count (counted off the main thread; "~" while \
            it is recounted) and whether the view is live. Without TABLE, a picker lists \
            the tables and views with their row counts ("~" when estimated).

            Another machine's commits make no inotify event: a file on NFS, SMB, FUSE \
            (sshfs, LiteFS), 9p, virtiofs, Ceph, Lustre and the like is checked every \
            0.1 s too, and the title says so ("polled every 0.1 s: nfs"). --poll SECONDS \
            checks any file at that interval, besides inotify.

            PostgreSQL: give a postgres:// or postgresql:// URL, \
            postgres://[user[:password]@]host[:port]/dbname, or a libpq key/value string, \
            "host=db dbname=shop"; libpq's PG* environment variables, ~/.pgpass and \
            service files apply (PGPASSWORD or ~/.pgpass keep the password off the command \
            line). TABLE may be schema.table; the picker shows the planner's estimate \
            ("~") of a table of more than 100,000 rows. The session is read-only, enforced by the server: a --query \
            or a filter that writes is refused with PostgreSQL's message. Each read is one \
            short transaction, stopped after --statement-timeout. The viewer polls the \
            server's commit token (its snapshot, pg_current_snapshot(); on a hot standby, \
            the replayed WAL position) every 0.05 s, or --poll SECONDS, and reads the \
            window again only when it moved; \
            --listen CHANNEL also reads at each NOTIFY. When the server goes away, the title \
            says "not live" and the viewer reconnects, keeping the selection.

            With --format, the rows are printed and the command exits (no terminal \
            needed), in constant memory, in the order of --sort, else of their rowid, their \
            primary key (WITHOUT ROWID tables) or all their columns (views); the rows of a \
            --query in its own order. --filter keeps the rows for which the SQL expression \
            is true, and --columns a,b,c prints those columns in that order (on the live \
            screen: the table filtered, the other columns hidden). Without TABLE, with \
            --format or when standard output is not a terminal, the tables are printed one \
            a line (name, kind, rows).

            Formats (also those of s, by the file name's extension):
              csv   RFC 4180: a header line, CRLF line ends, fields quoted when they hold \
            a comma, a double quote, CR or LF. NULL is an empty field, empty text and an \
            empty BLOB are "", a BLOB is its bytes in lowercase hexadecimal.
              tsv   a header line, LF line ends; backslash, tab, LF and CR in values are \
            written \\\\, \\t, \\n, \\r; NULL is \\N; a BLOB is lowercase hexadecimal.
              json  an array of objects keyed by column name (a repeated name numbered: \
            id, id:1): numbers, strings, null; a BLOB is a base64 string.
              jsonl the same objects, one a line.
              md    a Markdown table: | escaped, a line break as <br>, NULL empty.
            Text is written whole; a byte that is not UTF-8 as U+FFFD, with a warning.

            A --query must be one read-only statement (sqlite3_stmt_readonly) that returns \
            rows, without parameters, calling only built-in functions that read: anything \
            else is refused before it runs.

            The mouse: the wheel moves the selection three rows at a time; a click selects \
            a row and a column, a click on the header a column; a double click opens the \
            row, as Enter. Shift with the mouse selects text as the terminal does. \
            --no-mouse, or mouse = false in the config file, leaves the mouse to the terminal.

            Config file: $XDG_CONFIG_HOME/livetable/config.toml (~/.config/livetable/config.toml): \
            theme, [colors], mouse, poll, statement_timeout; see livetable --help.

            Keys:
            \(keyTable)

            Exit status: 0 on quit or when all rows are printed, 1 when the file or \
            the server, the table, the sort column or the query cannot be read, 2 when the live view has \
            no terminal, 64 on a command-line error, a bad config file or a bad --alert or --until \
            condition, 128 + n after signal n. With --until: 0 as soon as a row matches, 1 after --timeout.

            Examples:
              livetable view app.sqlite                         pick a table
              livetable view app.sqlite orders --sort total --desc
              livetable view app.sqlite --query "SELECT id, total FROM orders WHERE total > 100"
              livetable view app.sqlite orders --format csv > orders.csv
              livetable view app.sqlite orders --sort total --desc --filter "total > 100" --columns id,total --format jsonl
              livetable view app.sqlite jobs --until "id = 42 AND state = 'done'" --timeout 600
              livetable view /mnt/replica/app.sqlite orders --poll 0.5
              livetable view postgres://viewer@db.example.com/shop orders
              livetable view "host=/var/run/postgresql dbname=shop" --listen orders_changed
            """)

    /// The viewer's key table, as the help overlay shows it.
    private static var keyTable: String {
        let width = viewerKeyBindings.map(\.keys.count).max() ?? 0
        return viewerKeyBindings.map { binding in
            "  " + binding.keys.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + binding.description
        }.joined(separator: "\n")
    }

    @Argument(help: ArgumentHelp(
        "The SQLite database file (read-only), or a PostgreSQL URL or connection string.",
        valueName: "file|url"))
    var file: String

    @Argument(help: ArgumentHelp("The table or view to view.", valueName: "table"))
    var table: String?

    @Option(help: ArgumentHelp("A read-only SELECT to view instead of a table.", valueName: "sql"))
    var query: String?

    @Option(help: ArgumentHelp("Sort the rows by this column.", valueName: "column"))
    var sort: String?

    @Flag(help: "Sort in descending order (with --sort).")
    var desc = false

    @Option(help: ArgumentHelp("Show only the rows for which this SQL expression is true.", valueName: "expr"))
    var filter: String?

    @Option(help: ArgumentHelp("Show only these columns, in this order with --format.", valueName: "a,b,c"))
    var columns: String?

    @Option(help: ArgumentHelp("Print the rows in this format and exit.", valueName: "csv|tsv|json|jsonl|md"))
    var format: ExportFormat?

    @Option(help: ArgumentHelp(
        "Ring the bell and mark the rows when a row starts matching this SQL condition (live view).",
        valueName: "sql"))
    var alert: String?

    @Option(help: ArgumentHelp(
        "Without a screen, wait until a row matches this SQL condition, print it (--format, csv by default) and exit 0.",
        valueName: "sql"))
    var until: String?

    @Option(help: ArgumentHelp("With --until: exit 1 when no row matched after this many seconds.", valueName: "seconds"))
    var timeout: Double?

    @Flag(name: .customLong("no-color"), help: "Draw in monochrome (also when NO_COLOR is set and not empty).")
    var noColor = false

    @Flag(name: .customLong("no-mouse"), help: "Leave the mouse to the terminal (also mouse = false in the config file).")
    var noMouse = false

    @OptionGroup var pollOption: PollOption

    /// `livetable`'s own options: the parser gives it `--no-color` even
    /// when it follows `view`.
    @ParentCommand var root: LiveTable

    @OptionGroup var postgresOptions: PostgresOptions

    func validate() throws {
        if table != nil && query != nil {
            throw ValidationError("Give a table or --query, not both.")
        }
        if desc && sort == nil {
            throw ValidationError("--desc needs --sort COLUMN.")
        }
        if let columns, Self.columnNames(columns).isEmpty {
            throw ValidationError("--columns needs column names, separated by commas.")
        }
        try validateWaiting()
        if let option = postgresOptions.given.first, ViewerDataSourceKind(file) == .sqliteFile {
            throw ValidationError(
                "\(option) is for a PostgreSQL database: \"\(file.escapingControlCharacters)\" is a SQLite file.")
        }
    }

    func run() throws {
        Launch.prepareViewerDataSource(file)
        // First: a bad file is said before anything is opened.
        let config = try Config.load(environment: ProcessInfo.processInfo.environment)
        var postgres = postgresOptions
        postgres.statementTimeout = postgres.statementTimeout ?? config.statementTimeout
        let dataSource = try Launch.openViewerDataSource(file, polling: pollOption.polling(config), postgres: postgres)
        let target: ViewerTarget?
        if let query {
            target = .query(query)
        } else {
            target = table.map(ViewerTarget.table)
        }
        guard let target else {
            if format != nil || isatty(STDOUT_FILENO) == 0 {
                try printTables(dataSource)
                return
            }
            try live(dataSource, opened: nil, config: config, alert: nil)
        }
        // Every check that can fail, before anything is printed or the
        // screen is touched.
        let viewed: ViewedSource
        let plan: ExportPlan
        do {
            viewed = try openFiltered(dataSource, target)
            plan = try ExportPlan(viewed, columns: columns.map(Self.columnNames))
        } catch {
            throw CommandFailure(Self.oneLine(dataSource.describe(error)), status: 1)
        }
        if let until {
            try waitUntil(until, dataSource, viewed)
        }
        let alert = try checkAlert(dataSource, viewed)
        guard let format else {
            if isatty(STDOUT_FILENO) == 0 {
                throw CommandFailure(
                    "standard output is not a terminal: give --format csv, tsv or json to print the rows", status: 2)
            }
            if let query, let history = HistoryFile.standard(environment: ProcessInfo.processInfo.environment) {
                // The query prompt's ↑ finds it. A history that can not be
                // written is no reason not to show the rows.
                try? history.record(query)
            }
            let shown = Set(plan.columnNames)
            try live(
                dataSource, opened: viewed, config: config, alert: alert,
                hidden: Set(viewed.source.columnNames.filter { !shown.contains($0) }))
        }
        let summary: RowExport.Summary
        do {
            // The export buffers: each piece goes straight out. The sheet's
            // natural order unless sorted, as `s` saves it.
            summary = try dataSource.export(plan, format: format, ticket: ReadTicket()) { bytes, _ in
                try StandardOutput.write(bytes)
            }
        } catch {
            throw CommandFailure(error.oneLineDescription, status: 1)
        }
        if let warning = summary.warning {
            FileHandle.standardError.write(Data("livetable: warning: \(warning)\n".utf8))
        }
    }

    /// Opened in its order, then filtered as `f` filters.
    private func openFiltered(_ dataSource: any ViewerDataSource, _ target: ViewerTarget) throws -> ViewedSource {
        let viewed = try dataSource.open(target, sortColumn: sort, descending: desc, ticket: ReadTicket())
        guard let filter else { return viewed }
        return try dataSource.filter(viewed, by: filter, ticket: ReadTicket()).viewed
    }

    private static func columnNames(_ list: String) -> [String] {
        list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Runs the live screen until the user quits.
    private func live(
        _ dataSource: any ViewerDataSource, opened: ViewedSource?, config: Config, alert: ViewerAlert?,
        hidden: Set<String> = []
    ) throws -> Never {
        let environment = ProcessInfo.processInfo.environment
        let launch = try Launch.prepare(
            environment: environment, noColor: noColor || root.options.noColor, config: config, mouse: !noMouse)
        let history = HistoryFile.standard(environment: environment)
        try launch.run(
            { terminal in
                var state = ViewerState.initial(
                    databaseName: dataSource.name, opened: opened,
                    width: terminal.width, height: terminal.height, useColor: terminal.usesColor)
                state.table?.hiddenColumns = hidden
                state.queryHistory = history?.load() ?? PromptHistory()
                state.alert = alert
                state.changesLog.clock = WallClock(instant: .now, date: Date())
                return AppLoop(program: ViewerProgram(dataSource: dataSource, history: history), state: state)
            },
            // The read-only connections close with the process: nothing
            // to write back, but the part of a file that a save was writing.
            close: { SheetFile.removeUnfinishedFiles() })
    }

    /// Prints the tables and views, one a line: name, kind, row count
    /// (`~` when estimated, `+` when counting stopped, `?` when it could
    /// not be counted within `PickerEntry.countTimeLimit`). Each line is
    /// written as soon as its table is counted, each count in its own read:
    /// a slow view holds up neither the names before it nor a writer.
    private func printTables(_ dataSource: any ViewerDataSource) throws {
        do {
            let tables = try dataSource.listTables(ticket: ReadTicket())
            for table in tables {
                let ticket = ReadTicket(timeLimit: PickerEntry.countTimeLimit)
                let count: String
                switch try? dataSource.quickRowCount(ofTable: table.name, kind: table.kind, ticket: ticket) {
                case let .exact(value)?: count = "\(value)"
                case let .estimated(value)?: count = "~\(value)"
                case let .atLeast(value)?: count = "\(value)+"
                case nil: count = "?"
                }
                // Each line goes straight out, as soon as its table is counted.
                var line = [table.name.escapingControlCharacters, table.kind.word, count].joined(separator: "\t") + "\n"
                try line.withUTF8 { try StandardOutput.write(UnsafeRawBufferPointer($0)) }
            }
        } catch {
            throw CommandFailure(Self.oneLine(dataSource.describe(error)), status: 1)
        }
    }

    /// `text` on one line: a data source's description of an error.
    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}

extension ExportFormat: ExpressibleByArgument {}

/// Standard output, written with `write(2)`: a failure says what the
/// system said, in one line ("No space left on device").
private enum StandardOutput {
    static func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count, let base = bytes.baseAddress {
            let written = Glibc.write(STDOUT_FILENO, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw WriteError(description: "cannot write the output: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }

    struct WriteError: Error, CustomStringConvertible {
        var description: String
    }
}
