import Foundation

/// When a `PostgresDataSource` may count exactly again: after a count that
/// took T seconds, not for T·(1 − share)/share (at least `minimumPause`),
/// so that the counts of a viewer take at most `share` of one server core
/// however often commits come. The viewer's own pacing (`ViewerPacing`)
/// asks again sooner during a burst; it gets the last count instead,
/// moved by the table's inserts and deletes since (the title's `~`).
// @unchecked Sendable: `last` is only accessed with `lock` held.
final class PostgresCountPacing: @unchecked Sendable {
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
        var notBefore: ContinuousClock.Instant
    }

    let share: Double
    let minimumPause: TimeInterval
    private let lock = NSLock()
    private var last: [Count] = []
    private var exactCounts = 0

    init(share: Double, minimumPause: TimeInterval) {
        self.share = min(1, max(0.001, share))
        self.minimumPause = max(0, minimumPause)
    }

    /// The number of exact counts so far (the tests count them).
    var count: Int {
        lock.withLock { exactCounts }
    }

    /// The pause after a count that took `seconds`.
    func pause(afterCountingFor seconds: TimeInterval) -> TimeInterval {
        max(minimumPause, max(0, seconds) * (1 - share) / share)
    }

    /// The estimate of `counted` while its last count's pause runs, nil
    /// when it may be counted: the last count, plus the inserts less the
    /// deletes since (`netInserts` now, nil when unknown).
    func estimate(of counted: Counted, netInserts: Int?) -> Int? {
        lock.withLock {
            guard let last = last.first(where: { $0.counted == counted }), ContinuousClock.now < last.notBefore else {
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
        let notBefore = ContinuousClock.now + .milliseconds(Int((pause(afterCountingFor: seconds) * 1000).rounded()))
        lock.withLock {
            exactCounts += 1
            last.removeAll { Self.isSameKind($0.counted, counted) }
            last.append(Count(counted: counted, count: count, netInserts: netInserts, notBefore: notBefore))
        }
    }

    private static func isSameKind(_ a: Counted, _ b: Counted) -> Bool {
        switch (a, b) {
        case (.total, .total), (.before, .before): return true
        default: return false
        }
    }
}
