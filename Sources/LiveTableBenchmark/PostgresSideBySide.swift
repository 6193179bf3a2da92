import Foundation
import PostgresServer
#if canImport(Glibc)
import Glibc
#endif

/// The viewer beside psql on the same table, in the same run (issue 25,
/// item 11). Each program is a process of its own, timed from its start,
/// alternately, and the median of `runs` is kept:
///
/// - the first screen: `livetable view URL tracks` in a terminal (a pseudo
///   terminal of 160 × 50) until row 40 is drawn, beside `psql -c 'SELECT
///   * FROM tracks ORDER BY id LIMIT 40'` until it prints that row;
/// - the CSV export: `livetable view URL tracks --format csv` beside `psql
///   -c "COPY (SELECT * FROM tracks ORDER BY id) TO STDOUT WITH (FORMAT
///   csv, HEADER)"`, both to /dev/null, until they exit.
struct PostgresSideBySide {
    struct Figures {
        var viewerFirstScreenMs: Double
        var psqlLimitMs: Double
        var viewerCSVSeconds: Double
        var psqlCopySeconds: Double
    }

    let server: PostgresServer
    let database: String
    let table: String
    let runs: Int
    let log: (String) -> Void

    func run() throws -> Figures {
        let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let url = server.url(role: server.viewer, database: database, host: .tcp, withPassword: false)
        let environment = ["PGPASSWORD": server.viewer.password, "TERM": "xterm-256color"]
        let psql = ["psql", "-X", "-q", "-P", "pager=off", "-d", url, "-c"]
        // Row 40's title, as both print it (ncurses may move the cursor
        // over the blanks after it: no trailing space).
        let marker = Array("track 40".utf8)
        var screens: [(Double, Double)] = []
        for _ in 0..<max(1, runs) {
            let viewer = try Self.timeToOutput([binary, "view", url, table], environment, until: marker)
            let limit = try Self.timeToOutput(
                psql + ["SELECT * FROM \(table) ORDER BY id LIMIT 40"], environment, until: marker)
            screens.append((viewer, limit))
        }
        var exports: [(Double, Double)] = []
        for _ in 0..<max(1, runs) {
            let viewer = try Self.timeToExit([binary, "view", url, table, "--format", "csv"], environment)
            let copy = try Self.timeToExit(
                psql + ["COPY (SELECT * FROM \(table) ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER)"], environment)
            exports.append((viewer, copy))
        }
        func median(_ values: [Double]) -> Double {
            values.sorted()[values.count / 2]
        }
        let figures = Figures(
            viewerFirstScreenMs: median(screens.map(\.0)) * 1000, psqlLimitMs: median(screens.map(\.1)) * 1000,
            viewerCSVSeconds: median(exports.map(\.0)), psqlCopySeconds: median(exports.map(\.1)))
        log(String(format: "postgres: first screen from the process start, the viewer %.1f ms, psql LIMIT 40 %.1f ms; "
                   + "CSV, the viewer %.2f s, psql COPY %.2f s (medians of %d)", figures.viewerFirstScreenMs,
                   figures.psqlLimitMs, figures.viewerCSVSeconds, figures.psqlCopySeconds, max(1, runs)))
        return figures
    }

    /// Runs `arguments` in a pseudo terminal of 160 × 50 and returns the
    /// time from its start to the output of `marker`; then ends it.
    static func timeToOutput(_ arguments: [String], _ environment: [String: String], until marker: [UInt8]) throws -> Double {
        guard let open = PseudoTerminal.open, let grant = PseudoTerminal.grant, let unlock = PseudoTerminal.unlock,
              let ptsname = PseudoTerminal.name
        else {
            throw ViewerScreenBenchmarkError("the C library has no pseudo-terminal functions")
        }
        let master = open(O_RDWR | O_NOCTTY)
        guard master >= 0, grant(master) == 0, unlock(master) == 0, let name = ptsname(master) else {
            throw ViewerScreenBenchmarkError("no pseudo terminal")
        }
        defer { close(master) }
        let terminal = try FileHandle(forUpdating: URL(fileURLWithPath: String(cString: name)))
        defer { try? terminal.close() }
        // stty sets the size (an ioctl, which Swift can not call).
        let stty = Process()
        stty.executableURL = URL(fileURLWithPath: "/bin/stty")
        stty.arguments = ["rows", "50", "cols", "160"]
        stty.standardInput = terminal
        try stty.run()
        stty.waitUntilExit()
        let process = try process(arguments, environment, input: terminal, output: terminal)
        let started = now()
        try process.run()
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = started + 60
        defer {
            if process.isRunning { process.terminate() }
            // Its last screen read, so that it never waits on a full terminal.
            while process.isRunning {
                var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                if poll(&descriptor, 1, 50) > 0 { _ = read(master, &buffer, buffer.count) }
            }
        }
        while now() < deadline {
            var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 100) > 0 else { continue }
            let count = read(master, &buffer, buffer.count)
            guard count > 0 else { break }
            output.append(contentsOf: buffer[0..<count])
            if output.count >= marker.count, contains(output.suffix(count + marker.count), marker) {
                return now() - started
            }
        }
        throw ViewerScreenBenchmarkError("\(arguments[0]) printed no \(String(decoding: marker, as: UTF8.self)) in time: "
            + String(decoding: output.suffix(300), as: UTF8.self))
    }

    /// Runs `arguments`, its output to /dev/null, and returns the time
    /// from its start to its exit.
    static func timeToExit(_ arguments: [String], _ environment: [String: String]) throws -> Double {
        let null = try FileHandle(forUpdating: URL(fileURLWithPath: "/dev/null"))
        defer { try? null.close() }
        let process = try process(arguments, environment, input: null, output: null)
        let started = now()
        try process.run()
        process.waitUntilExit()
        let seconds = now() - started
        guard process.terminationStatus == 0 else {
            throw ViewerScreenBenchmarkError("\(arguments.prefix(2).joined(separator: " ")) failed (\(process.terminationStatus))")
        }
        return seconds
    }

    private static func process(
        _ arguments: [String], _ environment: [String: String], input: FileHandle, output: FileHandle) throws -> Process
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0].hasPrefix("/") ? arguments[0] : "/usr/bin/" + arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        return process
    }

    private static func contains(_ bytes: some Collection<UInt8>, _ marker: [UInt8]) -> Bool {
        let bytes = Array(bytes)
        guard bytes.count >= marker.count else { return false }
        return (0...(bytes.count - marker.count)).contains { bytes[$0..<($0 + marker.count)].elementsEqual(marker) }
    }
}

/// The C library's pseudo-terminal functions, which Glibc's module does not
/// declare (they need `_XOPEN_SOURCE`): looked up by name.
private enum PseudoTerminal {
    static let open = function("posix_openpt", as: (@convention(c) (Int32) -> Int32).self)
    static let grant = function("grantpt", as: (@convention(c) (Int32) -> Int32).self)
    static let unlock = function("unlockpt", as: (@convention(c) (Int32) -> Int32).self)
    static let name = function("ptsname", as: (@convention(c) (Int32) -> UnsafeMutablePointer<CChar>?).self)

    private static func function<F>(_ name: String, as type: F.Type) -> F? {
        // RTLD_DEFAULT: the C library is always loaded.
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: type) }
    }
}
