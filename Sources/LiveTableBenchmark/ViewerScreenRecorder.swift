import Foundation
import GRDB
import LiveTableCore
import Synchronization

/// The viewer's program on the benchmarks' host, whatever its data source,
/// and what each drawn screen showed: the part that the viewer's
/// benchmarks share (`ViewerScreenBenchmark` on a SQLite file,
/// `PostgresBenchmark` on a server). The benchmark thread presses keys and
/// waits for a screen; the loop runs on the main queue.
///
/// For example:
///
/// ```swift
/// // Off the main thread, while the main thread runs its run loop:
/// let screen = ViewerScreenRecorder(frameTimeout: 60)
/// defer { screen.close() }
/// let firstRows = try screen.openTable("item", of: dataSource, since: now())
/// ```
// @unchecked Sendable: the frame log protects itself, the awaited value and
// the error count are in `shared`; the loop and its host are only touched on
// the main queue.
final class ViewerScreenRecorder: @unchecked Sendable {
    /// What a drawn screen showed, in short.
    struct Frame {
        var time: Double
        var anchor: RowAnchor?
        var hasRows: Bool
        /// The sort column of the window's ordering (nil: the natural order).
        var sortColumn: String?
        /// True when a visible row holds the awaited value.
        var showsAwaited: Bool
        /// The status line's message.
        var status: String?
        /// True while a search runs.
        var isSearching: Bool
        /// The filter of the rows on screen.
        var filter: String?
        /// The row count, when exact.
        var exactCount: Int?
        /// The rows each update scans, with a filter that scans.
        var filterScannedRows: Int?
        /// What the sheet on screen is.
        var target: ViewerTarget
        /// What `probe` read on this screen.
        var probed: Int64?
    }

    private let frames: FrameLog<Frame>
    /// Locked while a frame is recorded. While `errorsAreFatal` is false,
    /// an error on the viewer's status line is counted rather
    /// than fatal: a writer that commits without pause may lock a read out
    /// for longer than the viewer's busy timeout, and the viewer recovers.
    private let shared = Mutex((awaited: DatabaseValue?.none, errorsAreFatal: true, errorCount: 0))
    /// Read from each screen into `Frame.probed`; set before the screen opens.
    private let probe: (@Sendable (ViewerState) -> Int64?)?

    // Main queue only.
    private var host: BenchmarkHost<ViewerProgram>?

    /// A screen that no program draws yet.
    ///
    /// - parameter frameTimeout: How long to wait for an expected screen
    ///   before failing.
    init(frameTimeout: Double, probe: (@Sendable (ViewerState) -> Int64?)? = nil) {
        frames = FrameLog(timeout: frameTimeout)
        self.probe = probe
    }

    /// Starts the viewer's program on `viewed`, as `livetable view` does
    /// once it has opened it. Call it off the main thread.
    private func open(_ dataSource: any ViewerDataSource, _ viewed: ViewedSource) {
        onMain {
            self.host = BenchmarkHost(
                program: ViewerProgram(dataSource: dataSource),
                state: .initial(
                    databaseName: dataSource.name, opened: viewed,
                    width: BenchmarkHost<ViewerProgram>.width, height: BenchmarkHost<ViewerProgram>.height))
            { [weak self] state in
                self?.recordFrame(state)
            }
        }
    }

    /// Opens `table` of `dataSource` as `livetable view` does, starts the
    /// loop, and waits for the first screen with rows.
    ///
    /// - returns: The time of that screen, in seconds since `start`.
    /// - important: Close the screen (`close()`) on error too: the loop
    ///   of a failed measurement must stop.
    func openTable(_ table: String, of dataSource: any ViewerDataSource, since start: Double) throws -> Double {
        let viewed = try dataSource.open(.table(table), sortColumn: nil, descending: false, ticket: ReadTicket())
        open(dataSource, viewed)
        return try waitForFrame(after: 0, stage: "first rows") { $0.hasRows }.time - start
    }

    /// Stops the loop: its subscriptions end. Call it off the main thread.
    func close() {
        onMain {
            self.host?.loop.stop()
            self.host = nil
        }
    }

    // MARK: - Keys and state (benchmark thread)

    /// Sends keys to the loop, in order.
    func press(_ keys: [Key]) {
        onMain {
            for key in keys {
                self.host?.loop.send(.key(key))
            }
        }
    }

    /// Reads the loop's state on the main queue (nil once closed).
    func state<T: Sendable>(_ body: @escaping @MainActor (ViewerState) -> T) -> T? {
        onMain { self.host.map { body($0.loop.state) } }
    }

    /// Puts the column cursor on `column`, with the arrow keys.
    func moveCursor(to column: String) throws {
        let cursor = state { state -> (current: Int, target: Int?) in
            let table = state.table
            return (table?.currentColumn ?? 0, table?.viewed.source.columnNames.firstIndex(of: column))
        }
        guard let cursor, let target = cursor.target else { throw ViewerScreenBenchmarkError("no column \(column)") }
        press(Array(repeating: target < cursor.current ? Key.left : .right, count: abs(target - cursor.current)))
    }

