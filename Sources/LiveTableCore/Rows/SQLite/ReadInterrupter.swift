import CSQLite
import GRDB
import Synchronization

/// The reads of one connection that can be left: which ticket runs now,
/// for the progress handler and for `ReadTicket.abandon()`.
// @unchecked Sendable: `interruptConnection` is set once, before any read.
final class ReadInterrupter: @unchecked Sendable {
    private let running = Mutex<ReadTicket?>(nil)
    /// Calls `sqlite3_interrupt` on the connection.
    var interruptConnection: @Sendable () -> Void = { }

    /// How many virtual machine steps run between two checks of the
    /// ticket: a few microseconds.
    static let progressSteps: Int32 = 1000

    /// Installs the progress handler on `db`: called as the connection
    /// opens (`Configuration.prepareDatabase`). The interrupter lives as
    /// long as the connection, which keeps its configuration.
    func prepare(_ db: Database) {
        sqlite3_progress_handler(db.sqliteConnection, Self.progressSteps, { context in
            guard let context else { return 0 }
            let interrupter = Unmanaged<ReadInterrupter>.fromOpaque(context).takeUnretainedValue()
            return interrupter.shouldStop ? 1 : 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The ticket of the read that runs now, if any.
    var runningTicket: ReadTicket? {
        running.withLock { $0 }
    }

    /// True when the read that runs must stop.
    private var shouldStop: Bool {
        running.withLock { $0 }?.shouldStop ?? false
    }

    /// Runs `body` on `db`, this interrupter's connection, for `ticket`.
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

    /// Interrupts the statement that runs, if it is `ticket`'s.
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
