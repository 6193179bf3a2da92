import Dispatch
import GRDB
import OpenCombine
import ReactiveGRDB

// MARK: - Observation

extension AppDatabase {
    /// Returns a publisher of the Hall of Fame for a window of players.
    ///
    /// Each value is fetched in a single read: the player count, the max
    /// score and the players always agree. The cost of each value does not
    /// depend on the number of players (see `HallOfFame.fetch(_:_:)`).
    /// Consecutive equal values are not published.
    ///
    /// For example:
    ///
    /// ```swift
    /// let request = WindowRequest(ordering: .byScore, anchor: .first, before: 0, after: 20)
    /// let cancellable = appDatabase.observeHallOfFame(request).sink(
    ///     receiveCompletion: { _ in },
    ///     receiveValue: { hallOfFame in print(hallOfFame.players) })
    /// ```
    ///
    /// - parameter request: The window of players.
    /// - parameter scheduler: A `ValueObservationScheduler`. By default,
    ///   values are delivered asynchronously on the main dispatch queue.
    /// - returns: A publisher of Hall of Fame values.
    public func observeHallOfFame(
        _ request: WindowRequest,
        scheduling scheduler: some ValueObservationScheduler = .async(onQueue: .main))
    -> DatabasePublishers.Value<HallOfFame>
    {
        // A constant region, as with `trackingConstantRegion`, so that a
        // DatabasePool fetches fresh values on a reader, concurrently with
        // writes. The region is given rather than recorded from the first
        // fetch, because which statements a fetch runs depends on the
        // anchor: the whole player table is observed, whatever the first
        // fetch read. The statistics tables change with it (triggers).
        let publisher = ValueObservation
            .tracking(regions: [Table("player"), Table("playerStats")]) { db in
                try HallOfFame.fetch(db, request)
            }
            .removeDuplicates()
            .publisher(in: writer, scheduling: scheduler)
        return otherProcessCommits.withLock { $0 }.map(publisher.includingOtherProcesses) ?? publisher
    }
}
