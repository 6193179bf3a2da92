import Foundation
import GRDB
import OpenCombine

/// Starts a database observation: GRDB's `start(in:onError:onChange:)`
/// methods, with their arguments other than the callbacks bound.
typealias ObservationStart<Value> = @Sendable (
    _ onError: @escaping @Sendable (Error) -> Void,
    _ onChange: @escaping @Sendable (Value) -> Void)
-> AnyDatabaseCancellable

/// The subscription of the observation publishers: values of a
/// `ValueObservation` or of a `SharedValueObservation`, and database
/// connections of a `DatabaseRegionObservation`.
///
/// It is the state machine of GRDB's own observation subscriptions:
/// waiting for demand, then observing, then finished.
///
/// - The observation starts at the first positive demand, synchronously.
/// - A value that arrives with no demand left is dropped, not buffered.
/// - `cancel()` cancels the GRDB observation.
/// - The observation (and the database connection that its start closure
///   captures) is retained until the subscription is finished.
// @unchecked Sendable: `state` and `cancellable` are only accessed with
// `lock` held.
final class ObservationSubscription<Downstream>: Subscription, @unchecked Sendable
where Downstream: Subscriber & GRDBSendableMetatype, Downstream.Failure == Error
{
    typealias Start = ObservationStart<Downstream.Input>

    private enum State {
        /// Waiting for demand, not observing the database.
        case waitingForDemand(Downstream, start: Start)
        /// Observing the database. `start` stays here because it retains
        /// the database: GRDB's region observation does not, and the
        /// database must live as long as the subscription observes it.
        case observing(Downstream, start: Start, remainingDemand: Subscribers.Demand)
        /// Failed or cancelled, not observing the database.
        case finished
    }

    // The cancellable is not part of the state, because the state must be
    // `.observing` *before* the observation starts: an `.immediate`
    // observation delivers its first value, or an error, from `start`.
    private var cancellable: AnyDatabaseCancellable?
    private var state: State
    private let lock = NSRecursiveLock() // Allow re-entrancy

    init(start: @escaping Start, downstream: Downstream) {
        state = .waitingForDemand(downstream, start: start)
    }

    var combineIdentifier: CombineIdentifier { CombineIdentifier(self) }

    func request(_ demand: Subscribers.Demand) {
        lock.synchronized {
            switch state {
            case let .waitingForDemand(downstream, start):
                guard demand > 0 else { return }
                state = .observing(downstream, start: start, remainingDemand: demand)
                let cancellable = start(
                    { [weak self] error in self?.receive(completion: .failure(error)) },
                    { [weak self] value in self?.receive(value) })

                // The state may have changed during `start` (an error, or a
                // cancellation from the downstream).
                if case .observing = state {
                    self.cancellable = cancellable
                } else {
                    cancellable.cancel()
                }

            case let .observing(downstream, start, remainingDemand):
                state = .observing(downstream, start: start, remainingDemand: remainingDemand + demand)

            case .finished:
                break
            }
        }
    }

    func cancel() {
        lock.synchronized { sideEffect in
            let cancellable = self.cancellable
            self.cancellable = nil
            state = .finished
            sideEffect = { cancellable?.cancel() }
        }
    }

    private func receive(_ value: Downstream.Input) {
        // The downstream is called with the lock held, so that values are
        // delivered one after the other, in order, and the demand stays
        // accurate. The lock is recursive, so the downstream may request
        // more or cancel from `receive(_:)`.
        lock.synchronized {
            // A value that arrives with no demand is dropped, not buffered.
            guard case let .observing(downstream, start, remainingDemand) = state, remainingDemand > .none else {
                return
            }
            state = .observing(downstream, start: start, remainingDemand: remainingDemand - 1)
            let additionalDemand = downstream.receive(value)
            if case let .observing(downstream, start, remainingDemand) = state {
                state = .observing(downstream, start: start, remainingDemand: remainingDemand + additionalDemand)
            }
        }
    }

    private func receive(completion: Subscribers.Completion<Error>) {
        lock.synchronized { sideEffect in
            guard case let .observing(downstream, _, _) = state else { return }
            cancellable = nil
            state = .finished
            sideEffect = { downstream.receive(completion: completion) }
        }
    }
}
