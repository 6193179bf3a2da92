import Dispatch
import GRDB
import OpenCombine
import OpenCombineDispatch

extension DatabaseWriter {
    /// Returns a publisher that asynchronously writes into the database, in a
    /// transaction, and then publishes the result of `updates`.
    ///
    /// This is GRDB's spelling of `rx.write(observeOn:updates:)`: both return
    /// the same publisher.
    ///
    /// For example:
    ///
    /// ```swift
    /// let newPlayerCount = dbQueue.writePublisher { db -> Int in
    ///     try Player(name: "Arthur", score: 100).insert(db)
    ///     return try Player.fetchCount(db)
    /// }
    /// ```
    ///
    /// - parameter scheduler: The scheduler that publishes the value or the
    ///   error. By default, the main dispatch queue.
    /// - parameter updates: A closure that writes in the database. If it
    ///   throws, the transaction is rolled back and the publisher fails with
    ///   the error.
    /// - returns: A publisher of the result of `updates`.
    public func writePublisher<Output>(
        receiveOn scheduler: some OpenCombine.Scheduler = DispatchQueue.main.ocombine,
        updates: @escaping @Sendable (Database) throws -> Output)
    -> DatabasePublishers.Write<Output>
    {
        DatabasePublishers.Write(DatabaseFuture(context: scheduler) { fulfill in
            self.asyncWrite(updates, completion: { _, result in
                fulfill(result)
            })
        })
    }

    /// Returns a publisher that asynchronously writes into the database, in a
    /// transaction, then reads from the database state left by the
    /// transaction, and publishes the read value.
    ///
    /// This is GRDB's spelling of `rx.write(observeOn:updates:thenRead:)`:
    /// both return the same publisher.
    ///
    /// For example:
    ///
    /// ```swift
    /// let newPlayerCount = dbPool.writePublisher(
    ///     updates: { db in try Player(name: "Arthur", score: 100).insert(db) },
    ///     thenRead: { db, _ in try Player.fetchCount(db) })
    /// ```
    ///
    /// - parameter scheduler: The scheduler that publishes the value or the
    ///   error. By default, the main dispatch queue.
    /// - parameter updates: A closure that writes in the database, in a
    ///   transaction.
    /// - parameter value: A closure with read-only access to the database,
    ///   right after the transaction has committed, and the result of
    ///   `updates`. On a `DatabasePool` it runs on a reader, and does not
    ///   block later writes.
    /// - returns: A publisher of the result of `value`.
    public func writePublisher<T: Sendable, Output>(
        receiveOn scheduler: some OpenCombine.Scheduler = DispatchQueue.main.ocombine,
        updates: @escaping @Sendable (Database) throws -> T,
        thenRead value: @escaping @Sendable (Database, T) throws -> Output)
    -> DatabasePublishers.Write<Output>
    {
        DatabasePublishers.Write(DatabaseFuture(context: scheduler) { fulfill in
            self.asyncWriteWithoutTransaction { db in
                let updatesValue: T
                do {
                    var result: T?
                    try db.inTransaction {
                        result = try updates(db)
                        return .commit
                    }
                    updatesValue = result!
                } catch {
                    fulfill(.failure(error))
                    return
                }
                // On a pool, the read starts from the committed state on a
                // reader, and the writer is free for the next write as soon as
                // the reader has acquired its snapshot.
                self.spawnConcurrentRead { dbResult in
                    fulfill(dbResult.flatMap { db in Result { try value(db, updatesValue) } })
                }
            }
        })
    }
}

extension GRDBReactive where Base == any DatabaseWriter {
    /// Returns a publisher that asynchronously reads one value from the
    /// database, and then completes.
    ///
    /// See `DatabaseReader.rx.read(observeOn:value:)`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let players = dbPool.rx.read { db in try Player.fetchAll(db) }
    /// ```
    ///
    /// - parameter scheduler: The scheduler that publishes the value or the
    ///   error. By default, the main dispatch queue.
    /// - parameter value: A closure with read-only access to the database.
    /// - returns: A publisher of the read value.
    public func read<Output>(
        observeOn scheduler: some OpenCombine.Scheduler = DispatchQueue.main.ocombine,
        value: @escaping @Sendable (Database) throws -> Output)
    -> DatabasePublishers.Read<Output>
    {
        base.readPublisher(receiveOn: scheduler, value: value)
    }

