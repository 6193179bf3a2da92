import Foundation
import GRDB
import Synchronization

/// A read that can be left before it ends: abandoned (the user moved on),
/// or out of time. The database then stops it (SQLite at its next step),
/// and the connection is free for the next read at once.
///
/// A read of a slow source (a view that scans, a recursive view that never
/// ends) holds its connection until it ends, and the connection is serial:
/// every read after it would wait. So each read that the screen may leave
/// carries a ticket: `abandon()` interrupts it (`sqlite3_interrupt`) if it
/// runs, and makes it fail at once if it has not started yet. Between two
/// statements of the same read, where `sqlite3_interrupt` would be lost
/// (SQLite forgets it when no statement runs), the connection's progress
/// handler stops the next statement within a thousand steps.
///
/// For example:
///
/// ```swift
/// let ticket = ReadTicket(timeLimit: 1)
/// // On another thread, later: ticket.abandon()
/// let count = try? database.read(background: true, ticket: ticket) { db in
///     try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM slowView")
/// } // nil after a second at most
/// ```
///
/// A ticket knows nothing of the database: the read that runs registers
/// how to interrupt it (`setRunning(interrupt:)`): `sqlite3_interrupt`
/// for SQLite (`ReadInterrupter`), a cancel request for a server.
public final class ReadTicket: Sendable {
    private struct State {
        var isAbandoned = false
        /// Interrupts the read that runs now, if any.
        var interrupt: (@Sendable () -> Void)?
    }
    // A struct, not a tuple: a closure in a tuple is re-wrapped by each
    // `withLock`, and the wrappers pile up until releasing them overflows
    // the stack.
    private let state = Mutex(State())
    /// When the read stops by itself, if ever.
    private let deadline: ContinuousClock.Instant?

    /// A ticket for a read that stops after `timeLimit` seconds, or never
    /// by itself when nil.
    public init(timeLimit: TimeInterval? = nil) {
        deadline = timeLimit.map { .now + .nanoseconds(Int64(max(0, $0) * 1e9)) }
    }

    /// Stops the read: at once if it runs, before it starts otherwise. Its
    /// statements fail with `SQLITE_INTERRUPT`.
    public func abandon() {
        let interrupt = state.withLock { state in
            state.isAbandoned = true
            return state.interrupt
        }
        interrupt?()
    }

    /// True once abandoned, or out of time.
    var shouldStop: Bool {
        state.withLock { $0.isAbandoned } || deadline.map { ContinuousClock.now >= $0 } ?? false
    }

    /// The seconds left before the read stops by itself, nil when never:
    /// a server's read gives it as its statement timeout.
    var remainingTime: TimeInterval? {
        deadline.map { deadline in
            max(0, ContinuousClock.now.duration(to: deadline).timeInterval)
        }
    }

    /// True when its time ran out (not abandoned).
    var isOutOfTime: Bool {
        deadline.map { ContinuousClock.now >= $0 } ?? false
    }

    /// Marks the read as running, interrupted by `interrupt` if it is
    /// abandoned (nil: it ended); false when it was abandoned already, and
    /// must not start. `interrupt` is called from any thread, and must
    /// interrupt only this ticket's read.
    func setRunning(interrupt: (@Sendable () -> Void)?) -> Bool {
        state.withLock { state in
            state.interrupt = interrupt
            return !state.isAbandoned
        }
    }
}
