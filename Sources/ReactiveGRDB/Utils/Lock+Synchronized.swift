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
    /// Subscribers are called from side effects, so that a subscriber that
    /// feeds back into its subscription (cancels it, requests more) from
    /// another thread cannot deadlock.
    func synchronized(_ block: (inout (() -> Void)?) -> Void) {
        var sideEffect: (() -> Void)?
        synchronized { block(&sideEffect) }
        sideEffect?()
    }
}
