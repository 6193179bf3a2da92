import ReactiveGRDB
import XCTest

/// `RefreshPacing` and `RefreshPacer`: when a paced read runs after
/// changes, and how long it pauses.
final class RefreshPacerTests: XCTestCase {
    private let pacing = RefreshPacing.dutyCycle(0.1, minimumPause: 0.05)

    // MARK: - Pauses

    func testPauseKeepsReadsWithinTheDutyCycle() {
        XCTAssertEqual(pacing.pause(afterReadingFor: 0.5), 4.5, accuracy: 1e-9)
        XCTAssertEqual(pacing.pause(afterReadingFor: 0.011), 0.099, accuracy: 1e-9)
        XCTAssertEqual(RefreshPacing.dutyCycle(0.25).pause(afterReadingFor: 0.004), 0.012, accuracy: 1e-9)
    }

    func testPauseIsAtLeastTheMinimum() {
        XCTAssertEqual(pacing.pause(afterReadingFor: 0.0001), 0.05)
        XCTAssertEqual(pacing.pause(afterReadingFor: 0), 0.05)
        XCTAssertEqual(pacing.pause(afterReadingFor: -1), 0.05)
    }

    func testMinimumDoublesDuringABurstUpToTheBurstPause() {
        let pacing = RefreshPacing.dutyCycle(0.1, minimumPause: 0.002, burstPause: 0.05)
        XCTAssertEqual(
            (0...6).map { pacing.pause(afterReadingFor: 0, burstReads: $0) },
            [0.002, 0.004, 0.008, 0.016, 0.032, 0.05, 0.05])
        XCTAssertEqual(pacing.pause(afterReadingFor: 0, burstReads: 1_000), 0.05)
        // The duty cycle still rules a long read.
        XCTAssertEqual(pacing.pause(afterReadingFor: 0.1, burstReads: 10), 0.9, accuracy: 1e-9)
        // By default, the pause does not grow; a burst pause below the
        // minimum is raised to it.
        XCTAssertEqual(RefreshPacing.dutyCycle(0.1, minimumPause: 0.05).pause(afterReadingFor: 0, burstReads: 5), 0.05)
        XCTAssertEqual(RefreshPacing.dutyCycle(0.1, minimumPause: 0.05, burstPause: 0.01).burstPause, 0.05)
    }

    func testNoPacingNeverPauses() {
        XCTAssertEqual(RefreshPacing.none.pause(afterReadingFor: 3), 0)
        XCTAssertEqual(RefreshPacing.none.pause(afterReadingFor: 0), 0)
    }

    /// A long read pauses as its share says, up to the maximum, which the
    /// modifiers keep; a short one as before.
    func testPausesStopAtTheMaximum() {
        let pacing = RefreshPacing.dutyCycle(0.01, minimumPause: 0.05, burstPause: 1)
        XCTAssertEqual(pacing.pause(afterReadingFor: 2), 198, accuracy: 1e-9)
        let bounded = pacing.burstsIncludingPauses().pausingAtMost(20)
        XCTAssertEqual(bounded.pause(afterReadingFor: 2), 20)
        XCTAssertEqual(bounded.pause(afterReadingFor: 0.1), 9.9, accuracy: 1e-9)
        XCTAssertEqual(bounded.pause(afterReadingFor: 0, burstReads: 3), 0.4)
        XCTAssertTrue(bounded.burstIncludesPauses)
        XCTAssertEqual(pacing.pausingAtMost(20).burstsIncludingPauses(), bounded)
        XCTAssertEqual(pacing.maximumPause, .infinity)
        XCTAssertEqual(pacing.pausingAtMost(.nan).maximumPause, .infinity)
    }

    func testOutOfRangeArgumentsAreBroughtIntoRange() {
        XCTAssertEqual(RefreshPacing.dutyCycle(2, minimumPause: -1), .none)
        XCTAssertEqual(RefreshPacing.dutyCycle(0.5, minimumPause: 0.1, burstPause: .nan).burstPause, 0.1)
        XCTAssertEqual(RefreshPacing.dutyCycle(0).dutyCycle, 0.001)
        XCTAssertEqual(RefreshPacing.dutyCycle(.nan).dutyCycle, 1)
    }

    // MARK: - The state machine

    func testChangesDuringPausesContinueABurstOnlyWhenAsked() {
        // A short read, and a change during each pause (a writer that
        // commits every 33 ms): the pauses grow only when asked.
        func pauses(_ pacing: RefreshPacing) -> [TimeInterval] {
            var pacer = RefreshPacer(pacing: pacing)
            XCTAssertTrue(pacer.change())
            var pauses: [TimeInterval] = []
            for _ in 0..<6 {
                pauses.append(pacer.readDidEnd(afterReadingFor: 0.0005) ?? -1)
                XCTAssertFalse(pacer.change())
                XCTAssertTrue(pacer.pauseDidEnd())
            }
            return pauses
        }
        let pacing = RefreshPacing.dutyCycle(0.1, minimumPause: 0.05, burstPause: 1)
        XCTAssertEqual(pauses(pacing), [0.05, 0.05, 0.05, 0.05, 0.05, 0.05])
        XCTAssertEqual(pauses(pacing.burstsIncludingPauses()), [0.05, 0.1, 0.2, 0.4, 0.8, 1])
        XCTAssertTrue(pacing.burstsIncludingPauses().burstIncludesPauses)
        XCTAssertFalse(pacing.burstIncludesPauses)

        // A quiet pause ends the burst.
        var pacer = RefreshPacer(pacing: pacing.burstsIncludingPauses())
        XCTAssertTrue(pacer.change())
        _ = pacer.readDidEnd(afterReadingFor: 0)
        XCTAssertFalse(pacer.change())
        XCTAssertTrue(pacer.pauseDidEnd())
        XCTAssertEqual(pacer.readDidEnd(afterReadingFor: 0), 0.1)
        XCTAssertFalse(pacer.pauseDidEnd())
        XCTAssertEqual(pacer.burstReads, 0)
        XCTAssertTrue(pacer.change())
        XCTAssertEqual(pacer.readDidEnd(afterReadingFor: 0), 0.05)
    }

