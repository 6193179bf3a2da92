import Foundation

extension NSRecursiveLock {
    /// Runs `block` with the lock held.
    func synchronized<T>(_ block: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try block()
    }

    /// Runs `block` with the lock held, then the side effect it sets, once
    /// the lock is released.
    ///
    /// Completions and cancellations run as side effects, so that a
    /// subscriber that feeds back into its subscription from another thread
    /// cannot deadlock. Values of observations are delivered with the lock
    /// held, as GRDB's own subscriptions do, so that they reach the
    /// subscriber one at a time, in order, with an accurate demand.
    func synchronized(_ block: (inout (() -> Void)?) -> Void) {
        var sideEffect: (() -> Void)?
        synchronized { block(&sideEffect) }
        sideEffect?()
    }
}
