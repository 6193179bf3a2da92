import ArgumentParser
import Foundation
import LiveTableCore

/// `livetable view FILE TABLE --format csv|tsv|json`: prints the rows of
/// a table, a view or a read-only query of any SQLite file, and exits.
/// The file is opened read-only and never written.
struct ViewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        abstract: "Print the rows of a table, view or read-only query of any SQLite file.",
        discussion: """
            The file is opened read-only: it is never written, and its journal mode is \
            left as it is. Rows are printed in constant memory, in the order of their rowid, \
            their primary key (WITHOUT ROWID tables) or all their columns (views); the rows \
            of a --query in its own order. A table is read a page of rows at a time, so \
            that no read keeps other processes from writing for longer than one page; a \
            --query, or a view that can only be sorted by a scan, is read in one read.

            Formats:
              csv   RFC 4180: a header line, CRLF line ends, fields quoted when they hold \
            a comma, a double quote, CR or LF. NULL is an empty field, empty text is "", \
            a BLOB is its bytes in lowercase hexadecimal.
              tsv   a header line, LF line ends; backslash, tab, LF and CR in values are \
            written \\\\, \\t, \\n, \\r; NULL is \\N; a BLOB is lowercase hexadecimal.
              json  an array of objects keyed by column name: numbers, strings, null; a \
            BLOB is a base64 string.

            A --query must be one read-only statement (sqlite3_stmt_readonly) that returns \
            rows: anything else is refused before it runs.

            Exit status: 0 when all rows are printed, 1 when the file, the table or the \
            query cannot be read, 64 on a command-line error.

            Examples:
              livetable view app.sqlite                         the tables (name, kind, rows)
              livetable view app.sqlite orders --format csv > orders.csv
              livetable view app.sqlite --query "SELECT id, total FROM orders WHERE total > 100" --format json
            """)

    @Argument(help: ArgumentHelp("The SQLite database file (read-only).", valueName: "file"))
    var file: String

    @Argument(help: ArgumentHelp("The table or view to print.", valueName: "table"))
    var table: String?

    @Option(help: ArgumentHelp("A read-only SELECT to print instead of a table.", valueName: "sql"))
    var query: String?

    @Option(help: ArgumentHelp("The output format.", valueName: "csv|tsv|json"))
    var format: ExportFormat?

    func validate() throws {
        if table != nil && query != nil {
            throw ValidationError("Give a table or --query, not both.")
        }
    }

    func run() throws {
        let database: ViewerDatabase
        do {
            database = try ViewerDatabase.open(path: file)
        } catch {
            throw CommandFailure(error.oneLineDescription, status: 1)
        }
        guard table != nil || query != nil else {
            try printTables(database)
            return
        }
        guard let format else {
            throw CommandFailure("give --format csv, tsv or json to print the rows", status: 64)
        }
        let output = StandardOutput()
        do {
            let source = try database.read { db in
                if let query {
                    return try RowSource.query(query, in: db)
                }
                return RowSource.table(try ViewerTable.named(table ?? "", in: db))
            }
            try RowExport.export(database, source, format: format) { text in
                try output.write(text)
            }
            try output.flush()
        } catch {
            throw CommandFailure(error.oneLineDescription, status: 1)
        }
    }

    /// One word for a kind of table, in the list of tables.
    private static func word(for kind: ViewerTable.Kind) -> String {
        switch kind {
        case .table: return "table"
        case .withoutRowidTable: return "without-rowid"
        case .view: return "view"
        case .virtual: return "virtual"
        case .shadow: return "shadow"
        }
    }

    /// Prints the tables and views, one a line: name, kind, row count
    /// (`~` when estimated, `+` when counting stopped).
    private func printTables(_ database: ViewerDatabase) throws {
        let output = StandardOutput()
        do {
            let lines = try database.read { db in
                try ViewerTable.all(db).map { table -> String in
                    let count: String
                    switch try RowSource.table(table).quickRowCount(db) {
                    case let .exact(value): count = "\(value)"
                    case let .estimated(value): count = "~\(value)"
                    case let .atLeast(value): count = "\(value)+"
                    }
                    return [table.name.escapingControlCharacters, Self.word(for: table.kind), count]
                        .joined(separator: "\t") + "\n"
                }
            }
            try output.write(lines.joined())
            try output.flush()
        } catch {
            throw CommandFailure(error.oneLineDescription, status: 1)
        }
    }
}

extension ExportFormat: ExpressibleByArgument {}

/// Standard output, written a buffer at a time, not a row at a time.
private final class StandardOutput {
    private var buffer: [UInt8] = []
    private let capacity = 1 << 16

    init() {
        buffer.reserveCapacity(capacity)
    }

    func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= capacity {
            try flush()
        }
    }

    func flush() throws {
        guard !buffer.isEmpty else { return }
        do {
            try FileHandle.standardOutput.write(contentsOf: buffer)
        } catch {
            throw WriteError(description: "cannot write the output: \(error.oneLineDescription)")
        }
        buffer.removeAll(keepingCapacity: true)
    }

    struct WriteError: Error, CustomStringConvertible {
        var description: String
    }
}
