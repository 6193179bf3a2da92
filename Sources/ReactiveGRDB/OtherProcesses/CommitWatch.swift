import Dispatch
import Foundation
import GRDB
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Watches a database file for the commits of other processes, and tells
/// its listeners: the engine of `includingOtherProcesses(_:)`.
///
/// One watch serves all the subscriptions of one database connection
/// (`DatabaseQueue` or `DatabasePool`) and one way of detecting commits.
/// It lives while it has listeners.
///
/// ## How a commit is detected
///
/// `PRAGMA data_version` of a connection changes when another connection
/// commits. The watch asks it of a connection of its own, read-only, that
/// waits 5 ms at most for a lock, so that the question never waits behind
/// the app's writes (a write of the app may wait seconds for the lock of
/// another process). It asks after each write that inotify reports on the
/// database, `-wal` and `-journal` files, or at a fixed interval when it
/// polls.
///
/// ## Other machines
///
/// inotify sees the writes made through this machine's kernel only. On a
/// file system where other machines write (a `RemoteFileSystem`: NFS, SMB,
/// FUSE, 9p, Ceph...), the `.fileEvents` watch asks at an interval too
/// (`OtherProcessCommits.fallbackPollingInterval`), and says why through
/// `onPollingFallback`. Each check is one `PRAGMA data_version`: on such a
/// file system, round trips to the server for the file's shared lock and
/// its header. A local file costs nothing while nothing is written.
///
/// A write event comes before its commit is visible. A rollback-journal
/// commit deletes, truncates or zeroes its journal, then releases its lock:
/// the check after that last write waits for the lock, and sees the commit.
/// A WAL commit writes the `-wal` file, syncs it, then publishes the commit
/// in the WAL index, which is mapped in memory and makes no event. So after
/// a write to the `-wal` file, or a check that found the file locked too
/// long, the watch asks again at growing intervals from 0.5 ms
/// (`recheckDelays`): a PRAGMA each, only while such writes happen.
///
/// ## The app's own commits
///
/// The watch's connection sees the commits of the app's own writer too.
/// GRDB notifies those already, so they must not cause another fetch. The
/// watch counts them (a transaction observer on the writer counts each
/// commit before it becomes visible). A change of data version with no own
/// commit since the last check comes from another process. A change after
/// an own commit is ambiguous: the writer's own `data_version`, which only
/// other connections' commits change, settles it on the writer's queue.
// @unchecked Sendable: the mutable properties outside `shared` only on `queue`.
final class CommitWatch: @unchecked Sendable {
    /// What a subscription is told.
    struct Listener: Sendable {
        /// Another process committed.
        var onCommit: @Sendable () -> Void
        /// False while the listener has a commit to read already: it reads
        /// all the commits made until then, and another one changes
        /// nothing for it.
        var wantsCommits: @Sendable () -> Bool = { true }
        /// The file is no longer the one the database opened: no commit
        /// will be seen anymore.
        var onFailure: @Sendable (Error) -> Void
        /// The watch polls, and why: inotify is not available, or does not
        /// see other machines' writes (a `RemoteFileSystem`).
        var onPollingFallback: (@Sendable (String) -> Void)?
    }

    // MARK: - Registry

    private struct Key: Hashable {
        var reader: ObjectIdentifier
        var mode: OtherProcessCommits.Mode
    }

    private struct Registry {
        var watches: [Key: CommitWatch] = [:]
        /// The connections whose file was deleted or replaced: they read the
        /// file they opened, so a new watch (of the new file) fails at once.
        var fileChanges: [ObjectIdentifier: (reader: WeakReader, error: DatabaseFileChangedError)] = [:]
    }
    private static let registry = Mutex(Registry())

    /// Makes a source of the file events of a directory. Tests replace it
    /// to see what happens when inotify is not available.
    // nonisolated(unsafe): set by tests before any watch starts.
    nonisolated(unsafe) static var makeFileChangeSource = {
        (directory: String, names: Set<String>, queue: DispatchQueue,
         onChange: @escaping @Sendable (FileChangeSource.Events) -> Void) throws -> FileChangeSource in
        try FileChangeSource(directory: directory, names: names, queue: queue, onChange: onChange)
    }

