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
            Build in release mode for meaningful figures:

              swift run -c release livetable bench

            The run ends with the app's performance targets, each met or missed, and exits with \
            status 1 when one is missed. Progress goes to standard error; the table, or the --json \
            object, to standard output.
            """)

    @Option(
        name: .long,
        parsing: .upToNextOption,
        help: ArgumentHelp("The numbers of players to measure.", valueName: "count"))
    var rows: [Int] = [1_000, 100_000, 1_000_000]

    @Flag(name: .long, help: "Also measure 10,000,000 players (the naive observation is skipped there).")
    var large = false

    @Flag(name: .long, help: "Print one JSON object instead of the table.")
    var json = false

    @Option(name: .long, help: "The number of sequential writes whose latency is measured.")
    var samples = 1000

    // The child process that measures one mode on one database.
    @Option(name: .long, help: .hidden)
    var measure: BenchmarkMode?

    // Not --database: `livetable`'s own --database would take it.
    @Option(name: .customLong("measure-database"), help: .hidden)
    var database: String?

    @Option(name: .long, help: .hidden)
    var output: String?

    func validate() throws {
        guard rows.allSatisfy({ $0 > 0 }) else {
            throw ValidationError("--rows takes positive numbers of players.")
        }
        guard samples >= 5 else {
            throw ValidationError("--samples must be at least 5.")
        }
        if measure != nil && (database == nil || output == nil) {
            throw ValidationError("--measure needs --measure-database and --output.")
        }
    }

    func run() throws {
        if let measure, let database, let output {
            try runChild(mode: measure, path: database, output: output)
            return
        }
        let sizes = large ? rows + [10_000_000] : rows
        let suite = BenchmarkSuite(sizes: sizes)
        var report = try suite.run(log: Self.log) { mode, path in
            try Self.measureInChildProcess(mode: mode, path: path, samples: samples)
        }
        let otherProcesses = try OtherProcessBenchmark(directory: suite.directory).run(log: Self.log)
        report.other_processes = otherProcesses
        report.targets += otherProcesses.flatMap(\.targets)
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

    /// Measures one mode, and writes its figures as JSON to `output`.
    ///
    /// The main thread runs the main run loop, where the app loop runs, as
    /// in the app, until the measurement ends; its error is thrown here.
    private func runChild(mode: BenchmarkMode, path: String, output: String) throws {
        let benchmark = HallOfFameBenchmark(path: path, mode: mode, latencySamples: samples, log: Self.log)
        let result = MeasurementResult()
        DispatchQueue.global().async {
            let figures = Result { try benchmark.run() }
            DispatchQueue.main.async {
                MainActor.assumeIsolated { result.value = figures }
            }
        }
        try MainActor.assumeIsolated {
            while result.value == nil {
                _ = RunLoop.main.run(mode: .default, before: .distantFuture)
            }
            let figures = try result.value!.get()
            try JSONEncoder().encode(figures).write(to: URL(fileURLWithPath: output))
        }
    }

    /// Measures one mode in a child process, so that the peak memory of one
    /// measurement is not the peak of another.
    ///
    /// - throws: `ExitCode` when the child failed, after saying why on
    ///   standard error; a `CommandFailure` when it died of a signal.
    private static func measureInChildProcess(mode: BenchmarkMode, path: String, samples: Int) throws -> BenchmarkFigures {
        // The figures come back in a file rather than through a pipe: the
        // parent only has to wait for the child, which retries on EINTR.
        let output = path + ".\(mode.rawValue).json"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = [
            "bench", "--measure", mode.rawValue, "--measure-database", path, "--output", output,
            "--samples", "\(samples)",
        ]
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
            throw CommandFailure("measuring the \(mode.rawValue) observation failed: killed by signal \(signal)", status: 1)
        }
        return try JSONDecoder().decode(BenchmarkFigures.self, from: Data(contentsOf: URL(fileURLWithPath: output)))
    }

    private static func log(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}

extension BenchmarkMode: ExpressibleByArgument { }

/// The figures of the child's measurement, or its error, once done.
@MainActor
private final class MeasurementResult {
    var value: Result<BenchmarkFigures, any Error>?
}
