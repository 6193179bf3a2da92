import Foundation

/// How often an observation reads again while another process commits
/// without pause.
///
/// Each read of a rollback-journal file (DELETE, TRUNCATE, PERSIST) holds
/// SQLite's shared lock, and a writer that meets it waits: the `sqlite3`
/// command's busy handler sleeps 1 ms, then longer. Reading again after
/// each commit of a busy writer can halve its commits per second. A paced
/// observation pauses after each read, for as long as it takes to keep its
/// reads within a share of the time (`dutyCycle`), and at least
/// `minimumPause`:
///
/// - the first commit after a quiet spell (no read, and no pause, going
///   on) is read at once;
/// - the commits that come during a read or its pause make one read, when
///   the pause ends: the last commit of a burst is always read;
/// - during a burst, reads take at most `dutyCycle` of the time.
///
/// For example:
///
/// ```swift
/// // Reads take at most a tenth of the time while commits come.
/// let pacing = RefreshPacing.dutyCycle(0.1, minimumPause: 0.002)
/// pacing.pause(afterReadingFor: 0.001) // 0.009
/// ```
public struct RefreshPacing: Sendable, Hashable {
    /// The share of the time that reads may take while commits come, from
    /// 0.001 to 1.
    public let dutyCycle: Double
    /// The shortest pause after a read, in seconds.
    public let minimumPause: TimeInterval

    /// No pacing: a read starts as soon as the previous one ends, if
    /// commits came meanwhile.
    ///
    /// For example:
    ///
    /// ```swift
    /// RefreshPacing.none.pause(afterReadingFor: 0.5) // 0
    /// ```
    public static let none = RefreshPacing(dutyCycle: 1, minimumPause: 0)

    /// Reads take at most `share` of the time while commits come, and
    /// each read is followed by a pause of at least `minimumPause`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let pacing = RefreshPacing.dutyCycle(0.1, minimumPause: 0.05)
    /// ```
    ///
    /// - parameter share: The share of the time, from 0.001 to 1 (values
    ///   out of range are brought into it).
    /// - parameter minimumPause: The shortest pause after a read, in
    ///   seconds.
    public static func dutyCycle(_ share: Double, minimumPause: TimeInterval = 0) -> Self {
        RefreshPacing(dutyCycle: share, minimumPause: minimumPause)
    }

    private init(dutyCycle: Double, minimumPause: TimeInterval) {
        self.dutyCycle = min(1, max(0.001, dutyCycle.isNaN ? 1 : dutyCycle))
        self.minimumPause = max(0, minimumPause.isNaN ? 0 : minimumPause)
    }

    /// The pause after a read that took `seconds`: as long as it takes for
    /// the read to be `dutyCycle` of the read and the pause, and at least
    /// `minimumPause`.
    ///
    /// For example:
    ///
    /// ```swift
    /// RefreshPacing.dutyCycle(0.1, minimumPause: 0.05).pause(afterReadingFor: 0.5) // 4.5
    /// ```
    ///
    /// - parameter seconds: How long the read took: a negative value counts
    ///   as zero.
    /// - returns: The pause, in seconds.
    public func pause(afterReadingFor seconds: TimeInterval) -> TimeInterval {
        max(minimumPause, max(0, seconds) * (1 - dutyCycle) / dutyCycle)
    }
}

/// The state machine of a paced read: when to read after a change, and
/// after a pause. It reads no clock, and schedules nothing: its user runs
/// the read, measures it, and waits for the pause it returns.
///
/// It is the engine of `OtherProcessCommits.paced(_:)`, and serves any
/// read that follows changes, such as a count that runs again after
/// commits.
///
/// For example:
///
/// ```swift
/// var pacer = RefreshPacer(pacing: .dutyCycle(0.1, minimumPause: 0.05))
/// pacer.change()                             // true: read now
/// pacer.change()                             // false: read after this one
/// pacer.readDidEnd(afterReadingFor: 0.01)    // 0.09: pause, then call pauseDidEnd()
/// pacer.pauseDidEnd()                        // true: read now, for the second change
/// ```
public struct RefreshPacer: Sendable, Hashable {
    /// What the read is doing.
    public enum Phase: Sendable, Hashable {
        /// Nothing runs: a change is read at once.
        case idle
        /// A read runs.
        case reading
        /// The pause after a read: a change is read when it ends.
        case pausing
    }

    /// How often reads may run.
    public let pacing: RefreshPacing
    /// What the read is doing.
    public private(set) var phase = Phase.idle
    /// True when a change came during the read or the pause (or the read
    /// saw one): one more read follows the pause.
    public private(set) var isPending = false

    /// Creates an idle pacer.
    ///
    /// For example:
    ///
    /// ```swift
    /// var pacer = RefreshPacer(pacing: .dutyCycle(0.1))
    /// ```
    public init(pacing: RefreshPacing) {
        self.pacing = pacing
    }

    /// Tells a change.
    ///
    /// For example:
    ///
    /// ```swift
    /// if pacer.change() { startRead() }
    /// ```
    ///
    /// - returns: True when a read must start now; false when one runs, or
    ///   a pause: the change is read after it.
    public mutating func change() -> Bool {
        guard phase == .idle else {
            isPending = true
            return false
        }
        phase = .reading
        return true
    }

    /// Tells that the read ended, and starts its pause.
    ///
    /// For example:
    ///
    /// ```swift
    /// let pause = pacer.readDidEnd(afterReadingFor: elapsed, sawChange: !count.isExact)
    /// queue.asyncAfter(deadline: .now() + pause) { if pacer.pauseDidEnd() { startRead() } }
    /// ```
    ///
    /// - parameter seconds: How long the read took.
    /// - parameter sawChange: True when the read saw a change while it
    ///   ran: one more read follows the pause.
    /// - returns: The pause, in seconds, after which `pauseDidEnd()` must
    ///   be called; nil when no read runs (the call is ignored).
    public mutating func readDidEnd(afterReadingFor seconds: TimeInterval, sawChange: Bool = false) -> TimeInterval? {
        guard phase == .reading else { return nil }
        phase = .pausing
        isPending = isPending || sawChange
        return pacing.pause(afterReadingFor: seconds)
    }

    /// Tells that the pause ended.
    ///
    /// For example:
    ///
    /// ```swift
    /// if pacer.pauseDidEnd() { startRead() }
    /// ```
    ///
    /// - returns: True when a read must start now, for the changes that
    ///   came during the last read or its pause; false when there were
    ///   none, or no pause runs (the call is ignored).
    public mutating func pauseDidEnd() -> Bool {
        guard phase == .pausing else { return false }
        if isPending {
            isPending = false
            phase = .reading
            return true
        }
        phase = .idle
        return false
    }
}
