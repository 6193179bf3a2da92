import Synchronization
import XCTest
@testable import ReactiveGRDB

/// `PacedReads`, the one pacing of both engines' reads after commits,
/// driven by a fake clock and a fake commit signal (the test calls
/// `commit()`): no sleep, every read and pause asserted.
final class PacedReadsTests: XCTestCase {
    /// A clock moved by hand; its scheduled work runs when it passes.
    private final class FakeClock: PacingClock {
        private struct State {
            var now: TimeInterval = 100
            var scheduled: [(at: TimeInterval, work: @Sendable () -> Void)] = []
        }
        private let state = Mutex(State())

        var now: TimeInterval { state.withLock { $0.now } }

        /// The delays of the work scheduled and not run yet.
        var pauses: [TimeInterval] {
            state.withLock { state in state.scheduled.map { $0.at - state.now } }
        }

        func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) {
            state.withLock { $0.scheduled.append((at: $0.now + delay, work: work)) }
        }

        /// Moves the time, and runs the work due, outside the lock.
        func advance(by seconds: TimeInterval) {
            let due = state.withLock { state -> [@Sendable () -> Void] in
                state.now += seconds
                let now = state.now
                defer { state.scheduled.removeAll { $0.at <= now + 1e-12 } }
                return state.scheduled.filter { $0.at <= now + 1e-12 }.map(\.work)
            }
            due.forEach { $0() }
        }
    }

    /// The reads started, in order.
    private final class Reads: Sendable {
        private let reasons = Mutex<[PacedReads.Reason]>([])
        var all: [PacedReads.Reason] { reasons.withLock { $0 } }
        func append(_ reason: PacedReads.Reason) { reasons.withLock { $0.append(reason) } }
    }

    /// A commit signal that records what the reads tell it; the test
    /// itself sends the commits (`commit()`).
    private final class FakeSignal: CommitSignal {
        private let events = Mutex<[String]>([])
        var all: [String] { events.withLock { $0 } }
        func readerWantsCommits() { events.withLock { $0.append("wants") } }
        func cancel() { events.withLock { $0.append("cancel") } }
    }

    private func paced(_ policy: PacingPolicy, readingNow: Bool = false) -> (PacedReads, FakeClock, Reads) {
        let clock = FakeClock()
        let reads = Reads()
        let paced = PacedReads(policy: policy, clock: clock)
        paced.start(readingNow: readingNow) { reads.append($0) }
        return (paced, clock, reads)
    }

    func testACommitIsReadAtOnceThenPausedByTheShare() {
        let (paced, clock, reads) = paced(.share(.dutyCycle(0.1, minimumPause: 0.05)))
        paced.commit()
        XCTAssertEqual(reads.all, [.commit])
        clock.advance(by: 0.02)
        paced.readDidEnd()
        // A commit during the pause waits for its end, 0.18 s after the read.
        clock.advance(by: 0.08)
        paced.commit()
        XCTAssertEqual(reads.all, [.commit])
        XCTAssertEqual(clock.pauses.count, 1)
        XCTAssertEqual(clock.pauses[0], 0.1, accuracy: 1e-9)
        clock.advance(by: 0.1)
        XCTAssertEqual(reads.all, [.commit, .pending])
    }

    func testAQuietPauseSchedulesNothingAndTheNextCommitAfterItIsReadAtOnce() {
        let (paced, clock, reads) = paced(.share(.dutyCycle(0.1, minimumPause: 0.05)))
        paced.commit()
        clock.advance(by: 0.02)
        paced.readDidEnd()
        // No commit waits: no timer wakes anything up at the pause's end.
        XCTAssertEqual(clock.pauses, [])
        clock.advance(by: 0.18)
        paced.commit()
        XCTAssertEqual(reads.all, [.commit, .commit])
        XCTAssertEqual(clock.pauses, [])
        XCTAssertEqual(paced.burstReads, 0)
    }

    func testCommitsDuringAReadAndItsPauseMakeOneReadAfterThePause() {
        let (paced, clock, reads) = paced(.share(.dutyCycle(0.5, minimumPause: 0.002, burstPause: 0.05)))
        paced.commit()
        paced.commit()
        XCTAssertTrue(paced.isPending)
        clock.advance(by: 0.01)
        // The read ends when its value was fetched, not when it arrived.
        paced.readDidEnd(at: clock.now - 0.004)
        paced.commit()
        paced.commit()
        XCTAssertEqual(reads.all, [.commit])
        XCTAssertEqual(paced.burstReads, 1)
        XCTAssertEqual(clock.pauses.count, 1)
        XCTAssertEqual(clock.pauses[0], 0.006, accuracy: 1e-9)
        clock.advance(by: 0.006)
        XCTAssertEqual(reads.all, [.commit, .pending])
        XCTAssertFalse(paced.isPending)
        // The last read of the burst: no commit came, no read follows.
        clock.advance(by: 0.001)
        paced.readDidEnd()
        clock.advance(by: 1)
        XCTAssertEqual(reads.all, [.commit, .pending])
        XCTAssertEqual(paced.burstReads, 0)
    }

    func testAReadThatSawAChangeIsReadAgain() {
        let (paced, clock, reads) = paced(.share(.dutyCycle(0.04, minimumPause: 0.002, burstPause: 0.1)))
        paced.commit()
        clock.advance(by: 0.004)
        paced.readDidEnd(sawChange: true)
        XCTAssertEqual(clock.pauses[0], 0.096, accuracy: 1e-9)
        clock.advance(by: 0.096)
        XCTAssertEqual(reads.all, [.commit, .pending])
    }

    func testTheWritersLockPacesABurstOnceAReadFoundTheFileLocked() {
        let (paced, clock, reads) = paced(.writersLock(.dutyCycle(0.1, minimumPause: 0.002), lockedBurstPause: 0.1))
        // Not locked: the share rules.
        paced.commit()
        paced.commit()
        clock.advance(by: 0.001)
        paced.readDidEnd()
        XCTAssertEqual(clock.pauses[0], 0.009, accuracy: 1e-9)
        clock.advance(by: 0.009)
        XCTAssertEqual(reads.all, [.commit, .pending])
        // Locked, during a burst: the writer's pause.
        paced.readFoundLocked()
        paced.commit()
        clock.advance(by: 0.001)
        paced.readDidEnd()
        XCTAssertEqual(clock.pauses[0], 0.1, accuracy: 1e-9)
        clock.advance(by: 0.1)
        XCTAssertEqual(reads.all, [.commit, .pending, .pending])
        // Locked, a lone commit: the share again.
        clock.advance(by: 0.001)
        paced.readDidEnd()
        paced.commit()
        XCTAssertEqual(clock.pauses[0], 0.009, accuracy: 1e-9)
    }

    func testNoPauseReadsThePendingCommitsAtOnce() {
        let (paced, _, reads) = paced(.share(.none))
        paced.commit()
        paced.commit()
        paced.readDidEnd()
        XCTAssertEqual(reads.all, [.commit, .pending])
        paced.readDidEnd()
        XCTAssertEqual(reads.all, [.commit, .pending])
    }

    func testAFirstReadOfTheCallerIsPacedAsTheOthers() {
        let (paced, clock, reads) = paced(.share(.dutyCycle(0.1, minimumPause: 0.05)), readingNow: true)
        paced.commit()
        XCTAssertEqual(reads.all, [])
        clock.advance(by: 0.001)
        paced.readDidStart()
        clock.advance(by: 0.01)
        XCTAssertEqual(paced.readElapsed, 0.01, accuracy: 1e-9)
        paced.readDidEnd()
        XCTAssertEqual(clock.pauses[0], 0.09, accuracy: 1e-9)
        clock.advance(by: 0.09)
        XCTAssertEqual(reads.all, [.pending])
    }

    func testAFirstReadThatNoCommitCameDuringEndsIdleAndOneThatOneCameDuringIsPaced() {
        // An observation's first fetch: no commit came, no pause follows.
        let (first, clock, reads) = paced(.share(.dutyCycle(0.5, minimumPause: 0.05)), readingNow: true)
        clock.advance(by: 0.3)
        first.firstReadDidEnd()
        XCTAssertTrue(clock.pauses.isEmpty)
        first.commit()
        XCTAssertEqual(reads.all, [.commit])

        // A commit during it: read after the pause, as long as the read.
        let (later, laterClock, laterReads) = paced(.share(.dutyCycle(0.5, minimumPause: 0.05)), readingNow: true)
        laterClock.advance(by: 0.1)
        later.commit()
        XCTAssertTrue(laterReads.all.isEmpty)
        laterClock.advance(by: 0.2)
        later.firstReadDidEnd()
        XCTAssertEqual(laterClock.pauses.count, 1)
        XCTAssertEqual(laterClock.pauses[0], 0.3, accuracy: 1e-9)
        laterClock.advance(by: 0.3)
        XCTAssertEqual(laterReads.all, [.pending])
    }

    func testNothingIsReadBeforeStartOrAfterStop() {
        let clock = FakeClock()
        let reads = Reads()
        let paced = PacedReads(policy: .share(.dutyCycle(0.1, minimumPause: 0.05)), clock: clock)
        paced.commit()
        paced.start { reads.append($0) }
        paced.commit()
        paced.commit()
        clock.advance(by: 0.01)
        paced.readDidEnd()
        paced.stop()
        clock.advance(by: 1)
        paced.commit()
        XCTAssertEqual(reads.all, [.commit])
    }

    func testTheSignalLooksAgainBeforeAPendingReadAndIsCancelledByStop() {
        let (paced, clock, reads) = paced(.share(.dutyCycle(0.1, minimumPause: 0.05)))
        let signal = FakeSignal()
        XCTAssertTrue(paced.attach(signal))
        paced.commit()
        XCTAssertEqual(signal.all, [])
        paced.commit()
        paced.readDidEnd()
        clock.advance(by: 0.05)
        XCTAssertEqual(reads.all, [.commit, .pending])
        XCTAssertEqual(signal.all, ["wants"])
        paced.stop()
        paced.stop()
        XCTAssertEqual(signal.all, ["wants", "cancel"])
    }

    func testASignalAttachedAfterStopIsCancelledAtOnce() {
        let (paced, _, reads) = paced(.share(.none))
        paced.stop()
        let signal = FakeSignal()
        XCTAssertFalse(paced.attach(signal))
        XCTAssertEqual(signal.all, ["cancel"])
        paced.start { reads.append($0) }
        paced.commit()
        XCTAssertEqual(reads.all, [])
    }

    func testTheRealClockRunsAPause() {
        let paced = PacedReads(policy: .share(.dutyCycle(0.5, minimumPause: 0.002)))
        let ran = expectation(description: "the pending read")
        paced.start { if $0 == .pending { ran.fulfill() } }
        paced.commit()
        paced.commit()
        paced.readDidEnd()
        wait(for: [ran], timeout: 5)
    }
}