    /// Starts telling `listener` about the commits of other processes to
    /// the database of `reader`.
    ///
    /// - returns: The registration, or nil for a database in memory, which
    ///   no other process can open.
    /// - throws: An error if the database file can not be found or opened.
    static func register(
        reader: any DatabaseReader,
        commits: OtherProcessCommits,
        listener: Listener) throws -> Registration?
    {
        guard let files = try watchedFiles(ofDatabaseAtPath: reader.path) else {
            return nil
        }
        let key = Key(reader: ObjectIdentifier(reader), mode: commits.mode)
        return try registry.withLock { registry in
            if let fileChange = registry.fileChanges[key.reader] {
                if fileChange.reader.reader === reader {
                    throw fileChange.error
                }
                // Another connection at the same address.
                registry.fileChanges[key.reader] = nil
            }
            let watch: CommitWatch
            if let existing = registry.watches[key], existing.isUsable {
                watch = existing
            } else {
                watch = try CommitWatch(reader: reader, files: files, mode: commits.mode, key: key)
                registry.watches[key] = watch
            }
            return watch.addListener(listener)
        }
    }

    /// Whether a watch of the database of `reader` runs: the tests check
    /// that the last subscription releases it.
    static func isWatching(_ reader: any DatabaseReader) -> Bool {
        registry.withLock { registry in
            registry.watches.keys.contains { $0.reader == ObjectIdentifier(reader) }
        }
    }

    /// The data versions that the watches of `reader` asked so far.
    static func checkCount(of reader: any DatabaseReader) -> Int {
        watches(of: reader).reduce(0) { $0 + $1.shared.withLock(\.checkCount) }
    }

    /// The checks of the watches of `reader` that asked no data version,
    /// since the file's change counter was that of the last one.
    static func sparedCheckCount(of reader: any DatabaseReader) -> Int {
        watches(of: reader).reduce(0) { $0 + $1.shared.withLock(\.sparedCount) }
    }

    private static func watches(of reader: any DatabaseReader) -> [CommitWatch] {
        registry.withLock { registry in
            Array(registry.watches.filter { $0.key.reader == ObjectIdentifier(reader) }.values)
        }
    }

    // MARK: - Watch

    /// The delays of the checks after a write to the files, after the
    /// immediate one. Dense first, because a commit becomes visible within
    /// a millisecond of its last write on a local disk; the later ones
    /// catch a slow sync, or a lock held after the write.
    static let recheckDelays: [Double] = [
        0.0005, 0.001, 0.0015, 0.002, 0.003, 0.004, 0.006, 0.008, 0.012, 0.016, 0.024,
        0.032, 0.05, 0.1, 0.2, 0.5, 1, 3, 10,
    ]
    /// The delay of a new check while checks fail (the file is locked).
    static let retryDelay: Double = 1

    private let key: Key
    private let path: String
    private let directory: String
    private let queue = DispatchQueue(label: "ReactiveGRDB.CommitWatch")
    private let shared = Mutex(Shared())
    /// The watch's own read-only connection, which asks the data version.
    private let checker: DatabaseQueue
    /// The connection that fetches the fresh values of a writable pool's
    /// observations, once each (`OtherProcessRefresh.Action.refetch`).
    let refetcher: DatabaseQueue?
    /// The app's writer, if it writes: it settles ambiguous changes.
    private let writer: (any DatabaseWriter)?
    let ownCommits: OwnCommitCounter?
    private let fileIdentity: FileIdentity?

    /// The watched connection.
    private let reader: WeakReader
    /// What the listeners' threads and the watch's queue share.
    private struct Shared {
        var listeners: [Int: Listener] = [:]
        var nextListenerID = 0
        var failure: DatabaseFileChangedError?
        var isCancelled = false
        var fallbackReason: String?
        /// Other processes' commits seen, and those that a notification of
        /// the writer covers: one a commit, whatever the listeners.
        var commitCount = 0
        var notifiedCommitCount = 0
        var isNotifyPending = false
        /// The data versions asked so far, and the checks that the change
        /// counter spared: the tests count them.
        var checkCount = 0
        var sparedCount = 0
    }

