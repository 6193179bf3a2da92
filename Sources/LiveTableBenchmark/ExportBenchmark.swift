import Foundation

/// `livetable view FILE item --format csv` beside `sqlite3 -csv` on the
/// same rows: both commands run as processes, their output to /dev/null,
/// in turn, and the median of their wall-clock times is kept, with the
/// export's peak memory.
///
/// For example:
///
/// ```swift
/// let figures = try ExportBenchmark(path: "/tmp/items.sqlite", executable: "/usr/bin/livetable").run()
/// print(figures.livetable_csv_s, figures.sqlite3_csv_s)
/// ```
package struct ExportBenchmark: Sendable {
    /// The database file of `ViewerBenchmark.makeTable`.
    package var path: String
    /// The `livetable` executable.
    package var executable: String
    /// The number of runs of each command.
    package var runs: Int

    /// Creates a benchmark.
    package init(path: String, executable: String, runs: Int = 3) {
        self.path = path
        self.executable = executable
        self.runs = runs
    }

    /// The figures of the two exports.
    package struct Figures: Codable, Equatable, Sendable {
        /// `livetable view FILE item --format csv`, median seconds.
        package var livetable_csv_s: Double
        /// `sqlite3 -csv -header FILE 'SELECT * FROM item ORDER BY id'`, median seconds.
        package var sqlite3_csv_s: Double
        /// The peak resident memory of the `livetable` export.
        package var livetable_peak_rss_mb: Double
    }

    /// Runs each command `runs` times, in turn.
    ///
    /// - throws: An error when a command fails.
    package func run(log: (String) -> Void = { _ in }) throws -> Figures {
        var livetable: [Double] = []
        var sqlite3: [Double] = []
        var peak = 0.0
        for _ in 0..<max(1, runs) {
            let ours = try Self.time(executable, ["view", path, "item", "--format", "csv"])
            livetable.append(ours.seconds)
            peak = max(peak, ours.peakMB)
            sqlite3.append(try Self.time("sqlite3", ["-csv", "-header", path, "SELECT * FROM item ORDER BY id"]).seconds)
        }
        let figures = Figures(
            livetable_csv_s: Self.median(livetable), sqlite3_csv_s: Self.median(sqlite3), livetable_peak_rss_mb: peak)
        log(String(format: "export: livetable --format csv %.2f s, sqlite3 -csv %.2f s", figures.livetable_csv_s,
                   figures.sqlite3_csv_s))
        return figures
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    /// Runs `command` (looked up in PATH) to its end, its output to
    /// /dev/null; returns its wall-clock time and peak resident memory.
    private static func time(_ command: String, _ arguments: [String]) throws -> (seconds: Double, peakMB: Double) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let argv = ([command] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let start = DispatchTime.now()
        var pid: pid_t = 0
        let spawnError = posix_spawnp(&pid, command, &actions, nil, argv, environ)
        guard spawnError == 0 else {
            throw ExportBenchmarkError("cannot run \(command): \(String(cString: strerror(spawnError)))")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) == -1 {
            guard errno == EINTR else {
                throw ExportBenchmarkError("cannot wait for \(command): \(String(cString: strerror(errno)))")
            }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        guard status == 0 else {
            throw ExportBenchmarkError("\(command) \(arguments.joined(separator: " ")) failed (status \(status))")
        }
        // ru_maxrss is in kilobytes on Linux.
        return (seconds, Double(usage.ru_maxrss) / 1024)
    }
}

/// Why the export benchmark failed.
package struct ExportBenchmarkError: Error, CustomStringConvertible {
    package var description: String
    init(_ description: String) { self.description = description }
}
