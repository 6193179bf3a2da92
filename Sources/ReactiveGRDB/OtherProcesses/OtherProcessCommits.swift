import Foundation

/// How an observation publisher learns that another process committed
/// changes to its database file.
///
/// GRDB's observations see the transactions of their own database
/// connection only. `includingOtherProcesses(_:)` makes a publisher see the
/// commits of other processes too (another app, the `sqlite3` command, a
/// script), on a `DatabaseQueue` or a `DatabasePool`, writable or read-only
/// (`Configuration.readonly`), in WAL or rollback-journal mode.
///
/// For example:
///
/// ```swift
/// // Linux file events (inotify): nothing runs while nothing is written.
/// let players = ValueObservation
///     .tracking { db in try Player.fetchAll(db) }
///     .publisher(in: dbPool)
///     .includingOtherProcesses(.fileEvents)
///
/// // A network file system, where inotify sees no other machine's writes.
/// let remotePlayers = ValueObservation
///     .tracking { db in try Player.fetchAll(db) }
///     .publisher(in: dbPool)
///     .includingOtherProcesses(.polling(every: 1))
/// ```
public struct OtherProcessCommits: Sendable {
    enum Mode: Sendable, Hashable {
        case fileEvents
        case polling(TimeInterval)
        /// File events, and a check at the interval whatever the file
        /// system.
        case fileEventsAndPolling(TimeInterval)
    }

    let mode: Mode
    let onPollingFallback: (@Sendable (String) -> Void)?
    /// How often a subscription reads again while commits come.
    let pacing: RefreshPacing

    init(mode: Mode, onPollingFallback: (@Sendable (String) -> Void)?, pacing: RefreshPacing = .none) {
        self.mode = mode
        self.onPollingFallback = onPollingFallback
        self.pacing = pacing
    }

    /// The interval of the checks when inotify is not available (the
    /// system's limit of inotify instances or watches is reached), or can
    /// not see the writes of other machines (a `RemoteFileSystem`): 0.1 s.
    ///
    /// For example:
    ///
    /// ```swift
    /// print(OtherProcessCommits.fallbackPollingInterval) // 0.1
    /// ```
    public static let fallbackPollingInterval: TimeInterval = 0.1

    /// Watches the database files with Linux's inotify, and asks SQLite
    /// whether another connection committed (`PRAGMA data_version`) after
    /// each write to them.
    ///
    /// Nothing runs while nothing is written. If inotify is not available
    /// (the system's limit of inotify instances or watches is reached), the
    /// database is checked every `fallbackPollingInterval` instead. On a
    /// file system where other machines write without inotify seeing it (a
    /// `RemoteFileSystem`: NFS, SMB, FUSE, 9p, Ceph...), the database is
    /// checked every `fallbackPollingInterval` too, besides the file events.
    ///
    /// For example:
    ///
    /// ```swift
    /// let players = Player.all().rx
    ///     .observeAll(in: dbQueue)
    ///     .includingOtherProcesses(.fileEvents)
    /// ```
    public static let fileEvents = OtherProcessCommits(mode: .fileEvents, onPollingFallback: nil)

    /// Watches the database files with Linux's inotify, as `fileEvents`
    /// does, and calls `onPollingFallback` with a one-line reason when the
    /// database is polled every `fallbackPollingInterval`: inotify is not
    /// available, or the file is on a `RemoteFileSystem` (the reason is
    /// then its description: "network file system (nfs)", "FUSE file
    /// system (fuse)"; for a database in WAL mode there, whose commits
    /// from other machines can not be seen, a `RemoteWALFile`'s).
    ///
    /// For example:
    ///
    /// ```swift
    /// let players = Player.all().rx
    ///     .observeAll(in: dbQueue)
    ///     .includingOtherProcesses(.fileEvents(onPollingFallback: { reason in
    ///         print("Polling: \(reason)")
    ///     }))
    /// ```
    ///
    /// - parameter onPollingFallback: Called once per subscription, on an
    ///   unspecified queue, when the database is polled.
    public static func fileEvents(onPollingFallback: @escaping @Sendable (_ reason: String) -> Void) -> Self {
        OtherProcessCommits(mode: .fileEvents, onPollingFallback: onPollingFallback)
    }

