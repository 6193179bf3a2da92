import Foundation
import GRDB
import CSQLite
import Synchronization

/// A read that can be left before it ends: abandoned (the user moved on) or
/// out of time. A slow source (a view that scans, a recursive view that
/// never ends) holds its serial connection until it ends, and every read
/// after it would wait. `abandon()` interrupts the running read
/// (`sqlite3_interrupt`, or a server's cancel request, registered by the
/// read with `setRunning(interrupt:)`) or fails it before it starts.
/// Between two statements, where SQLite forgets an interrupt, the progress
/// handler stops the next statement within a thousand steps.
public final class ReadTicket: Sendable {
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
    public init(timeLimit: TimeInterval? = nil) {
        deadline = timeLimit.map { .now + .nanoseconds(Int64(max(0, $0) * 1e9)) }
    }

    /// Its statements fail with `SQLITE_INTERRUPT`.
    public func abandon() {
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

/// The reads of one connection that can be left: which ticket runs now,
/// for the progress handler and for `ReadTicket.abandon()`.
// @unchecked Sendable: `interruptConnection` is set once, before any read.
final class ReadInterrupter: @unchecked Sendable {
    private let running = Mutex<ReadTicket?>(nil)
    var interruptConnection: @Sendable () -> Void = { }

    /// A few microseconds between two checks of the ticket.
    static let progressSteps: Int32 = 1000

    /// Called as the connection opens (`Configuration.prepareDatabase`);
    /// the connection keeps its configuration, and so this interrupter.
    func prepare(_ db: Database) {
        sqlite3_progress_handler(db.sqliteConnection, Self.progressSteps, { context in
            guard let context else { return 0 }
            let interrupter = Unmanaged<ReadInterrupter>.fromOpaque(context).takeUnretainedValue()
            return interrupter.shouldStop ? 1 : 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    var runningTicket: ReadTicket? {
        running.withLock { $0 }
    }

    private var shouldStop: Bool {
        running.withLock { $0 }?.shouldStop ?? false
    }

    func run<T>(_ ticket: ReadTicket, _ body: () throws -> T) throws -> T {
        guard ticket.setRunning(interrupt: { [weak self, weak ticket] in
            if let self, let ticket { self.interrupt(for: ticket) }
        }) else {
            throw DatabaseError(resultCode: .SQLITE_INTERRUPT, message: "interrupted")
        }
        running.withLock { $0 = ticket }
        defer {
            running.withLock { $0 = nil }
            _ = ticket.setRunning(interrupt: nil)
        }
        // Abandoned between the two locks: the progress handler stops it.
        return try body()
    }

    private func interrupt(for ticket: ReadTicket) {
        running.withLock { running in
            // Under the lock, `running` can not end: the statement that
            // SQLite interrupts is the ticket's.
            if running === ticket {
                interruptConnection()
            }
        }
    }
}
