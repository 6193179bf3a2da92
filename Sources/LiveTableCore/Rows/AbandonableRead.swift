import Foundation
import GRDB
import Synchronization

/// A read that can be left before it ends: abandoned (the user moved on) or
/// out of time. A slow source (a view that scans, a recursive view that
/// never ends) holds its serial connection until it ends, and every read
/// after it would wait. `abandon()` interrupts the running read
/// (`sqlite3_interrupt`, or a server's cancel request, registered by the
/// read with `setRunning(interrupt:)`) or fails it before it starts.
/// Between two statements, where SQLite forgets an interrupt, the progress
/// handler stops the next statement within a thousand steps.
package final class ReadTicket: Sendable {
    private struct State {
        var isAbandoned = false
        var interrupt: (@Sendable () -> Void)?
    }
    // A struct, not a tuple: a closure in a tuple is re-wrapped by each
    // `withLock`, and the wrappers pile up until releasing them overflows
    // the stack.
    private let state = Mutex(State())
    private let deadline: ContinuousClock.Instant?

    /// Nil `timeLimit`: the read never stops by itself.
    package init(timeLimit: TimeInterval? = nil) {
        deadline = timeLimit.map { .now + .nanoseconds(Int64(max(0, $0) * 1e9)) }
    }

    /// Its statements fail with `SQLITE_INTERRUPT`.
    package func abandon() {
        let interrupt = state.withLock { state in
            state.isAbandoned = true
            return state.interrupt
        }
        interrupt?()
    }

    var shouldStop: Bool {
        state.withLock { $0.isAbandoned } || deadline.map { ContinuousClock.now >= $0 } ?? false
    }

    /// A server's read gives it as its statement timeout.
    var remainingTime: TimeInterval? {
        deadline.map { deadline in
            max(0, ContinuousClock.now.duration(to: deadline).timeInterval)
        }
    }

    var isOutOfTime: Bool {
        deadline.map { ContinuousClock.now >= $0 } ?? false
    }

    /// False when it was abandoned already and must not start. `interrupt`
    /// (nil: the read ended) is called from any thread, and must interrupt
    /// only this ticket's read.
    func setRunning(interrupt: (@Sendable () -> Void)?) -> Bool {
        state.withLock { state in
            state.interrupt = interrupt
            return !state.isAbandoned
        }
    }
}
