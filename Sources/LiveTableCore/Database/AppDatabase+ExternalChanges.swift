import Dispatch
import Foundation
import GRDB
import OpenCombine

extension AppDatabase {
    /// Makes the observations of the database see the changes that other
    /// processes commit.
    ///
    /// GRDB sees the changes of its own connections only: a player inserted
    /// by another livetable, or by `sqlite3`, would stay off screen until
    /// the app's next own write. This method watches the database files
    /// (with inotify: nothing runs while nothing is written), and after
    /// each write to them asks SQLite whether another connection committed
    /// (`PRAGMA data_version`). If one did, the observations of the
    /// database fetch a fresh value, as after a write of the app. The app's
    /// own writes cost one `PRAGMA` on the writer connection, and nothing
    /// more.
    ///
    /// Call it before starting the observations: a change committed during
    /// the call may be missed by the observations that already run.
    ///
    /// For example:
    ///
    /// ```swift
    /// let appDatabase = try AppDatabase.open(path: "/tmp/players.sqlite")
    /// let externalChanges = try appDatabase.observeExternalChanges()
    /// let cancellable = appDatabase.observeHallOfFame(request).sink(
    ///     receiveCompletion: { _ in },
    ///     receiveValue: { hallOfFame in print(hallOfFame.playerCount) })
    /// ```
    ///
    /// - returns: A cancellable that stops watching when it is cancelled
    ///   or deinitialized. For a database in memory, which no other process
    ///   can open, it watches nothing.
    /// - throws: An error if the directory of the database can not be
    ///   watched (the system's limit of inotify watches is reached, for
    ///   example), or a `DatabaseError`.
    public func observeExternalChanges() throws -> AnyCancellable {
        let path = writer.path
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else {
            return AnyCancellable {}
        }
        // SQLite writes the journal and the WAL next to the file a symbolic
        // link points to.
        let file = URL(fileURLWithPath: path).resolvingSymlinksInPath()
        let name = file.lastPathComponent
        let queue = DispatchQueue(label: "livetable.externalChanges")
        let notifier = ExternalChangeNotifier(writer: writer, queue: queue)
        let source = try FileChangeSource(
            directory: file.deletingLastPathComponent().path,
            names: [name, name + "-wal", name + "-journal"],
            queue: queue,
            onChange: { notifier.fileDidChange() })
        try notifier.start()
        return AnyCancellable {
            source.cancel()
            notifier.cancel()
        }
    }
}

/// Notifies GRDB's observations of the changes committed by other
/// connections.
///
/// `PRAGMA data_version` of a connection changes when another connection
/// commits, and only then: comparing it on the writer connection after
/// each write to the files tells the writes of other processes from the
/// app's own.
// @unchecked Sendable: `isCheckScheduled`, `isCancelled` and `generation`
// are only accessed with `lock` held; `dataVersion` only in accesses to the writer,
// which are serialized.
private final class ExternalChangeNotifier: @unchecked Sendable {
    private let writer: any DatabaseWriter
    private let lock = NSLock()
    private let queue: DispatchQueue
    private var isCheckScheduled = false
    private var isCancelled = false
    /// The number of calls to `fileDidChange()`.
    private var generation = 0
    /// The data version of the last notified change.
    private var dataVersion: Int?

    /// The delays of the checks after the last write to the files.
    private static let laterChecks: [TimeInterval] = [0.02, 0.2, 1]

    init(writer: any DatabaseWriter, queue: DispatchQueue) {
        self.writer = writer
        self.queue = queue
    }

    /// Reads the current data version: later changes are compared to it.
    func start() throws {
        try writer.writeWithoutTransaction { db in
            dataVersion = try Self.dataVersion(db)
        }
    }

    /// Checks the data version now, and again a little later.
    ///
    /// A write to the files does not tell that a commit is over: the
    /// last write of a commit to the WAL comes before SQLite updates the
    /// WAL index that readers look at, and a commit in rollback mode may
    /// still hold its lock. The later checks, after the writes have
    /// stopped for a while, see the commit once it is over.
    func fileDidChange() {
        let generation = lock.withLock {
            self.generation += 1
            return self.generation
        }
        scheduleCheck()
        for delay in Self.laterChecks {
            queue.asyncAfter(deadline: .now() + delay) {
                guard self.lock.withLock({ self.generation == generation }) else {
                    return  // Another write came since: its own checks follow.
                }
                self.scheduleCheck()
            }
        }
    }

    /// Stops checking: the database may close.
    func cancel() {
        lock.withLock { isCancelled = true }
    }

    /// Schedules a check on the writer, unless one waits already: it will
    /// see this change too.
    private func scheduleCheck() {
        let schedules = lock.withLock {
            defer { isCheckScheduled = true }
            return !isCheckScheduled && !isCancelled
        }
        guard schedules else { return }
        writer.asyncWriteWithoutTransaction { db in
            let isCancelled = self.lock.withLock {
                self.isCheckScheduled = false
                return self.isCancelled
            }
            if !isCancelled {
                self.check(db)
            }
        }
    }

    private func check(_ db: Database) {
        do {
            let version = try Self.dataVersion(db)
            guard version != dataVersion else { return }
            // Observations are notified when a transaction commits. An
            // empty deferred transaction takes no lock.
            try db.inTransaction(.deferred) {
                try db.notifyChanges(in: .fullDatabase)
                return .commit
            }
            dataVersion = version
        } catch {
            // The file is locked: a later check sees the change. A lasting
            // problem shows when the observations fetch.
        }
    }

    private static func dataVersion(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0
    }
}
