import Dispatch
import GRDB
import OpenCombine
import ReactiveGRDB

// MARK: - Observation

extension AppDatabase {
    /// Returns a publisher of the Hall of Fame for a window of players.
    /// Each value is one read, so that its count, max score and players agree, at a cost that does not grow
    /// with the table.
    package func observeHallOfFame(
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