    func testLoneChangeIsReadAtOnce() {
        var pacer = RefreshPacer(pacing: pacing)
        XCTAssertTrue(pacer.change())
        XCTAssertEqual(pacer.phase, .reading)
        XCTAssertEqual(pacer.readDidEnd(afterReadingFor: 0.001), 0.05)
        // Nothing came meanwhile: no read after the pause.
        XCTAssertFalse(pacer.pauseDidEnd())
        XCTAssertEqual(pacer.phase, .idle)
        // The next change, after the quiet spell, is read at once.
        XCTAssertTrue(pacer.change())
    }

    func testBurstIsCoalescedIntoOneReadAfterThePause() {
        var pacer = RefreshPacer(pacing: pacing)
        XCTAssertTrue(pacer.change())
        // Changes during the read: none starts a read.
        XCTAssertFalse(pacer.change())
        XCTAssertFalse(pacer.change())
        XCTAssertTrue(pacer.isPending)
        XCTAssertEqual(pacer.readDidEnd(afterReadingFor: 0.02) ?? 0, 0.18, accuracy: 1e-9)
        // Changes during the pause: none starts a read either.
        XCTAssertFalse(pacer.change())
        XCTAssertEqual(pacer.phase, .pausing)
        // One read, when the pause ends, sees them all.
        XCTAssertTrue(pacer.pauseDidEnd())
        XCTAssertEqual(pacer.phase, .reading)
        XCTAssertFalse(pacer.isPending)
        XCTAssertEqual(pacer.readDidEnd(afterReadingFor: 0.001), 0.05)
        XCTAssertFalse(pacer.pauseDidEnd())
        XCTAssertEqual(pacer.phase, .idle)
    }

    func testLastChangeOfABurstDuringThePauseIsRead() {
        var pacer = RefreshPacer(pacing: pacing)
        XCTAssertTrue(pacer.change())
        _ = pacer.readDidEnd(afterReadingFor: 0.001)
        // The last change comes during the pause: it is not lost.
        XCTAssertFalse(pacer.change())
        XCTAssertTrue(pacer.pauseDidEnd())
    }

    func testReadThatSawAChangeReadsAgainAfterThePause() {
        var pacer = RefreshPacer(pacing: pacing)
        XCTAssertTrue(pacer.change())
        _ = pacer.readDidEnd(afterReadingFor: 0.001, sawChange: true)
        XCTAssertTrue(pacer.isPending)
        XCTAssertTrue(pacer.pauseDidEnd())
    }

    func testPausesGrowDuringABurstAndStartAgainAfterAQuietSpell() {
        var pacer = RefreshPacer(pacing: .dutyCycle(0.1, minimumPause: 0.002, burstPause: 0.05))
        XCTAssertTrue(pacer.change())
        var pauses: [Double] = []
        for _ in 0..<4 {
            // A change during each read: a burst.
            XCTAssertFalse(pacer.change())
            pauses.append(pacer.readDidEnd(afterReadingFor: 0) ?? -1)
            XCTAssertTrue(pacer.pauseDidEnd())
        }
        XCTAssertEqual(pauses, [0.004, 0.008, 0.016, 0.032])
        XCTAssertEqual(pacer.burstReads, 4)
        // The burst ends: its last read, during which nothing came.
        XCTAssertEqual(pacer.readDidEnd(afterReadingFor: 0), 0.002)
        XCTAssertEqual(pacer.burstReads, 0)
        XCTAssertFalse(pacer.pauseDidEnd())
        // After the quiet spell, a lone change is read at once, and the
        // pause after it is short again.
        XCTAssertTrue(pacer.change())
        XCTAssertEqual(pacer.readDidEnd(afterReadingFor: 0), 0.002)
    }

    func testChangesDuringThePausesOnlyDoNotGrowThePauses() {
        // A script that writes every few milliseconds: each change comes
        // after the read, during the pause.
        var pacer = RefreshPacer(pacing: .dutyCycle(0.1, minimumPause: 0.002, burstPause: 0.05))
        XCTAssertTrue(pacer.change())
        for _ in 0..<5 {
            XCTAssertEqual(pacer.readDidEnd(afterReadingFor: 0), 0.002)
            XCTAssertFalse(pacer.change())
            XCTAssertTrue(pacer.pauseDidEnd())
        }
        XCTAssertEqual(pacer.burstReads, 0)
    }

    func testCallsOutOfTurnAreIgnored() {
        var pacer = RefreshPacer(pacing: pacing)
        // No read runs: its end is ignored, and so is a pause's end.
        XCTAssertNil(pacer.readDidEnd(afterReadingFor: 0.001))
        XCTAssertFalse(pacer.pauseDidEnd())
        XCTAssertEqual(pacer, RefreshPacer(pacing: pacing))
        XCTAssertTrue(pacer.change())
        // A pause's end during the read: ignored.
        XCTAssertFalse(pacer.pauseDidEnd())
        XCTAssertEqual(pacer.phase, .reading)
        _ = pacer.readDidEnd(afterReadingFor: 0.001)
        // A second end of the same read (a value published twice): ignored.
        XCTAssertNil(pacer.readDidEnd(afterReadingFor: 0.001))
        XCTAssertEqual(pacer.phase, .pausing)
    }
}
