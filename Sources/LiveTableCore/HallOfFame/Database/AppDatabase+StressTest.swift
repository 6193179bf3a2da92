import Dispatch
import Foundation
import GRDB
import OpenCombine
import OpenCombineDispatch
import ReactiveGRDB
import Synchronization

extension AppDatabase {
    // MARK: - Stress Test

    static let stressTestRefreshes = 50

    /// Returns a publisher that runs `refreshes` concurrent refreshes, all started at once through
    /// `rx.write` as the demo apps stress the database, and publishes the progress as each ends.
    func stressTest(
        refreshes: Int = AppDatabase.stressTestRefreshes,
        observeOn scheduler: some OpenCombine.Scheduler = DispatchQueue.main.ocombine)
    -> AnyPublisher<StressTestProgress, Never>
    {
        let start = StressTestProgress(completed: 0, failed: 0, total: max(0, refreshes))
        guard start.total > 0 else {
            return Just(start).eraseToAnyPublisher()
        }
        // A cancelled write publisher still writes, as GRDB's do: the
        // refreshes that have not started yet check this flag instead, so
        // that cancelling the stress test (on quit) does not wait for them.
        let cancellation = Cancellation()
        // FlatMap, with its default unlimited number of publishers,
        // subscribes to all refreshes at once.
        return Publishers.Sequence<[Int], Never>(sequence: Array(0..<start.total))
            .flatMap { _ in
                self.writer.rx
                    .write(observeOn: scheduler) { db in
                        try cancellation.check()
                        return try self.refresh(db)
                    }
                    .map { Result<Int, StressFailure>.success($0) }
                    .catch { error in Just(.failure(StressFailure(description: error.oneLineDescription))) }
            }
            .scan(start) { progress, result in
                var progress = progress
                switch result {
                case let .failure(failure):
                    progress.failed += 1
                    progress.firstError = progress.firstError ?? failure.description
                case let .success(deleted):
                    progress.completed += 1
                    progress.deleted += deleted
                }
                return progress
            }
            .handleEvents(receiveCancel: { cancellation.cancel() })
            .eraseToAnyPublisher()
    }
}

/// Why a refresh of the stress test failed, on one line.
private struct StressFailure: Error {
    var description: String
}

/// Tells the refreshes of a cancelled stress test not to run.
private final class Cancellation: Sendable {
    private let isCancelled = Mutex(false)

    func cancel() {
        isCancelled.withLock { $0 = true }
    }

    func check() throws {
        if isCancelled.withLock({ $0 }) { throw CancellationError() }
    }
}

/// The progress of `AppDatabase.stressTest(refreshes:observeOn:)`.
struct StressTestProgress: Equatable, Sendable {
    var completed: Int
    var failed: Int
    var total: Int
    /// Why the first refresh that failed did, on one line.
    var firstError: String?
    /// The players the refreshes deleted so far.
    var deleted = 0

    var isFinished: Bool { completed + failed == total }

    init(completed: Int, failed: Int, total: Int, firstError: String? = nil) {
        self.completed = completed
        self.failed = failed
        self.total = total
        self.firstError = firstError
    }
}
