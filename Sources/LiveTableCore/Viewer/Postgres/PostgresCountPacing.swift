import Foundation
import ReactiveGRDB
import Synchronization

/// When a `PostgresDataSource` may count exactly again: after a count that
/// took T seconds, not for T·(1 − share)/share (at least `minimumPause`),
/// so that the counts of a viewer take at most `share` of one server core
/// however often commits come. The viewer's own pacing (`ViewerPacing`)
/// asks again sooner during a burst; it gets the last count instead,
/// moved by the table's inserts and deletes since (the title's `~`).
// The pause is `PacingPolicy`'s, by the count's own cost, as the windows'
// (`PacedReads`); the time is a `PacingClock`'s.
final class PostgresCountPacing: Sendable {
    /// What a count counted: all the rows of a source, or those before a
    /// position.
    enum Counted: Equatable {
        case total(RowSource)
        case before(ViewedSource, RowPosition)
    }

    private struct Count {
        var counted: Counted
        var count: Int
        var netInserts: Int?
        var notBefore: TimeInterval
    }

    private struct State {
        var last: [Count] = []
        var exactCounts = 0
    }

    let policy: PacingPolicy
    private let clock: any PacingClock
    private let state = Mutex(State())

    init(share: Double, minimumPause: TimeInterval, clock: any PacingClock = DispatchPacingClock()) {
        policy = .share(.dutyCycle(share, minimumPause: max(0, minimumPause)))
        self.clock = clock
    }

    var share: Double { policy.pacing.dutyCycle }
    var minimumPause: TimeInterval { policy.pacing.minimumPause }

    /// The number of exact counts so far (the tests count them).
    var count: Int {
        state.withLock { $0.exactCounts }
    }

    /// The pause after a count that took `seconds`.
    func pause(afterCountingFor seconds: TimeInterval) -> TimeInterval {
        policy.pause(afterReadingFor: seconds, burstReads: 0, foundLocked: false)
    }

    /// The estimate of `counted` while its last count's pause runs, nil
    /// when it may be counted: the last count, plus the inserts less the
    /// deletes since (`netInserts` now, nil when unknown).
    func estimate(of counted: Counted, netInserts: Int?) -> Int? {
        let now = clock.now
        return state.withLock { state in
            guard let last = state.last.first(where: { $0.counted == counted }), now < last.notBefore else {
                return nil
            }
            var moved = 0
            if let now = netInserts, let then = last.netInserts { moved = now - then }
            return max(0, last.count + moved)
        }
    }

    /// Takes an exact count that took `seconds`: the next one waits its
    /// pause. One count of each kind is kept (the source on screen).
    func counted(_ counted: Counted, _ count: Int, netInserts: Int?, seconds: TimeInterval) {
        let notBefore = clock.now + pause(afterCountingFor: seconds)
        state.withLock { state in
            state.exactCounts += 1
            state.last.removeAll { Self.isSameKind($0.counted, counted) }
            state.last.append(Count(counted: counted, count: count, netInserts: netInserts, notBefore: notBefore))
        }
    }

    private static func isSameKind(_ a: Counted, _ b: Counted) -> Bool {
        switch (a, b) {
        case (.total, .total), (.before, .before): return true
        default: return false
        }
    }
}
