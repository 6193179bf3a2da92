import Dispatch
import Foundation
import Synchronization

/// The clock of `PacedReads`: how long a read took, and when its pause
/// ends. A test gives a fake one, and moves it by hand.
package protocol PacingClock: Sendable {
    /// Seconds since an arbitrary origin, never going back.
    var now: TimeInterval { get }
    /// Runs `work` after `delay` seconds, on any thread.
    func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void)
}

/// The real clock: the uptime, and a global queue.
package struct DispatchPacingClock: PacingClock {
    let qos: DispatchQoS.QoSClass

    package init(qos: DispatchQoS.QoSClass = .default) {
        self.qos = qos
    }

    package var now: TimeInterval {
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    }

    package func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) {
        DispatchQueue.global(qos: qos).asyncAfter(deadline: .now() + delay, execute: work)
    }
}

/// The source of the commits that `PacedReads` follows (a SQLite file's
/// watch, PostgreSQL's poll, a test's fake): it calls `PacedReads.commit()`
/// for each commit it sees, and is attached to hear when the reads want
/// commits again, and when they stop.
package protocol CommitSignal: Sendable {
    /// A read starts for the commits that waited for the last read and its
    /// pause: a signal that stopped looking while they waited looks again.
    func readerWantsCommits()
    /// Stops the signal: no commit is wanted any more.
    func cancel()
}

/// How long a paced read pauses: by its share of the time (a CPU share in
/// WAL mode, PostgreSQL's own cost), and, once a read found a
/// rollback-journal file locked, by the writer's lock.
package struct PacingPolicy: Sendable, Hashable {
    /// The share of the time reads may take, and their pauses in a burst.
    package let pacing: RefreshPacing
    /// The shortest pause during a burst once a read found the file locked.
    package let lockedBurstPause: TimeInterval

    /// Reads take at most the share of `pacing`: a CPU share, or the
    /// server's, whatever the writer.
    package static func share(_ pacing: RefreshPacing) -> Self {
        PacingPolicy(pacing: pacing, lockedBurstPause: 0)
    }

    /// As `share(_:)`, and, when a read found the file locked (a
    /// rollback-journal writer, which sleeps a millisecond or more for each
    /// read it meets), `lockedBurstPause` at least between the reads of a
    /// burst: they show its progress and leave it its pace.
    package static func writersLock(_ pacing: RefreshPacing, lockedBurstPause: TimeInterval) -> Self {
        PacingPolicy(pacing: pacing, lockedBurstPause: lockedBurstPause)
    }

    /// The pause after a read that took `seconds`.
    package func pause(afterReadingFor seconds: TimeInterval, burstReads: Int, foundLocked: Bool) -> TimeInterval {
        let pause = pacing.pause(afterReadingFor: seconds, burstReads: burstReads)
        return foundLocked && burstReads > 0 ? max(pause, lockedBurstPause) : pause
    }
}

