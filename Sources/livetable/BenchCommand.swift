import ArgumentParser
import Foundation
import LiveTableBenchmark
import LiveTableCore

/// `livetable bench`: measures the app's live-update path against the demo
/// apps' observation, on generated databases.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure live updates on tables of thousands to millions of players.",
        discussion: """
            Generates databases of 1,000, 100,000 and 1,000,000 random players (--large adds \
            10,000,000; --rows picks sizes) and runs, on each, the app's own loop with a host that \
            draws nothing: the n key inserts players through the app's write effect, and the same \
            writes are seen through two observations:

              pipeline  the app's path: a window of rows paged by keyset, the count kept by triggers, \
            the max read from the index, delivered through ReactiveGRDB to the main queue and rendered \
            into the screen grid once per burst of messages;
              naive     the demo apps' observation: every row, COUNT(*) and MAX(score), through the \
            same publisher, loop and renderer.

            For each: commit-to-screen latency (p50, p99) over sequential single-row inserts, screens \
            with a new value drawn per second during a 2-second burst of inserts (the last one must \
            match the database), the time to the first frame, the navigation latency (End, Home, PgDn, o), the \
            CPU used while nothing changes, and the peak memory. Each mode runs in its own process. \
            Then, on 100,000 players in WAL and in DELETE journal mode, the latency from a commit of \
            another process (the sqlite3 command, its connection kept open) to the app's \
            observation, the CPU used while no process writes, and a burst of 10,000 commits. \
            Then a file that another machine writes: the sqlite3 command writes it behind a FUSE \
            mount (bindfs; skipped, with the reason, when bindfs or /dev/fuse is missing) while the \
            app reads it through the mount, polled every 0.1 s without any option: the latency to \
            the subscriber and to the viewer's screen (p50, p90), the CPU of polling while nothing \
            is written, and the same on a local file, where nothing runs. \
            Then the viewer (livetable view) on a generated rollback-journal table of 2,000,000 \
            rows (--viewer-rows picks sizes; --large adds 10,000,000), in its own process per \
            size: the time from opening the file to the first rows on screen, End and Home from \
            the key to the screen of the new window, the latency from an update of a visible row \
            by the sqlite3 command to the screen, ] (sort) on an indexed and on an unindexed \
            column from the key to the screen of the sorted window, the same update latency while \
            sorted by the unindexed column, / (search) to a far match and n, f (filter) to its \
            first rows and to its exact count, the commits per second of that command alone and \
            while the viewer is open, and the peak memory; then the table printed by livetable view \
            --format csv beside sqlite3 -csv (wall-clock time, to /dev/null). \
            Then the viewer on PostgreSQL (livetable view postgres://… tracks), in its own process, on a \
            throwaway local server (PostgreSQL 15, initdb'd for the run, pg_stat_statements loaded) with a \
            table of 2,000,000 rows made with generate_series (--postgres-rows picks the size): the time \
            from connecting to the first rows on screen, End and Home, the latency from another \
            session's commit (psql, its connection kept open) of an update of a visible row to the \
            screen, and, while nothing is written, the viewer's CPU with its poll and its server \
            processes' CPU and statements; and the peak memory. Then the frequency sheet (#) at \
            2,000,000 rows, on a SQLite file in WAL mode and on PostgreSQL: the first counts on an indexed \
            and an unindexed column, and, while another process moves a row between groups 5 times a \
            second, each commit to the screen of its counts; and a chart sheet's (.) first draw on an \
            indexed and an unindexed column. --only runs one section; --directory \
            /dev/shm puts the files in memory, where a commit costs no disk sync. Build in \
            release mode for meaningful figures:

              swift run -c release livetable bench
              swift run -c release livetable bench --only viewer --large

            The run ends with the app's performance targets, each met or missed, and exits with \
            status 1 when one is missed. Progress goes to standard error; the table, or the --json \
            object, to standard output.
            """)

    @Option(
        name: .long,
        parsing: .upToNextOption,
        help: ArgumentHelp("The numbers of players to measure.", valueName: "count"))
    var rows: [Int] = [1_000, 100_000, 1_000_000]

    @Flag(name: .long, help: "Also measure 10,000,000 players (the naive observation is skipped there), and a viewer table of 10,000,000 rows.")
    var large = false

    @Option(
        name: .customLong("viewer-rows"),
        parsing: .upToNextOption,
        help: ArgumentHelp("The numbers of rows of the viewer's tables.", valueName: "count"))
    var viewerRows: [Int] = [2_000_000]

    @Option(
        name: .customLong("postgres-rows"),
        help: ArgumentHelp("The number of rows of the PostgreSQL table.", valueName: "count"))
    var postgresRows = 2_000_000

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Run one section only.", valueName: "hall-of-fame|other-processes|scale|remote-files|viewer|postgres|sheets"))
    var only: BenchSection?

    @Flag(name: .long, help: "Print one JSON object instead of the table.")
    var json = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Where to generate the databases (default: the temporary directory); /dev/shm measures files in memory.",
            valueName: "directory"))
    var directory: String?

    @Option(name: .long, help: "The number of sequential writes whose latency is measured.")
    var samples = 1000

    // The child process that measures one mode on one database.
    @Option(name: .long, help: .hidden)
    var measure: BenchmarkMode?

    // The child process that measures the viewer on one table.
    @Flag(name: .customLong("measure-viewer"), help: .hidden)
    var measureViewer = false

    // The child process that measures the viewer on PostgreSQL.
    @Flag(name: .customLong("measure-postgres"), help: .hidden)
    var measurePostgres = false

    // The child process that measures the viewer of a busy file.
    @Flag(name: .customLong("measure-busy-file"), help: .hidden)
    var measureBusyFile = false

    // The child process that measures the frequency sheet.
    @Flag(name: .customLong("measure-sheets"), help: .hidden)
    var measureSheets = false

    // Not --database: `livetable`'s own --database would take it.
    @Option(name: .customLong("measure-database"), help: .hidden)
    var database: String?

    @Option(name: .long, help: .hidden)
    var output: String?

    func validate() throws {
        guard rows.allSatisfy({ $0 > 0 }) else {
            throw ValidationError("--rows takes positive numbers of players.")
        }
        guard viewerRows.allSatisfy({ $0 > 0 }) else {
            throw ValidationError("--viewer-rows takes positive numbers of rows.")
        }
        guard postgresRows > 0 else {
            throw ValidationError("--postgres-rows takes a positive number of rows.")
        }
        guard samples >= 5 else {
            throw ValidationError("--samples must be at least 5.")
        }
        if (measure != nil || measureViewer) && (database == nil || output == nil) {
            throw ValidationError("--measure needs --measure-database and --output.")
        }
        if measurePostgres && output == nil {
            throw ValidationError("--measure-postgres needs --output.")
        }
    }

    /// Runs the measurement this process was started for as a child of the
    /// bench, if any: true when it did.
    private func runChildMeasurement() throws -> Bool {
        if measurePostgres, let output {
            var samples = PostgresBenchmark.Samples()
            samples.rows = postgresRows
            let benchmark = PostgresBenchmark(samples: samples, log: Self.log)
            try Self.runChild(output: output) { try benchmark.run() }
            return true
        }
        if measureSheets, let output {
            let benchmark = FrequencySheetBenchmark(
                directory: URL(fileURLWithPath: output + ".files"), log: { Self.log($0) })
            try Self.runChild(output: output) { try benchmark.run() }
            return true
        }
        if measureBusyFile, let output {
            let benchmark = ViewerBusyFileBenchmark(
                directory: URL(fileURLWithPath: output + ".files"), log: { Self.log($0) })
            try Self.runChild(output: output) { try benchmark.run() }
            return true
        }
        if let database, let output {
            if let measure {
                let benchmark = HallOfFameBenchmark(path: database, mode: measure, latencySamples: samples, log: Self.log)
                try Self.runChild(output: output) { try benchmark.run() }
                return true
            }
            if measureViewer {
                let benchmark = ViewerScreenBenchmark(path: database, log: Self.log)
                try Self.runChild(output: output) { try benchmark.run() }
                return true
            }
        }
        return false
    }

    /// The `scale` section: many subscribers, a rollback-journal writer,
    /// and the viewer of a busy file (in a child process).
    private static func measureScale(into report: inout BenchmarkReport, directory: String) throws {
        let scale = try ScaleBenchmark(directory: URL(fileURLWithPath: directory + "-scale")).run(log: log)
        report.scale = scale
        report.targets += scale.targets
        let rollbackJournal = try RollbackJournalBenchmark(
            directory: URL(fileURLWithPath: directory + "-rollback")).run(log: log)
        report.rollback_journal = rollbackJournal
        report.targets += rollbackJournal.targets
        let busyFile: ViewerBusyFileFigures = try measureInChildProcess(
            arguments: ["--measure-busy-file"], output: directory + "-busy-file.figures.json",
            name: "the viewer of a busy file")
        report.viewer_busy_file = busyFile
        report.targets += busyFile.targets
    }

    func run() throws {
        if try runChildMeasurement() { return }
        let sections = only.map { [$0] } ?? BenchSection.allCases
        let sizes = large ? rows + [10_000_000] : rows
        let suite = BenchmarkSuite(
            sizes: sections.contains(.hallOfFame) ? sizes : [],
            directory: directory.map { directory in
                URL(fileURLWithPath: directory)
                    .appendingPathComponent("livetable-bench-\(ProcessInfo.processInfo.processIdentifier)")
            })
        var report = try suite.run(log: Self.log) { mode, path in
            try Self.measureInChildProcess(
                arguments: ["--measure", mode.rawValue, "--samples", "\(samples)", "--measure-database", path],
                output: path + ".figures.json", name: "the \(mode.rawValue) observation")
        }
        if sections.contains(.otherProcesses) {
            let otherProcesses = try OtherProcessBenchmark(directory: suite.directory).run(log: Self.log)
            report.other_processes = otherProcesses
            report.targets += otherProcesses.flatMap(\.targets)
            let asyncValues = try AsyncValuesBenchmark(directory: URL(fileURLWithPath: suite.directory.path + "-async"))
                .run(log: Self.log)
            report.async_values = asyncValues
            report.targets += asyncValues.flatMap(\.targets)
        }
        if sections.contains(.scale) {
            try Self.measureScale(into: &report, directory: suite.directory.path)
        }
        if sections.contains(.remoteFiles) {
            let remoteFiles = try MainActor.assumeIsolated {
                try RemoteFileBenchmark(directory: URL(fileURLWithPath: suite.directory.path + "-remote")).run(log: Self.log)
            }
            report.remote_files = remoteFiles
            report.targets += remoteFiles.targets
        }
        if sections.contains(.viewer) {
            let viewerSuite = ViewerScreenSuite(
                sizes: large ? viewerRows + [10_000_000] : viewerRows,
                directory: URL(fileURLWithPath: suite.directory.path + "-viewer"))
            let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
            let viewer: [ViewerScreenFigures] = try viewerSuite.run(log: Self.log) { path in
                var figures: ViewerScreenFigures = try Self.measureInChildProcess(
                    arguments: ["--measure-viewer", "--measure-database", path], output: path + ".figures.json",
                    name: "the viewer")
                // The same table printed by the real command, beside sqlite3's.
                figures.export = try ExportBenchmark(path: path, executable: executable).run(log: Self.log)
                return figures
            }
            report.viewer = viewer
            report.targets += viewer.flatMap(\.targets)
        }
        if sections.contains(.postgres), let reason = PostgresBenchmark.unavailableReason {
            // Asked for alone, it fails; among all, it is skipped, with why.
            guard only == nil else { throw ValidationError("the PostgreSQL section can not run: \(reason)") }
            Self.log("postgres skipped: \(reason)")
        } else if sections.contains(.postgres) {
            let postgres: PostgresFigures = try Self.measureInChildProcess(
                arguments: ["--measure-postgres", "--postgres-rows", "\(postgresRows)"],
                output: suite.directory.path + "-postgres.figures.json", name: "the viewer on PostgreSQL")
            report.postgres = postgres
            report.targets += postgres.targets
        }
        if sections.contains(.sheets) {
            let sheets: FrequencySheetFigures = try Self.measureInChildProcess(
                arguments: ["--measure-sheets"], output: suite.directory.path + "-sheets.figures.json",
                name: "the frequency sheet")
            report.sheets = sheets
            report.targets += sheets.targets
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(report.table)
        }
        if !report.targets.allSatisfy(\.met) {
            throw ExitCode(1)
        }
    }

    /// Runs `measure` in this child process, and writes its figures as
    /// JSON to `output`.
    private static func runChild<Figures: Encodable & Sendable>(
        output: String, _ measure: @escaping @Sendable () throws -> Figures) throws
    {
        let result = MeasurementResult()
        DispatchQueue.global().async {
            let figures = Result { try JSONEncoder().encode(measure()) }
            DispatchQueue.main.async {
                MainActor.assumeIsolated { result.value = figures }
            }
        }
        try MainActor.assumeIsolated {
            while result.value == nil {
                _ = RunLoop.main.run(mode: .default, before: .distantFuture)
            }
            try result.value!.get().write(to: URL(fileURLWithPath: output))
        }
    }

    /// Measures in a child process (`livetable bench` with `arguments`), so
    /// that the peak memory of one measurement is not the peak of another.
    private static func measureInChildProcess<Figures: Decodable>(
        arguments: [String], output: String, name: String) throws -> Figures
    {
        // The figures come back in a file rather than through a pipe: the
        // parent only has to wait for the child, which retries on EINTR.
        defer { try? FileManager.default.removeItem(atPath: output) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["bench"] + arguments + ["--output", output]
        process.standardError = FileHandle.standardError
        try process.run()
        process.waitUntilExit()
        switch (process.terminationReason, process.terminationStatus) {
        case (.exit, 0):
            break
        case let (.exit, status):
            // The child has said why, in one line, through the same exit
            // path as this process.
            throw ExitCode(status)
        case let (_, signal):
            throw CommandFailure("measuring \(name) failed: killed by signal \(signal)", status: 1)
        }
        return try JSONDecoder().decode(Figures.self, from: Data(contentsOf: URL(fileURLWithPath: output)))
    }

    private static func log(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}

extension BenchmarkMode: ExpressibleByArgument { }

/// A section of `livetable bench`, for `--only`.
enum BenchSection: String, CaseIterable, ExpressibleByArgument {
    /// The Hall of Fame's two observations, on each size of `--rows`.
    case hallOfFame = "hall-of-fame"
    /// The commits of another process, in WAL and DELETE journal modes,
    /// to the app's observation, and to the async form beside the publisher.
    case otherProcesses = "other-processes"
    /// Live at scale: many subscriptions to other processes' commits on one
    /// database (fetches per commit, cross-talk, a slow subscriber beside a
    /// fast one), and the viewer of a busy file (its CPU per commit, a slow
    /// query of a WAL file kept fresh), a rollback-journal writer committing
    /// back to back.
    case scale
    /// The writes of another machine, behind a FUSE mount, and the cost of
    /// polling.
    case remoteFiles = "remote-files"
    /// The viewer, on each size of `--viewer-rows`.
    case viewer
    /// The viewer on a table of a local PostgreSQL server, of
    /// `--postgres-rows` rows.
    case postgres
    /// The sheets the viewer writes: the frequency sheet (`#`) at
    /// 2,000,000 rows, on a SQLite file and on PostgreSQL.
    case sheets
}

/// The encoded figures of the child's measurement, or its error, once done.
@MainActor
private final class MeasurementResult {
    var value: Result<Data, any Error>?
}
