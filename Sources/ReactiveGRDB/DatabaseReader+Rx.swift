import Dispatch
import GRDB
import OpenCombine
import OpenCombineDispatch

extension DatabaseReader {
    /// Returns a publisher that asynchronously reads one value from the
    /// database, and then completes.
    ///
    /// This is GRDB's spelling of `rx.read(observeOn:value:)`: both return the
    /// same publisher.
    ///
    /// For example:
    ///
    /// ```swift
    /// let players = dbQueue.readPublisher { db in
    ///     try Player.fetchAll(db)
    /// }
    /// ```
    ///
    /// - parameter scheduler: The scheduler that publishes the value or the
    ///   error. By default, the main dispatch queue.
    /// - parameter value: A closure that accesses the database. It has a
    ///   read-only access: an attempt to write fails with `SQLITE_READONLY`.
    /// - returns: A publisher of the read value.
    public func readPublisher<Output>(
        receiveOn scheduler: some OpenCombine.Scheduler = DispatchQueue.main.ocombine,
        value: @escaping @Sendable (Database) throws -> Output)
    -> DatabasePublishers.Read<Output>
    {
        DatabasePublishers.Read(DatabaseFuture(context: scheduler) { fulfill in
            self.asyncRead { dbResult in
                fulfill(dbResult.flatMap { db in Result { try value(db) } })
            }
        })
    }
}

extension GRDBReactive where Base == any DatabaseReader {
    /// Returns a publisher that asynchronously reads one value from the
    /// database, and then completes.
    ///
    /// For example:
    ///
    /// ```swift
    /// let players = dbQueue.rx.read { db in
    ///     try Player.fetchAll(db)
    /// }
    /// players.sink(
    ///     receiveCompletion: { completion in ... },
    ///     receiveValue: { (players: [Player]) in print("Players: \(players)") })
    /// ```
    ///
    /// Any attempt at modifying the database fails the publisher with
    /// `SQLITE_READONLY`.
    ///
    /// With a database queue or a snapshot, the read waits for any concurrent
    /// access to complete. With a database pool, reads run concurrently with
    /// writes, up to the pool's maximum number of readers.
    ///
    /// The publisher can be subscribed from any thread. A new database access
    /// starts on each subscription, at the first demand.
    ///
    /// - parameter scheduler: The scheduler that publishes the value or the
    ///   error. By default, the main dispatch queue.
    /// - parameter value: A closure that accesses the database.
    /// - returns: A publisher of the read value.
    public func read<Output>(
        observeOn scheduler: some OpenCombine.Scheduler = DispatchQueue.main.ocombine,
        value: @escaping @Sendable (Database) throws -> Output)
    -> DatabasePublishers.Read<Output>
    {
        base.readPublisher(receiveOn: scheduler, value: value)
    }
}
