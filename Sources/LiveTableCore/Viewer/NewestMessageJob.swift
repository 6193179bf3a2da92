import Foundation
import OpenCombine
import Synchronization

/// A job run on `queue` from the first request, as messages of which only
/// the newest waits for demand: each says all there is to know (the counts
/// so far, the rows saved so far). It finishes once its work has returned
/// and its last message is delivered. A cancel abandons the ticket of the
/// read that runs, and the work's next ticket is nil.
struct NewestMessageJob: Publisher {
    typealias Output = ViewerMessage
    typealias Failure = Never

    let queue: DispatchQueue
    let work: @Sendable (any NewestMessageJobContext) -> Void

    func receive<S: Subscriber>(subscriber: S) where S.Input == ViewerMessage, S.Failure == Never {
        subscriber.receive(subscription: JobSubscription(job: self, downstream: subscriber))
    }
}

/// What a job's work is given: where its messages go, and the tickets of
/// its reads.
protocol NewestMessageJobContext: AnyObject, Sendable {
    /// Replaces the message that waits for demand, delivered if asked for.
    func send(_ message: ViewerMessage)
    /// The ticket of the next read; nil once the job is cancelled.
    func nextTicket(timeLimit: TimeInterval?) -> ReadTicket?
}

/// What the queue runs.
private protocol JobRunner: AnyObject, Sendable {
    func run()
}

/// The subscription of a ``NewestMessageJob``: waiting for demand, then
/// running, then finished once its last message is delivered, or
/// cancelled.
// @unchecked Sendable: the downstream, in `shared`, is called by one thread
// at a time (`isDelivering`).
private final class JobSubscription<Downstream: Subscriber>: Subscription, JobRunner, NewestMessageJobContext,
    @unchecked Sendable
    where Downstream.Input == ViewerMessage, Downstream.Failure == Never
{
    private enum State {
        case waitingForDemand(Downstream)
        case running(Downstream)
        case finished
    }

    /// What the job's queue and the subscriber's threads share.
    private struct Shared {
        var state: State
        var demand = Subscribers.Demand.none
        /// The newest message, waiting for demand.
        var pending: ViewerMessage?
        /// The work has returned: once `pending` is delivered, the
        /// subscription finishes.
        var isDone = false
        /// A thread is calling the downstream: the others leave it their
        /// messages, so that they arrive in order.
        var isDelivering = false
        /// The ticket of the read that runs, abandoned by a cancel.
        var ticket: ReadTicket?
    }

    private let job: NewestMessageJob
    private let shared: Mutex<Shared>

    init(job: NewestMessageJob, downstream: Downstream) {
        self.job = job
        // nonisolated(unsafe): the downstream is only used from the Mutex,
        // or by the one thread that delivers.
        nonisolated(unsafe) let shared = Shared(state: .waitingForDemand(downstream))
        self.shared = Mutex(shared)
    }

    func request(_ demand: Subscribers.Demand) {
        let starts = shared.withLock { shared -> Bool in
            shared.demand += demand
            guard case let .waitingForDemand(downstream) = shared.state, demand > .none else { return false }
            shared.state = .running(downstream)
            return true
        }
        if starts {
            // Through a non-generic existential: the block captures no
            // metatype of the downstream, which need not be Sendable.
            let runner: any JobRunner = self
            job.queue.async { runner.run() }
        }
        deliver()
    }

    func cancel() {
        let ticket = shared.withLock { shared -> ReadTicket? in
            shared.state = .finished
            shared.pending = nil
            return shared.ticket
        }
        ticket?.abandon()
    }

    func run() {
        job.work(self)
        shared.withLock { $0.isDone = true }
        deliver()
    }

    func send(_ message: ViewerMessage) {
        shared.withLock { $0.pending = message }
        deliver()
    }

    func nextTicket(timeLimit: TimeInterval?) -> ReadTicket? {
        shared.withLock { shared in
            guard case .running = shared.state else { return nil }
            let ticket = ReadTicket(timeLimit: timeLimit)
            shared.ticket = ticket
            return ticket
        }
    }

    /// Delivers the pending message while there is demand, then the
    /// completion once the work is done and its messages delivered; unless
    /// another thread is delivering, which then does it.
    private func deliver() {
        while true {
            let next = shared.withLock { shared -> (Downstream, ViewerMessage?)? in
                guard !shared.isDelivering, case let .running(downstream) = shared.state else { return nil }
                if let message = shared.pending, shared.demand > .none {
                    shared.pending = nil
                    shared.demand -= 1
                    shared.isDelivering = true
                    return (downstream, message)
                }
                guard shared.pending == nil, shared.isDone else { return nil }
                shared.state = .finished
                return (downstream, nil)
            }
            guard let (downstream, message) = next else { return }
            guard let message else {
                downstream.receive(completion: .finished)
                return
            }
            let more = downstream.receive(message)
            shared.withLock { shared in
                shared.demand += more
                shared.isDelivering = false
            }
        }
    }
}
