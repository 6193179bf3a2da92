import Foundation
import LiveTableCore
import PostgresServer

/// Measures the viewer on PostgreSQL (`livetable view postgres://… tracks`,
/// issue 19) on the app's own loop: `AppLoop` runs the real
/// `ViewerProgram` on a `PostgresDataSource`, opened as the command opens it,
/// with the benchmarks' host, which draws nothing. The server is a
/// throwaway cluster of its own (`PostgresServer`, with
/// `pg_stat_statements` loaded), reached on TCP at 127.0.0.1; its `tracks`
/// table is made with `generate_series` (a primary key, text and integer
/// columns, an index on `artist`), vacuumed and analysed. The other session
/// is a `psql` process of the `writer` role, its connection kept open
/// (`PostgresSession`); the viewer connects as the `viewer` role, which may
/// only read.
///
/// It measures, in order: the time from opening the connection to the
/// first screen with rows; End and Home, from the key to the screen of the
/// new window; the latency from the other session's commit of an update of
/// a visible row to the screen that shows it, the commits spaced so that
/// they fall at every moment of the poll's cycle; then, while nothing is
/// written, the viewer's CPU (its poll running), the CPU of its backends on
/// the server (from /proc: the server runs on this machine), and the
/// statements it runs there (`pg_stat_statements`); and the peak memory.
///
/// For example:
///
/// ```swift
/// // On the main thread, which must run the main run loop meanwhile:
/// let benchmark = PostgresBenchmark(samples: PostgresBenchmark.Samples())
/// DispatchQueue.global().async {
///     let figures = try benchmark.run()
///     print(figures.commit_p50_ms)
/// }
/// RunLoop.main.run()
/// ```
///
/// `run()` must be called off the main thread, while the main thread runs
/// its run loop: the loop runs there.
package final class PostgresBenchmark: @unchecked Sendable {
    /// Why the section can not run on this machine (no PostgreSQL server
    /// installed), nil when it can.
    package static var unavailableReason: String? { PostgresServer.unavailableReason }

    // @unchecked Sendable: the screen protects itself; the other
    // properties are constants.

    /// How much a run measures.
    package struct Samples: Sendable {
        /// The number of rows of the table.
        package var rows = 2_000_000
        /// The number of End and of Home presses.
        package var jumps = 10
        /// The number of commits of the other session.
        package var commits = 100
        /// How long the idle figures are measured, in seconds.
        package var idleSeconds: Double = 5
        /// How long the server must have written nothing before the idle
        /// figures are measured, in seconds: 30 covers what it writes on
        /// its own after the last commits (see `waitUntilTheServerIsQuiet`).
        package var quietSeconds: Double = 30
        /// How long the busy writer writes at each rate, alone and with
        /// three viewers, in seconds (0: not measured).
        package var busySeconds: Double = 20
        /// How many times each program runs beside psql (the medians).
        package var sideBySideRuns = 5

        /// The default samples of `livetable bench`.
        package init() {}
    }

    /// The database and table that the benchmark makes.
    static let database = "bench"
    static let table = "tracks"

    private let samples: Samples
    private let log: (String) -> Void
    /// The viewer's program on the benchmarks' host, and its screens.
    private let screen: ViewerScreenRecorder

    /// Creates a benchmark.
    ///
    /// - parameter samples: How much the run measures.
    /// - parameter frameTimeout: How long to wait for an expected screen
    ///   before failing.
    /// - parameter log: Where to report progress.
    package init(samples: Samples = Samples(), frameTimeout: Double = 60, log: @escaping (String) -> Void = { _ in }) {
        self.samples = samples
        self.log = log
        screen = ViewerScreenRecorder(frameTimeout: frameTimeout)
    }

    /// Starts a server, makes the table, measures, and removes the server.
    /// Call it off the main thread.
    ///
    /// - returns: The figures.
    /// - throws: The server's error (PostgreSQL missing, for example), or
    ///   a screen that did not come in time.
    package func run() throws -> PostgresFigures {
        precondition(!Thread.isMainThread, "The app loop runs on the main queue")
        log("postgres: starting a server…")
        let server = try PostgresServer(settings: ["shared_preload_libraries": "pg_stat_statements"])
        defer { server.remove() }
        var started = now()
        log("postgres: generating a table of \(samples.rows.formatted()) rows…")
        try Self.makeTable(on: server, rows: samples.rows)
        log(String(format: "postgres: generated in %.1f s", now() - started))
        let writer = try server.session(database: Self.database, as: server.writer)
        defer { writer.close() }
        // The superuser's session, for the server's figures.
        let observer = try server.session(database: Self.database)
        defer { observer.close() }

        // First rows: connect and open the table as `livetable view
        // postgres://… tracks` does, start the loop, draw.
        // The launch's count statements, from here.
        try observer.execute("SELECT pg_stat_statements_reset();")
        started = now()
        let (dataSource, pollInterval) = try Self.openDataSource(
            server.url(role: server.viewer, database: Self.database, host: .tcp))
        // On error too: the loop of a failed measurement stops.
        defer { screen.close() }
        let firstRows = try screen.openTable(Self.table, of: dataSource, since: started)
        log("postgres: first rows in \(milliseconds(firstRows)) ms")
        let launch = try launchCount(writer, observer, since: started)


        let (end, home) = try screen.jumpLatencies(count: samples.jumps)
        log("postgres: End \(milliseconds(end.p50 / 1000)) ms, Home \(milliseconds(home.p50 / 1000)) ms (p50)")

        let commits = try commitLatencies(writer, pollInterval: pollInterval)
        log("postgres: another session's commit on screen p50 \(milliseconds(commits.p50 / 1000)) ms, "
            + "p99 \(milliseconds(commits.p99 / 1000)) ms (\(commits.count) commits)")

        let idle = try idleCosts(observer, viewer: server.viewer.name)
        log(String(format: "postgres: idle, the viewer %.2f ms/s of CPU; its %d backends %.2f ms/s, "
                   + "%.1f statements/s, %.3f ms/s executing", idle.viewerCPU, idle.backends, idle.serverCPU,
                   idle.statements, idle.execution))

        // The side by side runs processes of the livetable binary: `livetable bench` only.
        screen.close()
        let sideBySide = samples.sideBySideRuns > 0
            ? try PostgresSideBySide(
                server: server, database: Self.database, table: Self.table, runs: samples.sideBySideRuns, log: log).run()
            : nil

        var busy: [PostgresFigures.BusyWriterFigures] = []
        if samples.busySeconds > 0 {
            let writer = PostgresBusyWriter(
                server: server, database: Self.database, table: Self.table, seconds: samples.busySeconds, log: log)
            for rate in [500, 2000] {
                let figures = try writer.run(rate: rate)
                busy.append(PostgresFigures.BusyWriterFigures(
                    commits_per_s: rate, writer_ms_alone: figures.aloneLatencyMs,
                    writer_ms_with_viewers: figures.withViewersLatencyMs,
                    viewer_server_cpu_percent: figures.viewerCPUPercent))
            }
        }

        var figures = PostgresFigures(
            rows: samples.rows, first_rows_ms: firstRows * 1000, end_ms: end.p50, home_ms: home.p50,
            jumps: end.count, poll_interval_ms: pollInterval * 1000,
            commit_p50_ms: commits.p50, commit_p99_ms: commits.p99, commit_samples: commits.count,
            idle_cpu_ms_per_s: idle.viewerCPU, idle_seconds: idle.seconds, idle_screens: idle.screens,
            server_cpu_ms_per_s: idle.serverCPU, server_backends: idle.backends,
            server_statements_per_s: idle.statements, server_exec_ms_per_s: idle.execution,
            poll_statement: idle.pollStatement,
            peak_rss_mb: Double(ProcessMetrics.peakResidentBytes()) / 1_048_576)
        figures.busy = busy.isEmpty ? nil : busy
        figures.launch_count_ms = launch.seconds * 1000
        figures.launch_count_statements = launch.statements
        figures.psql = sideBySide.map {
            PostgresFigures.SideBySideFigures(
                viewer_first_screen_ms: $0.viewerFirstScreenMs, psql_limit_ms: $0.psqlLimitMs,
                viewer_csv_s: $0.viewerCSVSeconds, psql_copy_s: $0.psqlCopySeconds)
        }
        return figures
    }

    // MARK: - Measures

    /// The time from opening to the exact count on screen, while the token
    /// moves (three commits to another table while the count runs, as
    /// autovacuum's), and the count statements the viewer ran by then.
    private func launchCount(
        _ writer: PostgresSession, _ observer: PostgresSession, since started: Double) throws -> (seconds: Double, statements: Int)
    {
        for _ in 0..<3 {
            try writer.run("INSERT INTO marks VALUES (now());")
            Thread.sleep(forTimeInterval: 0.03)
        }
        let frame = try screen.waitForFrame(after: 0, stage: "the launch's exact count") { $0.exactCount != nil }
        let statements = try observer.output("""
            SELECT coalesce(sum(calls), 0) FROM pg_stat_statements
            WHERE query ILIKE 'SELECT COUNT(*) FROM %' AND query NOT ILIKE '%WHERE%'
              AND userid = (SELECT oid FROM pg_roles WHERE rolname = 'viewer');
            """)
        let count = Int(statements.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        log("postgres: the exact count on screen \(milliseconds(frame.time - started)) ms after opening; "
            + "\(count) count statements")
        return (frame.time - started, count)
    }

    /// The latencies from the other session's commits to the screen: an
    /// update of one of the first rows (the screen is on them, after Home)
    /// at a time, each after a pause of random length, so that the commits
    /// fall at every moment of the poll's cycle, as a writer's do.
    private func commitLatencies(_ writer: PostgresSession, pollInterval: Double) throws -> LatencySummary {
        var latencies: [Double] = []
        for index in 0..<max(1, samples.commits) {
            Thread.sleep(forTimeInterval: 0.01 + Double.random(in: 0..<2 * pollInterval))
            let value = "live \(index)"
            latencies.append(try screen.latencyToScreen(of: value, stage: "commit \(index)") {
                try writer.run("UPDATE \(Self.table) SET note = '\(value)' WHERE id = \(1 + index % 10);")
            })
        }
        let slowest = latencies.sorted().suffix(3).reversed().map { milliseconds($0) }
        log("postgres: the slowest commits to screen: \(slowest.joined(separator: ", ")) ms")
        return LatencySummary(seconds: latencies)!
    }

    /// What the viewer costs while nothing is written, per second, over
    /// `samples.idleSeconds`: its CPU, its backends' CPU (from /proc: the
    /// server runs on this machine), and its statements on the server.
    private func idleCosts(_ observer: PostgresSession, viewer: String) throws -> IdleCosts {
        // A statement's first read of a catalog page that holds dead rows
        // prunes it, which writes to the WAL and moves the viewer's token,
        // even in a read-only statement: the observer's statements run
        // once before the server is quiet, and the same ones again after
        // write nothing.
        let backends = try observer.execute("""
            SELECT pid FROM pg_stat_activity
            WHERE application_name = 'livetable' AND datname = current_database();
            """).compactMap { Int32($0) }
        guard !backends.isEmpty else {
            throw ViewerScreenBenchmarkError("no backend of the viewer (application_name = 'livetable')")
        }
        func serverCPU() -> Double {
            backends.compactMap { ProcessMetrics.cpuSeconds(ofProcess: $0) }.reduce(0, +)
        }
        try observer.execute("SELECT pg_stat_statements_reset();")
        // By then the highlights of the last commits have faded (in 2.6 s:
        // ChangeHighlighter's strong and fade durations), and the reads
        // that the last move of the WAL asked for have ended: nothing
        // should draw.
        try waitUntilTheServerIsQuiet(observer)
        try observer.execute("SELECT pg_stat_statements_reset();")
        let framesBefore = screen.frameCount
        // The viewer's CPU from getrusage, which counts its threads that
        // ended too, its backends' from /proc.
        let viewerBefore = ProcessMetrics.cpuSeconds()
        let serverBefore = serverCPU()
        let started = now()
        Thread.sleep(forTimeInterval: samples.idleSeconds)
        let viewerAfter = ProcessMetrics.cpuSeconds()
        let serverAfter = serverCPU()
        let seconds = now() - started
        let screens = screen.frameCount - framesBefore
        // The viewer's statements since the reset, the most frequent first:
        // the poll.
        let statements = try observer.execute("""
            SELECT calls, total_exec_time, regexp_replace(query, '\\s+', ' ', 'g')
            FROM pg_stat_statements
            WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND userid = (SELECT oid FROM pg_roles WHERE rolname = '\(viewer)')
            ORDER BY calls DESC;
            """).map { $0.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false) }
        for statement in statements.prefix(5) {
            log("postgres: while idle, the viewer's statement " + statement.joined(separator: " | "))
        }
        let calls = statements.compactMap { $0.first.flatMap { Double($0) } }.reduce(0, +)
        let execution = statements.compactMap { $0.count > 1 ? Double($0[1]) : nil }.reduce(0, +)
        return IdleCosts(
            seconds: seconds, screens: screens,
            viewerCPU: (viewerAfter - viewerBefore) * 1000 / seconds,
            serverCPU: (serverAfter - serverBefore) * 1000 / seconds, backends: backends.count,
            statements: calls / seconds, execution: execution / seconds,
            pollStatement: statements.first.flatMap { $0.count > 2 ? String($0[2]) : nil })
    }

    /// Waits until the server writes nothing, for the idle figures: no
    /// move of the WAL position for `samples.quietSeconds` (at most three
    /// times as long in all). After the last commits, the server writes on
    /// its own: the pruning of the pages that the updates left dead rows
    /// in, done by the next read of them (the viewer's), and a record of
    /// its running transactions for the standbys, which the background
    /// writer adds 15 s after the last write, or up to 10 s later when it
    /// hibernates (`LogStandbySnapshot`, `bgwriter.c`). The viewer's token,
    /// the snapshot, moves for none of them (a token of the WAL position
    /// did, and read the window and counted the rows again each time); the
    /// wait is kept so that the server's own CPU is measured at rest, as in
    /// the figures before.
    private func waitUntilTheServerIsQuiet(_ observer: PostgresSession) throws {
        let query = "SELECT pg_current_wal_insert_lsn();"
        var position = try observer.output(query)
        var since = now()
        let deadline = since + 3 * samples.quietSeconds
        while now() - since < samples.quietSeconds, now() < deadline {
            Thread.sleep(forTimeInterval: 0.2)
            let current = try observer.output(query)
            if current != position {
                position = current
                since = now()
            }
        }
        log(String(format: "postgres: the server wrote nothing for %.0f s", now() - since))
    }

    private struct IdleCosts {
        var seconds: Double
        var screens: Int
        var viewerCPU: Double
        var serverCPU: Double
        var backends: Int
        var statements: Double
        var execution: Double
        var pollStatement: String?
    }

    // MARK: - Support

    /// The viewer's data source on `url`, as `livetable view` opens it, and
    /// the interval of its poll, in seconds.
    private static func openDataSource(_ url: String) throws -> (any ViewerDataSource, Double) {
        // The settings of `livetable view` without options.
        let database = try PostgresDataSource(url)
        return (database, database.settings.pollInterval)
    }

    /// Makes the database and its `tracks` table of `rows` rows: a primary
    /// key, text and integer columns of varied values, an index on
    /// `artist`, a `note` column that the other session updates; vacuumed
    /// and analysed, as a table at rest.
    static func makeTable(on server: PostgresServer, rows: Int) throws {
        try server.createDatabase(database)
        try server.psql("CREATE EXTENSION pg_stat_statements;", database: database)
        // bigint: i * 15485863 overflows an integer.
        try server.psql("""
            CREATE TABLE \(table) (
                id bigint PRIMARY KEY,
                title text NOT NULL,
                artist text NOT NULL,
                album text NOT NULL,
                duration_ms integer NOT NULL,
                plays integer NOT NULL,
                note text
            );
            INSERT INTO \(table)
            SELECT i, 'track ' || i, 'artist ' || (i * 7919 % 5000), 'album ' || (i * 104729 % 40000),
                   90000 + i * 7919 % 300000, i * 15485863 % 1000000, NULL
            FROM generate_series(1::bigint, \(rows)) AS i;
            CREATE INDEX \(table)_artist ON \(table) (artist);
            CREATE TABLE marks (at timestamptz);
            VACUUM (ANALYZE) \(table);
            """, database: database, as: server.writer, timeout: 1800)
    }
}