    /// Returns a publisher that asynchronously writes into the database, in a
    /// transaction, and then publishes the result of `updates`.
    ///
    /// For example:
    ///
    /// ```swift
    /// // A publisher of Void
    /// let write = dbQueue.rx.write { db in
    ///     try Player(name: "Arthur", score: 100).insert(db)
    /// }
    ///
    /// // A publisher of Int
    /// let newPlayerCount = dbQueue.rx.write { db -> Int in
    ///     try Player(name: "Arthur", score: 100).insert(db)
    ///     return try Player.fetchCount(db)
    /// }
    /// ```
    ///
    /// The publisher can be subscribed from any thread. A new database access
    /// starts on each subscription, at the first demand.
    ///
    /// - parameter scheduler: The scheduler that publishes the value or the
    ///   error. By default, the main dispatch queue.
    /// - parameter updates: A closure that writes in the database. If it
    ///   throws, the transaction is rolled back and the publisher fails with
    ///   the error.
    /// - returns: A publisher of the result of `updates`.
    public func write<Output>(
        observeOn scheduler: some OpenCombine.Scheduler = DispatchQueue.main.ocombine,
        updates: @escaping @Sendable (Database) throws -> Output)
    -> DatabasePublishers.Write<Output>
    {
        base.writePublisher(receiveOn: scheduler, updates: updates)
    }

    /// Returns a publisher that asynchronously writes into the database, in a
    /// transaction, and then publishes the value that `updates` returns.
    ///
    /// For example:
    ///
    /// ```swift
    /// let newPlayerCount = dbQueue.rx.writeAndReturn { db -> Int in
    ///     try Player(name: "Arthur", score: 100).insert(db)
    ///     return try Player.fetchCount(db)
    /// }
    /// ```
    ///
    /// It is RxGRDB 0.18's spelling of `rx.write(observeOn:updates:)`, which
    /// returns the same publisher: exactly one value, or an error, on the
    /// main queue unless `scheduler` says otherwise. A new database access
    /// starts on each subscription, at the first demand.
    ///
    /// - parameter scheduler: The scheduler that publishes the value or the
    ///   error. By default, the main dispatch queue.
    /// - parameter updates: A closure that writes in the database. If it
    ///   throws, the transaction is rolled back and the publisher fails with
    ///   the error.
    /// - returns: A publisher of the result of `updates`.
    public func writeAndReturn<Output>(
        observeOn scheduler: some OpenCombine.Scheduler = DispatchQueue.main.ocombine,
        updates: @escaping @Sendable (Database) throws -> Output)
    -> DatabasePublishers.Write<Output>
    {
        base.writePublisher(receiveOn: scheduler, updates: updates)
    }

    /// Returns a publisher that asynchronously writes into the database, in a
    /// transaction, then reads from the database state left by the
    /// transaction, and publishes the read value.
    ///
    /// For example:
    ///
    /// ```swift
    /// let newPlayerCount = dbPool.rx.write(
    ///     updates: { db in try Player(name: "Arthur", score: 100).insert(db) },
    ///     thenRead: { db, _ in try Player.fetchCount(db) })
    /// ```
    ///
    /// It publishes the same values as `rx.write(observeOn:updates:)` would
    /// if `updates` performed the final fetch itself. On a `DatabasePool`,
    /// `thenRead` sees the database in the state left by `updates`, and yet
    /// does not block concurrent writes. On a `DatabaseQueue`, the results
    /// are identical, without the scheduling optimization.
    ///
    /// - parameter scheduler: The scheduler that publishes the value or the
    ///   error. By default, the main dispatch queue.
    /// - parameter updates: A closure that writes in the database, in a
    ///   transaction.
    /// - parameter value: A closure with read-only access to the database,
    ///   and the result of `updates`.
    /// - returns: A publisher of the result of `value`.
    public func write<T: Sendable, Output>(
        observeOn scheduler: some OpenCombine.Scheduler = DispatchQueue.main.ocombine,
        updates: @escaping @Sendable (Database) throws -> T,
        thenRead value: @escaping @Sendable (Database, T) throws -> Output)
    -> DatabasePublishers.Write<Output>
    {
        base.writePublisher(receiveOn: scheduler, updates: updates, thenRead: value)
    }
}