    // MARK: - Latencies (benchmark thread)

    /// Presses `keys`, and returns the time from the press to the first
    /// screen after it that matches `predicate`, in seconds.
    func latency(of keys: [Key], stage: String, until predicate: (Frame) -> Bool) throws -> Double {
        let framesBefore = frameCount
        let pressed = now()
        press(keys)
        return try waitForFrame(after: framesBefore, stage: stage, where: predicate).time - pressed
    }

    /// End, then Home, `count` times each: the time from each key to the
    /// screen of the window at that end.
    func jumpLatencies(count: Int) throws -> (end: LatencySummary, home: LatencySummary) {
        var ends: [Double] = []
        var homes: [Double] = []
        for _ in 0..<max(1, count) {
            ends.append(try latency(of: [.end], stage: "End") { $0.anchor == .last && $0.hasRows })
            homes.append(try latency(of: [.home], stage: "Home") { $0.anchor == .first && $0.hasRows })
        }
        return (LatencySummary(seconds: ends)!, LatencySummary(seconds: homes)!)
    }

    /// The time from another session's commit of `value` into a visible
    /// row to the first screen that shows it, in seconds.
    ///
    /// - parameter commit: Commits, and returns when it was done, in
    ///   `DispatchTime` nanoseconds (as `SQLiteCommand.run` and
    ///   `PostgresSession.run` do).
    func latencyToScreen(of value: String, stage: String, commit: () throws -> UInt64) throws -> Double {
        let framesBefore = frameCount
        setAwaited(value.databaseValue)
        defer { setAwaited(nil) }
        let committed = try commit()
        let frame = try waitForFrame(after: framesBefore, stage: stage) { $0.showsAwaited }
        return max(0, frame.time - Double(committed) / 1e9)
    }

    // MARK: - Waiting (benchmark thread)

    /// The number of screens drawn so far.
    var frameCount: Int {
        frames.count
    }

    /// What `probe` read on each screen after the first `index`, and when.
    func probes(since index: Int) -> [(time: Double, value: Int64?)] {
        frames.read(since: index) { _, entries in entries.map { ($0.time, $0.probed) } }
    }

    /// Makes the screens say whether a visible row holds `value` (nil:
    /// none is awaited).
    func setAwaited(_ value: DatabaseValue?) {
        shared.withLock { $0.awaited = value }
    }

    /// Sets whether errors are fatal, and returns the errors counted since
    /// the last call.
    @discardableResult
    func setErrorsAreFatal(_ fatal: Bool) -> Int {
        shared.withLock { shared in
            shared.errorsAreFatal = fatal
            defer { shared.errorCount = 0 }
            return shared.errorCount
        }
    }

    /// Waits for a frame drawn after the first `index` frames that matches
    /// `predicate`.
    ///
    /// - parameter stage: What is awaited, for the error when it does not
    ///   come in time.
    func waitForFrame(after index: Int, stage: String, where predicate: (Frame) -> Bool) throws -> Frame {
        let error = ViewerScreenBenchmarkError("the viewer did not draw the expected screen in time (\(stage))")
        return try frames.wait(after: index, orThrow: error) { frame, _ in predicate(frame) }
    }

    // MARK: - The screen (main queue)

    /// Logs a drawn screen: the anchor of its window, whether it shows
    /// rows, and whether a visible row holds the awaited value. An error on
    /// the status line ends the measurement, unless errors are not fatal.
    @MainActor
    private func recordFrame(_ state: ViewerState) {
        let time = now()
        shared.withLock { recordFrame(state, at: time, &$0) }
    }

    /// `recordFrame(_:)` with `shared` locked.
    @MainActor
    private func recordFrame(
        _ state: ViewerState, at time: Double, _ shared: inout (awaited: DatabaseValue?, errorsAreFatal: Bool, errorCount: Int))
    {
        if case let .error(message)? = state.message {
            shared.errorCount += 1
            if shared.errorsAreFatal {
                frames.fail(ViewerScreenBenchmarkError("the viewer failed: \(message)"))
                return
            }
        }
        guard let table = state.table, let window = table.window else { return }
        var showsAwaited = false
        if let awaited = shared.awaited {
            let visible = window.rows.dropFirst(table.scrollTop).prefix(state.pageRows)
            showsAwaited = visible.contains { $0.contains(awaited) }
        }
        var status: String?
        if case let .notice(text)? = state.message { status = text }
        frames.append(Frame(
            time: time, anchor: window.request.anchor, hasRows: !window.rows.isEmpty,
            sortColumn: window.request.ordering.sortColumn, showsAwaited: showsAwaited,
            status: status, isSearching: table.pendingSearch != nil, filter: table.viewed.source.filter,
            exactCount: table.rowCountIsApproximate ? nil : table.rowCount,
            filterScannedRows: table.filterScannedRows?.value, target: table.viewed.target, probed: probe?(state)))
    }
}
