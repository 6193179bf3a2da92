import Dispatch
import Foundation

/// What a screen benchmark saw, in order: the frames its host drew (or the
/// commits it counted), and the error that ends the measurement. The main
/// queue appends; the benchmark thread waits for an entry that matches.
///
/// For example:
///
/// ```swift
/// let frames = FrameLog<Frame>(timeout: 60)
/// let before = frames.count
/// onMain { host.loop.send(.key(.end)) }
/// let frame = try frames.wait(after: before, orThrow: ViewerScreenBenchmarkError("End")) { frame, _ in
///     frame.anchor == .last
/// }
/// ```
// @unchecked Sendable: every property is protected by `condition`.
final class FrameLog<Entry>: @unchecked Sendable {
    private let condition = NSCondition()
    private var entries: [Entry] = []
    private var failure: Error?
    private let timeout: Double
    private let slim: (inout Entry) -> Void

    /// Creates an empty log.
    ///
    /// - parameter timeout: How long `wait` waits for a matching entry.
    /// - parameter slim: Lightens the entry that stops being the last one,
    ///   so that only the last entry is kept whole and the log does not weigh
    ///   on the peak memory.
    init(timeout: Double, slim: @escaping (inout Entry) -> Void = { _ in }) {
        self.timeout = timeout
        self.slim = slim
    }

    /// The number of entries so far.
    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return entries.count
    }

    /// Appends an entry and wakes the waiting thread.
    func append(_ entry: Entry) {
        condition.lock()
        defer { condition.unlock() }
        if !entries.isEmpty { slim(&entries[entries.count - 1]) }
        entries.append(entry)
        condition.broadcast()
    }

    /// Ends the measurement: every wait, current and later, throws the
    /// first error it is given.
    func fail(_ error: Error) {
        condition.lock()
        defer { condition.unlock() }
        failure = failure ?? error
        condition.broadcast()
    }

    /// Reads the entries after the first `index` ones, and the one before
    /// them if any.
    func read<T>(since index: Int, _ body: (_ previous: Entry?, _ entries: ArraySlice<Entry>) -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body(index > 0 ? entries[index - 1] : nil, entries[index...])
    }

    /// Waits for an entry appended after the first `index` ones that
    /// matches `predicate`, given the entry and whether it is the last one.
    ///
    /// - parameter orThrow: The error thrown when no entry matches in time.
    func wait(
        after index: Int,
        orThrow timeoutError: @autoclosure () -> Error,
        where predicate: (_ entry: Entry, _ isLast: Bool) -> Bool) throws -> Entry
    {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        var checked = index
        while true {
            if let failure { throw failure }
            while checked < entries.count {
                if predicate(entries[checked], checked == entries.count - 1) { return entries[checked] }
                checked += 1
            }
            if !condition.wait(until: deadline) {
                throw timeoutError()
            }
        }
    }
}

/// Runs `body` on the main queue, where the app loop and its host live, and
/// returns its result. Call it off the main thread.
func onMain<T: Sendable>(_ body: @MainActor () -> T) -> T {
    DispatchQueue.main.sync {
        MainActor.assumeIsolated(body)
    }
}

/// A monotonic clock, in seconds.
func now() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1_000_000_000
}

/// A duration in seconds, in milliseconds with two decimals.
func milliseconds(_ seconds: Double) -> String {
    String(format: "%.2f", seconds * 1000)
}
