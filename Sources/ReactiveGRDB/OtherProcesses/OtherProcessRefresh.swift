import Foundation
import GRDB
import Synchronization

/// Starts a database observation again, after a commit of another process:
/// an `ObservationStart` that also calls `onFetched` when a value is
/// fetched, before it is scheduled, so that the time of the read does not
/// include the wait for the subscriber's queue.
typealias RestartStart<Value> = @Sendable (
    _ onError: @escaping @Sendable (Error) -> Void,
    _ onChange: @escaping @Sendable (Value) -> Void,
    _ onFetched: @escaping @Sendable () -> Void)
-> AnyDatabaseCancellable

/// Fetches the value of a database observation once, on `reader`, as
/// `RestartStart` does: the observation that runs is left alone.
typealias RefetchStart<Value> = @Sendable (
    _ reader: any DatabaseReader,
    _ onError: @escaping @Sendable (Error) -> Void,
    _ onChange: @escaping @Sendable (Value) -> Void,
    _ onFetched: @escaping @Sendable () -> Void)
-> AnyDatabaseCancellable

/// How an observation subscription sees the commits of other processes,
/// which GRDB does not see.
struct OtherProcessRefresh<Value>: Sendable {
    /// What a subscription does when another process committed.
    enum Action: Sendable {
        /// Starts the observation again: its initial value is the fresh
        /// value. It works on read-only connections too, where GRDB fetches
        /// once, and fetches on a reader of a pool, without waiting for the
        /// writer. The start must not be `.immediate`: it is called from
        /// the watch's queue.
        case restart(RestartStart<Value>)
        /// Fetches the fresh value once, on a read-only connection of the
        /// watch, and keeps the observation, which sees the app's own
        /// transactions: on a writable pool, a restart fetches twice (on a
        /// reader, then on the writer).
        case refetch(RefetchStart<Value>)
        /// Calls its argument once, asynchronously, with the value to
        /// emit: a region observation emits a connection from the
        /// writer's queue.
        case emit(@Sendable (_ emit: @escaping @Sendable (Value) -> Void) -> Void)
        /// Makes GRDB notify the observations of a writable database: a
        /// shared observation refreshes all its subscribers. The watch
        /// notifies once per commit, for all the subscriptions that ask.
        case notify
    }

    /// The observed database.
    var reader: any DatabaseReader
    /// How commits are detected.
    var commits: OtherProcessCommits
    /// What the subscription does after one.
    var action: Action
    /// Runs its argument where the observation delivers its errors: a
    /// `DatabaseFileChangedError` comes from the watch's queue, and must
    /// reach the subscriber where the observation's own errors do.
    var schedule: @Sendable (_ work: @escaping @Sendable () -> Void) -> Void
}

/// When the value of a refresh was fetched: its first value only, by the
/// clock of its `PacedReads`.
final class FetchStamp: Sendable {
    private let paced: PacedReads
    private let _time = Mutex<TimeInterval?>(nil)

    init(_ paced: PacedReads) {
        self.paced = paced
    }

    /// The time of the first call to `stamp()`.
    var time: TimeInterval? { _time.withLock { $0 } }

    func stamp() {
        let now = paced.now
        _time.withLock { time in
            if time == nil { time = now }
        }
    }
}

/// The watch's registration is the signal of a subscription's `PacedReads`.
extension CommitWatch.Registration: CommitSignal {
    func readerWantsCommits() {
        listenerWantsCommits()
    }
}