    /// Watches the database files with Linux's inotify, as `fileEvents`
    /// does, and asks SQLite whether another connection committed every
    /// `interval` seconds too, whatever the file system: for a file that
    /// other machines write behind a file system that `RemoteFileSystem`
    /// does not know. On a `RemoteFileSystem`, the checks come every
    /// `interval` instead of every `fallbackPollingInterval`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let players = Player.all().rx
    ///     .observeAll(in: dbQueue)
    ///     .includingOtherProcesses(.fileEvents(checkingEvery: 0.5))
    /// ```
    ///
    /// - parameter interval: The interval between two checks, in seconds.
    ///   Values below 1 ms are raised to 1 ms.
    /// - parameter onPollingFallback: Called once per subscription, on an
    ///   unspecified queue, with a one-line reason, when inotify is not
    ///   available or the file is on a `RemoteFileSystem`.
    public static func fileEvents(
        checkingEvery interval: TimeInterval,
        onPollingFallback: (@Sendable (_ reason: String) -> Void)? = nil) -> Self
    {
        OtherProcessCommits(mode: .fileEventsAndPolling(max(interval, 0.001)), onPollingFallback: onPollingFallback)
    }

    /// Asks SQLite whether another connection committed every `interval`
    /// seconds, whether the files were written or not: for network file
    /// systems, where inotify does not report the writes of other machines.
    ///
    /// For example:
    ///
    /// ```swift
    /// let players = Player.all().rx
    ///     .observeAll(in: dbQueue)
    ///     .includingOtherProcesses(.polling(every: 0.5))
    /// ```
    ///
    /// - parameter interval: The interval between two checks, in seconds.
    ///   Values below 1 ms are raised to 1 ms.
    public static func polling(every interval: TimeInterval) -> Self {
        OtherProcessCommits(mode: .polling(max(interval, 0.001)), onPollingFallback: nil)
    }

    /// The same detection of commits, with the fresh values read at most
    /// as often as `pacing` allows, so that a writer of a rollback-journal
    /// file that commits without pause is not slowed down by the reads.
    ///
    /// Without it, a fresh value is read after each commit, one read at a
    /// time. With it, the first commit after a quiet spell is still read
    /// at once; the commits that come during a read, or the pause after
    /// it, make one read when the pause ends, so that the last commit of a
    /// burst is always published; during a burst, reads take at most
    /// `pacing.dutyCycle` of the time.
    ///
    /// For example:
    ///
    /// ```swift
    /// // A viewer of a file that another process writes without pause.
    /// let firstPlayers = ValueObservation
    ///     .tracking { db in try Player.limit(50).fetchAll(db) }
    ///     .publisher(in: dbQueue)
    ///     .includingOtherProcesses(.fileEvents.paced(.dutyCycle(0.1, minimumPause: 0.005)))
    /// ```
    ///
    /// - parameter pacing: How often the fresh values may be read.
    /// - returns: The same detection, paced.
    public func paced(_ pacing: RefreshPacing) -> Self {
        OtherProcessCommits(mode: mode, onPollingFallback: onPollingFallback, pacing: pacing)
    }
}

/// The error of an observation publisher that watches the commits of other
/// processes, when its database file is no longer the one it opened.
///
/// SQLite keeps reading the file it opened, even after it was deleted or
/// replaced: the values it would publish would never change again. Open the
/// database again to follow the new file.
///
/// For example:
///
/// ```swift
/// let cancellable = publisher.sink(
///     receiveCompletion: { completion in
///         if case let .failure(error as DatabaseFileChangedError) = completion {
///             print(error) // the database file "/tmp/players.sqlite" was deleted
///         }
///     },
///     receiveValue: { _ in })
/// ```
public struct DatabaseFileChangedError: Error, Equatable, CustomStringConvertible {
    /// What happened to the file.
    public enum Reason: Sendable, Equatable {
        /// The file was deleted.
        case deleted
        /// Another file took its place: renamed over it, the way many
        /// programs save ("atomic save"), or created after a removal.
        case replaced
        /// Its directory was deleted or renamed.
        case directoryGone
    }

    /// What happened to the file.
    public var reason: Reason

    /// The path of the database file.
    public var path: String

    /// A one-line description of the error.
    public var description: String {
        switch reason {
        case .deleted:
            return "the database file \"\(path)\" was deleted"
        case .replaced:
            return "the database file \"\(path)\" was replaced by another file"
        case .directoryGone:
            return "the directory of the database file \"\(path)\" was deleted or renamed"
        }
    }
}
