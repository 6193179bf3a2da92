import Foundation
import GRDB
import Synchronization

/// Counts the commits of the app's writer, and reads its data version.
// @unchecked Sendable: `writerVersion` is only accessed on the writer's queue.
final class OwnCommitCounter: TransactionObserver, @unchecked Sendable {
    private let _count = Mutex(0)
    private var writerVersion: Int?

    /// The number of own commits that started. A commit is counted before
    /// it becomes visible to other connections.
    var count: Int { _count.withLock { $0 } }

    /// Starts counting. Called on the writer's queue.
    func start(_ db: Database) {
        db.add(transactionObserver: self, extent: .observerLifetime)
        writerVersion = try? Int.fetchOne(db, sql: "PRAGMA data_version")
    }

    /// Returns whether another connection committed since the last call.
    /// Called on the writer's queue: the writer's data version changes with
    /// the commits of other connections only.
    func writerSawOtherCommits(_ db: Database) -> Bool {
        guard let version = try? Int.fetchOne(db, sql: "PRAGMA data_version") else {
            // Closed or failing: another check will come.
            return true
        }
        defer { writerVersion = version }
        return version != writerVersion
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) { }
    func databaseDidCommit(_ db: Database) { }
    func databaseDidRollback(_ db: Database) { }

    func databaseWillCommit() throws {
        // The watch's own notification writes nothing.
        guard !OtherProcessNotification.isRunning else { return }
        _count.withLock { $0 += 1 }
    }
}