    private var source: FileChangeSource?
    /// The checks after a write (`deadlines`).
    private var timer: (any DispatchSourceTimer)?
    /// The checks at an interval, when the watch polls.
    private var pollTimer: (any DispatchSourceTimer)?
    private var dataVersion: Int
    private var changeCounter: ChangeCounter?
    private var checkedOwnCommits = 0
    private var isSettling = false
    private var needsSettlingAgain = false
    private var deadlines: [DispatchTime] = []
    private var pollingInterval: Double?
    /// The checks at an interval since the last check of the file's identity.
    private var pollCount = 0

    private var isUsable: Bool {
        shared.withLock { $0.failure == nil && !$0.isCancelled }
    }

    private init(reader: any DatabaseReader, files: (file: String, directory: String, names: Set<String>), mode: OtherProcessCommits.Mode, key: Key) throws {
        self.key = key
        self.reader = WeakReader(reader)
        self.directory = files.directory
        self.path = files.file
        var configuration = Configuration()
        configuration.readonly = true
        // A check that finds the file locked waits a few milliseconds, at
        // most, for the gap between two commits of a writer that commits
        // back to back (who holds the lock most of the time), then is tried
        // again later: it never blocks the watch for long.
        configuration.busyMode = .callback { tries in
            usleep(200)
            return tries < 25
        }
        configuration.label = "ReactiveGRDB.CommitWatch"
        // The file itself: a URI's `mode=rw` would not open read-only.
        checker = try DatabaseQueue(path: path, configuration: configuration)
        fileIdentity = FileIdentity(path: path)
        var changeCounter = ChangeCounter(path: path)
        do {
            let header = changeCounter?.header()
            dataVersion = try Self.dataVersion(checker)
            changeCounter?.checkedHeader = header
        } catch {
            // Locked right now: any version will do, since the next check
            // will tell a change, and the observation fetches at its start
            // anyway.
            dataVersion = -1
        }
        self.changeCounter = changeCounter
        if reader is DatabasePool, !reader.configuration.readonly {
            // The app's configuration: its functions and collations serve
            // the fetches.
            var configuration = reader.configuration
            configuration.readonly = true
            configuration.label = "ReactiveGRDB.CommitWatch.refetch"
            refetcher = try? DatabaseQueue(path: path, configuration: configuration)
        } else {
            refetcher = nil
        }
        if let writer = reader as? any DatabaseWriter, !reader.configuration.readonly {
            let ownCommits = OwnCommitCounter()
            self.writer = writer
            self.ownCommits = ownCommits
            writer.asyncWriteWithoutTransaction { db in
                ownCommits.start(db)
            }
        } else {
            writer = nil
            ownCommits = nil
        }

        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [weak self] in self?.timerDidFire() }
        timer.resume()
        self.timer = timer

