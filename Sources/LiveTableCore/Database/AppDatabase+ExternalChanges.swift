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
    /// own writes cost a few `PRAGMA` reads on the writer connection, not
    /// a fetch.
    ///
    /// inotify sees the writes of the processes of this machine: a network
    /// file system does not report the writes of other machines.
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
    ///   can open, or opened from a `file:` URI, it watches nothing.
    /// - throws: An error if the directory of the database can not be
    ///   watched (the system's limit of inotify watches is reached, for
    ///   example), or a `DatabaseError`.
    public func observeExternalChanges() throws -> AnyCancellable {
        guard let files = Self.watchedFiles(ofDatabaseAtPath: writer.path) else {
            return AnyCancellable {}
        }
        let queue = DispatchQueue(label: "livetable.externalChanges")
        let notifier = ExternalChangeNotifier(writer: writer, queue: queue)
        let source = try FileChangeSource(
            directory: files.directory,
            names: files.names,
            queue: queue,
            onChange: { notifier.fileDidChange() })
        try notifier.start()
        // The read source holds the notifier, and the cancellable holds the
        // source: cancelled or deinitialized, it stops both.
        return AnyCancellable {
            source.cancel()
            notifier.cancel()
        }
    }

    /// The directory and the names of the files that other processes write
    /// when they change the database at `path`, or nil for a database in
    /// memory or opened from a `file:` URI.
    static func watchedFiles(ofDatabaseAtPath path: String) -> (directory: String, names: Set<String>)? {
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else {
            return nil
        }
        // SQLite writes the journal and the WAL next to the file a symbolic
        // link points to.
        let file = URL(fileURLWithPath: path).resolvingSymlinksInPath()
        let name = file.lastPathComponent
        return (file.deletingLastPathComponent().path, [name, name + "-wal", name + "-journal"])
    }
}

/// Notifies GRDB's observations of the changes committed by other
/// connections.
///
/// `PRAGMA data_version` of a connection changes when another connection
/// commits: comparing it on the writer connection after each write to the
/// files tells the commits of other processes from the app's own.
///
/// A write to the files does not tell that a commit is over. The last
/// write of a commit to the WAL comes before SQLite syncs it (with
/// `synchronous=FULL`, the default of the `sqlite3` command) and publishes
/// it to readers in the WAL index, which is mapped in memory and makes no
/// file event; a commit in rollback mode may still hold its lock. So the
/// check runs again later, after the writes have stopped for a while, and
/// when a process closes the files.
// @unchecked Sendable: `isCheckScheduled` and `isCancelled` are only
// accessed with `lock` held; `deadlines` and `timer` on `queue`;
// `dataVersion` in accesses to the writer, which are serialized.
private final class ExternalChangeNotifier: @unchecked Sendable {
    private let writer: any DatabaseWriter
    private let queue: DispatchQueue
    private let lock = NSLock()
    private var isCheckScheduled = false
    private var isCancelled = false
    /// The data version of the last notified change.
    private var dataVersion: Int?
    /// The times of the later checks, soonest first.
    private var deadlines: [DispatchTime] = []
    private var timer: (any DispatchSourceTimer)?

    /// The delays of the later checks, after the last write to the files.
    private static let laterChecks: [Double] = [0.02, 0.2, 1, 3, 10]
    /// The delay of a new check after a check failed.
    private static let retryDelay: Double = 10

    init(writer: any DatabaseWriter, queue: DispatchQueue) {
        self.writer = writer
        self.queue = queue
    }

    /// Reads the current data version: later changes are compared to it.
    func start() throws {
        try writer.writeWithoutTransaction { db in
            dataVersion = try Self.dataVersion(db)
        }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [weak self] in
            self?.timerDidFire()
        }
        timer.resume()
        queue.sync { self.timer = timer }
    }

    /// Stops checking: the database may close.
    func cancel() {
        lock.withLock { isCancelled = true }
        queue.async { self.timer?.cancel() }
    }

    /// Checks now, and plans the later checks. Called on `queue`.
    func fileDidChange() {
        scheduleCheck()
        let now = DispatchTime.now()
        deadlines = Self.laterChecks.map { now + $0 }
        armTimer()
    }

    private func timerDidFire() {
        let now = DispatchTime.now()
        deadlines.removeAll { $0 <= now }
        scheduleCheck()
        armTimer()
    }

    private func armTimer() {
        timer?.schedule(deadline: deadlines.first ?? .distantFuture)
    }

    /// Schedules a check on the writer, unless one waits already: it will
    /// see this change too.
    private func scheduleCheck() {
        let schedules = lock.withLock {
            defer { isCheckScheduled = true }
            return !isCheckScheduled && !isCancelled
        }
        guard schedules else { return }
        writer.asyncWriteWithoutTransaction { [weak self] db in
            guard let self else { return }
            let isCancelled = lock.withLock {
                isCheckScheduled = false
                return self.isCancelled
            }
            if !isCancelled {
                check(db)
            }
        }
    }

    private func check(_ db: Database) {
        do {
            let version = try Self.dataVersion(db)
            guard version != dataVersion else { return }
            // Observations are notified when a transaction commits: an
            // empty deferred transaction writes nothing.
            try db.inTransaction(.deferred) {
                try db.notifyChanges(in: .fullDatabase)
                return .commit
            }
            dataVersion = version
        } catch {
            // The file is locked: check again later, until a check works.
            queue.async {
                if self.deadlines.isEmpty {
                    self.deadlines = [.now() + Self.retryDelay]
                    self.armTimer()
                }
            }
        }
    }

    private static func dataVersion(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0
    }
}
