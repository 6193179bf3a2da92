import Foundation
import GRDB
import OpenCombine
import Synchronization

/// A publisher that performs one asynchronous database access on demand, and
/// publishes its single result on a scheduler.
///
/// It is the counterpart of the `OnDemandFuture` + `receiveValues(on:)` pair
/// that GRDB uses for its own read and write publishers:
///
/// - The access starts at the first positive demand, synchronously, and not
///   at subscription. This lets GRDB schedule concurrent reads right from the
///   writer queue.
/// - Only the value and the completion are scheduled on `scheduler`; the
///   subscription is not (see <https://forums.swift.org/t/28631>).
/// - After `cancel()`, nothing is scheduled and nothing is delivered: a
///   cancelled access drops its result as soon as it is ready, and a
///   subscriber that cancels while it receives the value gets no completion.
/// - The value is delivered without the subscription's lock held, as GRDB's
///   `ReceiveValuesOn` does: another thread may cancel meanwhile, and then
///   the completion is not sent.
struct DatabaseFuture<Output, Context: OpenCombine.Scheduler>: Publisher {
    typealias Failure = Error
    typealias Promise = @Sendable (Result<Output, Error>) -> Void

    let context: Context
    let attemptToFulfill: @Sendable (@escaping Promise) -> Void

    // GRDBSendableMetatype is `SendableMetatype` from Swift 6.2, and `Any`
    // before: GRDB's own publishers use it to build with Swift 6.1.
    func receive<S>(subscriber: S)
    where S: Subscriber & GRDBSendableMetatype, S.Input == Output, S.Failure == Error
    {
        // The subscription schedules through a closure rather than holding
        // the scheduler: the @Sendable database callbacks that capture the
        // subscription then capture no scheduler metatype, which need not
        // be a SendableMetatype.
        let context = self.context
        let subscription = DatabaseFutureSubscription(
            schedule: { action in context.schedule(action) },
            attemptToFulfill: attemptToFulfill,
            downstream: subscriber)
        subscriber.receive(subscription: subscription)
    }
}

// @unchecked Sendable: `schedule` and the downstream are not Sendable; the
// downstream is only used from `state`, or once taken out of it.
private final class DatabaseFutureSubscription<Downstream>: Subscription, @unchecked Sendable
where Downstream: Subscriber & GRDBSendableMetatype, Downstream.Failure == Error
{
    typealias Promise = @Sendable (Result<Downstream.Input, Error>) -> Void

    private enum State {
        /// Waiting for demand, no database access yet.
        case waitingForDemand(Downstream, attemptToFulfill: @Sendable (@escaping Promise) -> Void)
        /// The database access is running, or its result is being scheduled
        /// or delivered.
        case waitingForFulfillment(Downstream)
        /// Completed or cancelled.
        case finished
    }

    private let schedule: (@escaping () -> Void) -> Void
    private let state: Mutex<State>

    init(
        schedule: @escaping (@escaping () -> Void) -> Void,
        attemptToFulfill: @escaping @Sendable (@escaping Promise) -> Void,
        downstream: Downstream)
    {
        self.schedule = schedule
        // nonisolated(unsafe): the downstream is only used from the Mutex,
        // or once taken out of it.
        nonisolated(unsafe) let state = State.waitingForDemand(downstream, attemptToFulfill: attemptToFulfill)
        self.state = Mutex(state)
    }

    var combineIdentifier: CombineIdentifier { CombineIdentifier(self) }

    func request(_ demand: Subscribers.Demand) {
        let attemptToFulfill = state.withLock { state -> (@Sendable (@escaping Promise) -> Void)? in
            guard case let .waitingForDemand(downstream, attemptToFulfill) = state, demand > 0 else {
                return nil
            }
            state = .waitingForFulfillment(downstream)
            return attemptToFulfill
        }
        attemptToFulfill? { result in
            self.fulfill(result)
        }
    }

    func cancel() {
        state.withLock { $0 = .finished }
    }

    private func fulfill(_ result: Result<Downstream.Input, Error>) {
        // A cancelled access schedules nothing: its result, which may be
        // large, is released now rather than when the scheduler gets to it.
        guard downstream != nil else { return }

        // Don't keep the database busy with the downstream: hop to the
        // scheduler first, then check that we were not cancelled meanwhile.
        schedule {
            self.deliver(result)
        }
    }

    private func deliver(_ result: Result<Downstream.Input, Error>) {
        switch result {
        case let .success(value):
            guard let downstream else { return }
            _ = downstream.receive(value)
            // The downstream may have cancelled while it received the value,
            // from `receive(_:)` or from another thread.
            complete(with: .finished)
        case let .failure(error):
            complete(with: .failure(error))
        }
    }

    private func complete(with completion: Subscribers.Completion<Error>) {
        let downstream = state.withLock { state -> Downstream? in
            guard case let .waitingForFulfillment(downstream) = state else {
                return nil
            }
            state = .finished
            return downstream
        }
        downstream?.receive(completion: completion)
    }

    /// The downstream that waits for the result, or nil if cancelled.
    private var downstream: Downstream? {
        state.withLock { state in
            guard case let .waitingForFulfillment(downstream) = state else {
                return nil
            }
            return downstream
        }
    }
}
