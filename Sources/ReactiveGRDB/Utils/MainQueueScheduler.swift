import Dispatch
import Foundation
import GRDB

/// The default scheduling of RxGRDB 0.18's values observables: the initial
/// value is fetched and published synchronously if the observation starts
/// on the main queue, and asynchronously on the main queue otherwise. All
/// later values are published asynchronously on the main queue.
///
/// GRDB's `.immediate` scheduler makes the same choice for the main thread
/// only, and traps anywhere else. The main queue is not always drained on
/// the main thread: after `dispatchMain()`, and in an `async` main, it runs
/// on a worker thread. There, this scheduler publishes the initial value
/// asynchronously, on the main queue too, and never traps.
struct MainQueueScheduler: ValueObservationScheduler {
    func immediateInitialValue() -> Bool {
        // GRDB fetches synchronously only on the main thread. The main
        // thread is not on the main queue in a block given to
        // `DispatchQueue.sync` of another queue.
        Thread.isMainThread && DispatchQueue.isMain
    }

    func schedule(_ action: @escaping @Sendable () -> Void) {
        DispatchQueue.main.async(execute: action)
    }
}

extension DispatchQueue {
    /// Whether the current code runs on the main queue, on any thread.
    static var isMain: Bool {
        getSpecific(key: mainQueueKey) != nil
    }
}

/// The key of a value that only the main queue holds.
private let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()