/// The pacing of the reads that follow commits, for both engines (a SQLite
/// observation's refreshes, PostgreSQL's `CommitReads`): idle, a commit is
/// read at once; reading, a commit waits for the read and its pause; then
/// one read for all the commits that waited. A `RefreshPacer` says when;
/// this type measures the reads with its clock, and runs the pauses.
///
/// Its `CommitSignal` calls `commit()`; the user calls
/// `readDidEnd(at:sawChange:)`. The read runs outside the lock, and may
/// call back.
package final class PacedReads: Sendable {
    /// Why a read starts.
    package enum Reason: Sendable, Equatable {
        /// A commit came while no read ran.
        case commit
        /// Commits came during the last read or its pause.
        case pending
    }

    private struct State {
        var pacer: RefreshPacer
        var read: (@Sendable (Reason) -> Void)?
        var signal: (any CommitSignal)?
        var isStopped = false
        var readStart: TimeInterval = 0
        var foundLocked = false
        /// The end of a pause that no commit waits for: no timer runs for
        /// it, and the first commit after it is read at once.
        var quietPauseEnd: TimeInterval?
    }

    private let policy: PacingPolicy
    private let clock: any PacingClock
    private let state: Mutex<State>

    package init(policy: PacingPolicy, clock: any PacingClock = DispatchPacingClock()) {
        self.policy = policy
        self.clock = clock
        state = Mutex(State(pacer: RefreshPacer(pacing: policy.pacing)))
    }

    /// The clock's time, for the stamps of the user (see `readDidEnd`).
    package var now: TimeInterval { clock.now }

    /// True when commits wait for the read that runs, or its pause.
    package var isPending: Bool { state.withLock { $0.pacer.isPending } }

    /// How many reads in a row a commit came during.
    package var burstReads: Int { state.withLock { $0.pacer.burstReads } }

    /// The seconds since the read that runs started.
    package var readElapsed: TimeInterval {
        let start = state.withLock { $0.readStart }
        return clock.now - start
    }

    /// Starts following commits with `read`, idle, or reading when the
    /// caller runs a first read itself (`readingNow`).
    package func start(readingNow: Bool = false, read: @escaping @Sendable (Reason) -> Void) {
        let now = clock.now
        state.withLock {
            guard !$0.isStopped else { return }
            $0.read = read
            if readingNow, $0.pacer.change() { $0.readStart = now }
        }
    }

    /// Attaches the source of the commits: `stop()` cancels it.
    ///
    /// - returns: False when the reads stopped already: the signal is
    ///   cancelled.
    @discardableResult
    package func attach(_ signal: any CommitSignal) -> Bool {
        let attached = state.withLock { state -> Bool in
            guard !state.isStopped else { return false }
            state.signal = signal
            return true
        }
        if !attached { signal.cancel() }
        return attached
    }

    /// Stops: no read starts any more, and the signal is cancelled.
    package func stop() {
        let signal = state.withLock { state -> (any CommitSignal)? in
            defer { state.read = nil; state.signal = nil; state.isStopped = true }
            return state.signal
        }
        signal?.cancel()
    }

    /// Tells a commit: reads now if idle; else one more read follows the
    /// read that runs, or the pause.
    package func commit() {
        let now = clock.now
        let next = state.withLock { state -> CommitOutcome in
            guard let read = state.read else { return .none }
            if let end = state.quietPauseEnd {
                state.quietPauseEnd = nil
                if now < end {
                    // The pause runs on: the commit waits for its end.
                    _ = state.pacer.change()
                    return .pause(end - now)
                }
                _ = state.pacer.pauseDidEnd()
            }
            guard state.pacer.change() else { return .none }
            state.readStart = now
            return .read(read)
        }
        switch next {
        case .none:
            break
        case let .read(read):
            read(.commit)
        case let .pause(seconds):
            clock.schedule(after: seconds) { [weak self] in self?.pauseDidEnd() }
        }
    }

    private enum CommitOutcome {
        case none
        case read(@Sendable (Reason) -> Void)
        case pause(TimeInterval)
    }

    /// Marks the start of the read that runs, when it waited after
    /// `commit()` (for a queue): the wait is not reading.
    package func readDidStart() {
        let now = clock.now
        state.withLock { $0.readStart = now }
    }

    /// Tells that a read found the file locked: the policy's
    /// `lockedBurstPause` applies from now on.
    package func readFoundLocked() {
        state.withLock { $0.foundLocked = true }
    }

    /// Ends the caller's first read (`start(readingNow: true)`): as
    /// `readDidEnd(at:)` when commits came during it; else idle at once,
    /// as before any read, so that the first commit after it is read at
    /// once.
    package func firstReadDidEnd(at end: TimeInterval? = nil) {
        let isIdle = state.withLock { state -> Bool in
            guard state.read != nil, state.pacer.phase == .reading, !state.pacer.isPending else { return false }
            _ = state.pacer.readDidEnd(afterReadingFor: 0)
            return !state.pacer.pauseDidEnd()
        }
        if !isIdle { readDidEnd(at: end) }
    }

    /// Ends the read that runs (ignored when none runs), and pauses.
    ///
    /// - parameter end: When its value was read (the clock's `now`), if
    ///   before this call: the wait for a subscriber is not reading.
    /// - parameter sawChange: True when the read saw a commit that came
    ///   while it ran.
    package func readDidEnd(at end: TimeInterval? = nil, sawChange: Bool = false) {
        let now = clock.now
        let end = end ?? now
        let pause = state.withLock { state -> TimeInterval? in
            let seconds = end - state.readStart
            guard state.read != nil, state.pacer.readDidEnd(afterReadingFor: seconds, sawChange: sawChange) != nil else {
                return nil
            }
            let pause = policy.pause(
                afterReadingFor: seconds, burstReads: state.pacer.burstReads, foundLocked: state.foundLocked)
            guard pause > 0, !state.pacer.isPending else { return pause }
            // No commit waits: the pause needs no timer, only its end, which
            // the next commit compares with the clock (one wake-up less per
            // commit of a writer that commits now and then).
            state.quietPauseEnd = now + pause
            return nil
        }
        guard let pause else { return }
        guard pause > 0 else {
            pauseDidEnd()
            return
        }
        clock.schedule(after: pause) { [weak self] in self?.pauseDidEnd() }
    }

    private func pauseDidEnd() {
        let now = clock.now
        let next = state.withLock { state -> (read: @Sendable (Reason) -> Void, signal: (any CommitSignal)?)? in
            state.quietPauseEnd = nil
            guard let read = state.read, state.pacer.pauseDidEnd() else { return nil }
            state.readStart = now
            return (read, state.signal)
        }
        guard let next else { return }
        next.signal?.readerWantsCommits()
        next.read(.pending)
    }
}
