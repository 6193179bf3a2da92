import Foundation

/// How often an observation reads again while another process commits
/// without pause.
///
/// Each read of a rollback-journal file (DELETE, TRUNCATE, PERSIST) holds
/// SQLite's shared lock, and a writer that meets it waits: the `sqlite3`
/// command's busy handler sleeps 1 ms, then longer, however short the read.
/// Reading again after each commit of a busy writer can halve its commits
/// per second. A paced observation pauses after each read:
///
/// - for as long as it takes to keep its reads within a share of the time
///   (`dutyCycle`);
/// - for `minimumPause` at least after a read that followed a quiet spell:
///   the first commit after a quiet spell (no read, and no pause, going
///   on) is read at once, and a lone commit that follows soon after is not
///   kept waiting;
/// - during a burst (each read during which a commit came: a writer that
///   commits without pause, not a script that writes every few
///   milliseconds), for twice as long as the last time, up to
///   `burstPause`: a long burst costs the writer one read per `burstPause`.
///
/// The commits that come during a read or its pause make one read, when
/// the pause ends: the last commit of a burst is always read.
///
/// For example:
///
/// ```swift
/// // Reads take at most a tenth of the time while commits come, and one
/// // read per 50 ms during a long burst.
/// let pacing = RefreshPacing.dutyCycle(0.1, minimumPause: 0.002, burstPause: 0.05)
/// pacing.pause(afterReadingFor: 0.001)                  // 0.009
/// pacing.pause(afterReadingFor: 0.001, burstReads: 3)   // 0.016
/// pacing.pause(afterReadingFor: 0.001, burstReads: 10)  // 0.05
/// ```
public struct RefreshPacing: Sendable, Hashable {
    /// The share of the time that reads may take while commits come, from
    /// 0.001 to 1.
    public let dutyCycle: Double
    /// The shortest pause after a read, in seconds.
    public let minimumPause: TimeInterval
    /// The shortest pause, in seconds, after the reads of a long burst:
    /// the minimum doubles from `minimumPause` up to it, after each read
    /// during which a change came.
    public let burstPause: TimeInterval
    /// Whether a change during a pause, not only during a read, makes the
    /// next read one more of the burst (`burstsIncludingPauses()`).
    public let burstIncludesPauses: Bool
    /// The longest pause, in seconds, whatever the read took
    /// (`pausingAtMost(_:)`): infinite unless set.
    public let maximumPause: TimeInterval

    /// No pacing: a read starts as soon as the previous one ends, if
    /// commits came meanwhile.
    ///
    /// For example:
    ///
    /// ```swift
    /// RefreshPacing.none.pause(afterReadingFor: 0.5) // 0
    /// ```
    public static let none = RefreshPacing(dutyCycle: 1, minimumPause: 0, burstPause: 0)

    /// Reads take at most `share` of the time while commits come; each is
    /// followed by a pause of at least `minimumPause`, and, during a burst,
    /// of twice the last one, up to `burstPause`.
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
    /// - parameter burstPause: The shortest pause after the reads of a
    ///   long burst, in seconds: by default, `minimumPause` (the pause does
    ///   not grow). It is raised to `minimumPause` if below it.
    public static func dutyCycle(
        _ share: Double,
        minimumPause: TimeInterval = 0,
        burstPause: TimeInterval? = nil) -> Self
    {
        RefreshPacing(dutyCycle: share, minimumPause: minimumPause, burstPause: burstPause ?? minimumPause)
    }

    private init(
        dutyCycle: Double, minimumPause: TimeInterval, burstPause: TimeInterval, burstIncludesPauses: Bool = false,
        maximumPause: TimeInterval = .infinity)
    {
        self.dutyCycle = min(1, max(0.001, dutyCycle.isNaN ? 1 : dutyCycle))
        self.minimumPause = max(0, minimumPause.isNaN || minimumPause.isInfinite ? 0 : minimumPause)
        self.burstPause = max(self.minimumPause, burstPause.isNaN || burstPause.isInfinite ? 0 : burstPause)
        self.burstIncludesPauses = burstIncludesPauses
        self.maximumPause = maximumPause.isNaN ? .infinity : max(0, maximumPause)
    }

    /// The same pacing, where a change during a pause, and not only during
    /// a read, makes the next read one more of the burst: its pause doubles
    /// too, up to `burstPause`.
    ///
    /// For a read whose value may lag behind the changes, such as a count
    /// shown as an estimate meanwhile: a short read after each change of a
    /// writer that commits every few tens of milliseconds would otherwise
    /// run after every other commit, never meeting one while it runs.
    ///
    /// For example:
    ///
    /// ```swift
    /// let count = RefreshPacing.dutyCycle(0.01, minimumPause: 0.05, burstPause: 1).burstsIncludingPauses()
    /// ```
    ///
    /// - returns: The same pacing, whose bursts include the pauses.
    public func burstsIncludingPauses() -> Self {
        RefreshPacing(
            dutyCycle: dutyCycle, minimumPause: minimumPause, burstPause: burstPause, burstIncludesPauses: true,
            maximumPause: maximumPause)
    }

    /// The same pacing, whose pauses last `seconds` at most: a read that
    /// takes long then runs more than `dutyCycle` of the time, and its
    /// value lags behind the changes that long at most.
    ///
    /// For example:
    ///
    /// ```swift
    /// RefreshPacing.dutyCycle(0.01).pausingAtMost(20).pause(afterReadingFor: 2) // 20, not 198
    /// ```
    ///
    /// - returns: The same pacing, whose pauses are `seconds` at most.
    public func pausingAtMost(_ seconds: TimeInterval) -> Self {
        RefreshPacing(
            dutyCycle: dutyCycle, minimumPause: minimumPause, burstPause: burstPause,
            burstIncludesPauses: burstIncludesPauses, maximumPause: seconds)
    }

    /// The pause after a read that took `seconds`: as long as it takes for
    /// the read to be `dutyCycle` of the read and the pause, and at least
    /// `minimumPause` doubled once per read of the burst before it, up to
    /// `burstPause`; `maximumPause` at most.
    ///
    /// For example:
    ///
    /// ```swift
    /// RefreshPacing.dutyCycle(0.1, minimumPause: 0.05).pause(afterReadingFor: 0.5) // 4.5
    /// ```
    ///
    /// - parameter seconds: How long the read took: a negative value counts
    ///   as zero.
    /// - parameter burstReads: How many reads in a row a change came
    ///   during, this one included: 0 for a read during which none came.
    /// - returns: The pause, in seconds.
    public func pause(afterReadingFor seconds: TimeInterval, burstReads: Int = 0) -> TimeInterval {
        let minimum = min(burstPause, minimumPause * Double(1 << min(max(0, burstReads), 30)))
        return min(maximumPause, max(minimum, max(0, seconds) * (1 - dutyCycle) / dutyCycle))
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
    /// How many reads in a row a change came during: 0 after a read
    /// during which none came.
    public private(set) var burstReads = 0
    /// True while the read runs for the changes that came during a pause.
    private var readsPendingChanges = false

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
        readsPendingChanges = false
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
        // A change during the read (not only during the pause) tells a
        // writer that commits without pause: the pauses grow.
        isPending = isPending || sawChange
        let continuesBurst = isPending || (pacing.burstIncludesPauses && readsPendingChanges)
        burstReads = continuesBurst ? burstReads + 1 : 0
        return pacing.pause(afterReadingFor: seconds, burstReads: burstReads)
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
            readsPendingChanges = true
            return true
        }
        phase = .idle
        burstReads = 0
        return false
    }
}