        let askedInterval: TimeInterval?
        switch mode {
        case let .polling(interval):
            startPolling(every: interval)
            return
        case .fileEvents:
            askedInterval = nil
        case let .fileEventsAndPolling(interval):
            askedInterval = interval
        }
        let interval = askedInterval ?? OtherProcessCommits.fallbackPollingInterval
        do {
            source = try Self.makeFileChangeSource(files.directory, files.names, queue) { [weak self] events in
                self?.filesDidChange(events)
            }
        } catch {
            let reason = "\(error); checking every \(Self.format(interval)) instead"
            shared.withLock { $0.fallbackReason = reason }
            startPolling(every: interval)
            return
        }
        // inotify reports this machine's writes at once; the checks at an
        // interval catch the others'.
        if let fileSystem = RemoteFileSystem(containingFileAt: path) {
            // In WAL mode there, other machines' commits can not be seen.
            let reason = RemoteWALFile(path: path)?.description ?? fileSystem.description
            shared.withLock { $0.fallbackReason = reason }
            startPolling(every: interval)
        } else if askedInterval != nil {
            startPolling(every: interval)
        }
    }

    private func addListener(_ listener: Listener) -> Registration {
        let (id, fallbackReason) = shared.withLock { shared in
            defer { shared.nextListenerID += 1 }
            shared.listeners[shared.nextListenerID] = listener
            return (shared.nextListenerID, shared.fallbackReason)
        }
        if let fallbackReason, let onPollingFallback = listener.onPollingFallback {
            queue.async { onPollingFallback(fallbackReason) }
        }
        return Registration(watch: self, id: id)
    }

    func removeListener(id: Int) {
        let isLast = shared.withLock { shared in
            shared.listeners[id] = nil
            return shared.listeners.isEmpty
        }
        guard isLast else { return }
        Self.registry.withLock { registry in
            // A new listener may have come in between.
            let isStillLast = shared.withLock { shared in
                guard shared.listeners.isEmpty else { return false }
                shared.isCancelled = true
                return true
            }
            guard isStillLast else { return }
            if registry.watches[key] === self {
                registry.watches[key] = nil
            }
        }
        stop()
    }

    /// Stops watching, and closes the connection, so that the app can
    /// close the database right after: the last connection to close a WAL
    /// database removes its `-wal` and `-shm` files.
    private func stop() {
        queue.async { [self] in
            source?.cancel()
            source = nil
            timer?.cancel()
            timer = nil
            pollTimer?.cancel()
            pollTimer = nil
        }
        try? checker.close()
        try? refetcher?.close()
    }

    // MARK: - Checks

    private func filesDidChange(_ events: FileChangeSource.Events) {
        if !events.isDisjoint(with: [.moved, .directoryGone]) {
            checkFileIdentity()
        }
        let outcome = check()
        if outcome == .unwanted {
            // Every listener has a commit to read already: the writes that
            // follow, thousands a second from a writer that commits without
            // pause, wait in the kernel until one wants commits again
            // (`listenerWantsCommits()`), rather than wake the watch for
            // nothing.
            source?.suspend()
        }
        // Only a WAL commit needs the checks that follow (see the header):
        // a rollback-journal writer holds the lock from its first write to
        // the database until after its last write, so the check after that
        // write's event waits for the lock, and sees the commit.
        guard events.contains(.walWritten) || outcome != .looked else { return }
        let now = DispatchTime.now()
        deadlines = Self.recheckDelays.map { now + $0 }
        armTimer()
    }

    /// A listener wants commits again: report the writes held back, and
    /// look at once.
    func listenerWantsCommits() {
        queue.async { [self] in
            guard let source, source.isSuspended else { return }
            source.resume()
            check()
            let now = DispatchTime.now()
            deadlines = Self.recheckDelays.map { now + $0 }
            armTimer()
        }
    }

    /// Checks every `interval`, besides the checks after the writes
    /// inotify reports, if any. Called in `init`.
    private func startPolling(every interval: Double) {
        pollingInterval = interval
        let pollTimer = DispatchSource.makeTimerSource(queue: queue)
        pollTimer.setEventHandler { [weak self] in self?.pollTimerDidFire() }
        // Leeway: the system may gather the wake-ups of several timers.
        pollTimer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(Int(interval * 50)))
        pollTimer.resume()
        self.pollTimer = pollTimer
    }

    private func pollTimerDidFire() {
        // The identity costs a `stat`, a round trip on a network file
        // system, as much as a third of a check: once a second is enough
        // to tell a replaced file.
        pollCount += 1
        if let pollingInterval, Double(pollCount) * pollingInterval >= 1 {
            pollCount = 0
            checkFileIdentity()
        }
        check()
    }

    private func timerDidFire() {
        let now = DispatchTime.now()
        deadlines.removeAll { $0 <= now }
        if check() != .unwanted {
            source?.resume()
        }
        armTimer()
    }

    private func armTimer() {
        timer?.schedule(deadline: deadlines.first ?? .distantFuture)
    }

    /// Asks the data version, and tells the listeners if another process
    /// committed. Called on `queue`.
    ///
    /// No check runs while every listener has a commit to read already (a
    /// paced subscription waits for the end of its pause): on a
    /// rollback-journal file, each check takes the shared lock, which a
    /// writer that commits without pause would meet again and again. The
    /// first check after that sees the commits made meanwhile.
    ///
    @discardableResult
    private func check() -> CheckOutcome {
        let listeners: [Listener]? = shared.withLock { shared in
            shared.isCancelled || shared.failure != nil ? nil : Array(shared.listeners.values)
        }
        guard let listeners else { return .looked }
        guard listeners.contains(where: { $0.wantsCommits() }) else { return .unwanted }
        let header = changeCounter?.header()
        if let header, header == changeCounter?.checkedHeader {
            shared.withLock { $0.sparedCount += 1 }
            return .looked
        }
        let version: Int
        do {
            shared.withLock { $0.checkCount += 1 }
            version = try Self.dataVersion(checker)
            changeCounter?.checkedHeader = header
        } catch {
            // Locked by another process: look again until a check works.
            if deadlines.isEmpty && pollingInterval == nil {
                deadlines = [.now() + Self.retryDelay]
                armTimer()
            }
            return .locked
        }
        guard version != dataVersion else { return .looked }
        dataVersion = version
        // Read after the version: an own commit visible in `version` was
        // counted before it became visible.
        let ownCommitCount = ownCommits?.count ?? 0
        if ownCommitCount == checkedOwnCommits {
            notifyCommit()
        } else {
            checkedOwnCommits = ownCommitCount
            settleOnWriter()
        }
        return .looked
    }

    private enum CheckOutcome {
        /// The data version was read, or the watch is over.
        case looked
        /// The file was locked for longer than the check waits.
        case locked
        /// No listener wants commits: nothing was asked.
        case unwanted
    }

    /// Asks the writer whether another connection committed since it last
    /// looked: the change seen after an own commit may be the own commit
    /// only. At most one question waits on the writer.
    private func settleOnWriter() {
        guard let writer, let ownCommits else { return }
        guard !isSettling else {
            // The question on its way may have been answered before this
            // change: ask again after it.
            needsSettlingAgain = true
            return
        }
        isSettling = true
        writer.asyncWriteWithoutTransaction { [weak self] db in
            let hasOtherCommits = ownCommits.writerSawOtherCommits(db)
            guard let self else { return }
            queue.async { [self] in
                isSettling = false
                if hasOtherCommits {
                    notifyCommit()
                }
                if needsSettlingAgain {
                    needsSettlingAgain = false
                    settleOnWriter()
                }
            }
        }
    }

    private func notifyCommit() {
        let listeners = shared.withLock { shared in
            shared.commitCount += 1
            return shared.isCancelled ? [] : Array(shared.listeners.values)
        }
        for listener in listeners {
            listener.onCommit()
        }
    }

    /// Makes GRDB notify the observations of the writer that the database
    /// changed, as after one of its transactions, unless a notification
    /// that runs after the last commit seen waits already.
    func notifyWriter() {
        guard let writer else { return }
        let schedules = shared.withLock { shared in
            guard !shared.isNotifyPending, shared.commitCount > shared.notifiedCommitCount else { return false }
            shared.isNotifyPending = true
            return true
        }
        guard schedules else { return }
        writer.asyncWriteWithoutTransaction { [weak self] db in
            guard let self else { return }
            // The fetches it causes see every commit seen until now.
            shared.withLock { shared in
                shared.isNotifyPending = false
                shared.notifiedCommitCount = shared.commitCount
            }
            // Observations are notified when a transaction commits: an
            // empty deferred transaction writes nothing.
            OtherProcessNotification.run {
                try? db.inTransaction(.deferred) {
                    try db.notifyChanges(in: .fullDatabase)
                    return .commit
                }
            }
        }
    }

    /// Fails the listeners if the file was deleted or replaced.
    private func checkFileIdentity() {
        guard let fileIdentity else { return }
        let reason: DatabaseFileChangedError.Reason
        switch FileIdentity(path: path) {
        case fileIdentity:
            return
        case nil:
            reason = FileManager.default.fileExists(atPath: directory) ? .deleted : .directoryGone
        default:
            reason = .replaced
        }
        let error = DatabaseFileChangedError(reason: reason, path: path)
        Self.registry.withLock { registry in
            registry.fileChanges[key.reader] = (reader, error)
        }
        let listeners = shared.withLock { shared in
            guard shared.failure == nil, !shared.isCancelled else { return [Listener]() }
            shared.failure = error
            return Array(shared.listeners.values)
        }
        source?.cancel()
        source = nil
        timer?.cancel()
        timer = nil
        pollTimer?.cancel()
        pollTimer = nil
        for listener in listeners {
            listener.onFailure(error)
        }
    }

    private static func dataVersion(_ checker: DatabaseQueue) throws -> Int {
        try checker.inDatabase { db in
            // Cached: on a polled file, the question comes ten times a second.
            try Int.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) ?? 0
        }
    }
}
