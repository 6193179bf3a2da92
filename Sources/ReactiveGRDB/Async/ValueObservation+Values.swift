import Dispatch
import GRDB

// The async forms of value observations. GRDB's own `values(in:)` is kept as
// it is: these are reached through `rx`, so that they never clash with it,
// and differ where GRDB's does not fit Linux: they see other processes'
// commits, refresh on a read-only connection, and keep the newest value by
// default.

extension GRDBReactive {
    /// Returns an asynchronous sequence of observed values: an initial
    /// value, then a fresh value whenever a transaction has changed the
    /// observed region, and, with `includingOtherProcesses(_:)`, after each
    /// commit of another process.
    ///
    /// For example:
    ///
    /// ```swift
    /// let observation = ValueObservation.tracking { db in
    ///     try Player.fetchAll(db)
    /// }
    ///
    /// for try await players in observation.rx.values(in: dbQueue).includingOtherProcesses() {
    ///     print("Fresh players: \(players)")
    /// }
    /// ```
    ///
    /// It differs from GRDB's `values(in:scheduling:bufferingPolicy:)` in
    /// three ways: it keeps the newest value only by default, so that a slow
    /// consumer ends on the latest state; it can include the commits of
    /// other processes; and with them, it keeps refreshing on a read-only
    /// connection. Values go from the database observation to the task
    /// that iterates: no main queue is needed.
    ///
    /// The observation starts when the iteration starts, and stops when the
    /// task is cancelled or the loop is left.
    ///
    /// - parameter reader: A database reader.
    /// - parameter bufferingPolicy: Which values the sequence keeps while
    ///   the consumer is busy: by default, the newest one.
    /// - returns: An asynchronous sequence of observed values.
    public func values<Reducer>(
        in reader: any DatabaseReader,
        bufferingPolicy: DatabaseValues<Reducer.Value>.BufferingPolicy = .bufferingNewest(1))
    -> DatabaseValues<Reducer.Value>
    where Base == ValueObservation<Reducer>
    {
        let observation = base
        return DatabaseValues(bufferingPolicy: bufferingPolicy) { scheduler, commits in
            let publisher = observation.publisher(in: reader, scheduling: scheduler)
            return commits.map { publisher.includingOtherProcesses($0) } ?? publisher
        }
    }
}

extension SharedValueObservation {
    /// Returns an asynchronous sequence of the shared observed values, that
    /// also sees the commits of other processes to the database of
    /// `reader`.
    ///
    /// `reader` must be the database the observation was shared in. Values
    /// are delivered with the scheduler given to
    /// `ValueObservation.shared(in:scheduling:extent:)`, by default the main
    /// queue: where nothing drains the main queue (a server, for example),
    /// share the observation with another scheduler.
    ///
    /// For example:
    ///
    /// ```swift
    /// let sharedObservation = ValueObservation
    ///     .tracking { db in try Player.fetchAll(db) }
    ///     .shared(in: dbPool, scheduling: .async(onQueue: DispatchQueue(label: "players")))
    ///
    /// for try await players in sharedObservation.values(includingOtherProcessesIn: dbPool) {
    ///     print("Fresh players: \(players)")
    /// }
    /// ```
    ///
    /// A commit of another process refreshes the shared observation as
    /// `publisher(includingOtherProcessesIn:_:)` does. GRDB's own
    /// `values(bufferingPolicy:)` serves a shared observation that needs
    /// no other process.
    ///
    /// - parameter reader: The database the observation was shared in.
    /// - parameter commits: How the commits are detected: by default,
    ///   with inotify's file events.
    /// - parameter bufferingPolicy: Which values the sequence keeps while
    ///   the consumer is busy: by default, the newest one.
    /// - returns: An asynchronous sequence of observed values.
    public func values(
        includingOtherProcessesIn reader: any DatabaseReader,
        _ commits: OtherProcessCommits = .fileEvents,
        bufferingPolicy: DatabaseValues<Element>.BufferingPolicy = .bufferingNewest(1))
    -> DatabaseValues<Element>
    {
        DatabaseValues(commits: commits, bufferingPolicy: bufferingPolicy) { scheduler, commits in
            // The shared observation delivers its values with its own
            // scheduler; the sequence's queue delivers the errors of the
            // watch, so that they need no main queue either.
            self.publisher(
                includingOtherProcessesIn: reader, commits ?? .fileEvents,
                schedule: { work in scheduler.schedule(work) })
        }
    }
}
