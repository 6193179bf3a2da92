import Foundation
import OpenCombine
import Synchronization

/// The picker's counts of the entries from index `from`, named `names`,
/// as messages: one read each, on `queue`, each within
/// `PickerEntry.countTimeLimit` (a slow view counts as nil, "?"). Each
/// message holds every count so far, so only the newest one matters: the
/// counts made while the subscriber asks for nothing wait as one message,
/// the newest, for its next request. They start at the first request, and
/// a cancel abandons the count that runs.
struct ViewerTableCounts: Publisher {
    typealias Output = ViewerMessage
    typealias Failure = Never

    let from: Int
    let names: [String]
    let kinds: [TableSchema.Kind]
    let dataSource: any ViewerDataSource
    let queue: DispatchQueue

    func receive<S: Subscriber>(subscriber: S) where S.Input == ViewerMessage, S.Failure == Never {
        subscriber.receive(subscription: TableCountsSubscription(publisher: self, downstream: subscriber))
    }
}

/// What the counting queue runs.
private protocol TableCounter: AnyObject, Sendable {
    func count()
}

/// The subscription of ``ViewerTableCounts``: waiting for demand, then
/// counting, then finished once its last message is delivered, or
/// cancelled.
// @unchecked Sendable: the downstream, in `shared`, is called by one thread
// at a time (`isDelivering`).
private final class TableCountsSubscription<Downstream: Subscriber>: Subscription, TableCounter, @unchecked Sendable
    where Downstream.Input == ViewerMessage, Downstream.Failure == Never
{
    private enum State {
        case waitingForDemand(Downstream)
        case counting(Downstream)
        case finished
    }

    private let publisher: ViewerTableCounts
    private let shared: Mutex<Shared>

    /// What the counting queue and the subscriber's threads share.
    private struct Shared {
        var state: State
        var demand = Subscribers.Demand.none
        /// The newest counts, waiting for demand.
        var pending: ViewerMessage?
        /// The counts have all been made: once `pending` is delivered, the
        /// subscription finishes.
        var isCounted = false
        /// A thread is calling the downstream: the others leave it their
        /// messages, so that they arrive in order.
        var isDelivering = false
        /// The ticket of the count that runs, abandoned by a cancel.
        var ticket: ReadTicket?
    }

    init(publisher: ViewerTableCounts, downstream: Downstream) {
        self.publisher = publisher
        // nonisolated(unsafe): the downstream is only used from the Mutex,
        // or by the one thread that delivers.
        nonisolated(unsafe) let shared = Shared(state: .waitingForDemand(downstream))
        self.shared = Mutex(shared)
    }

    func request(_ demand: Subscribers.Demand) {
        let starts = shared.withLock { shared -> Bool in
            shared.demand += demand
            guard case let .waitingForDemand(downstream) = shared.state, demand > .none else { return false }
            shared.state = .counting(downstream)
            return true
        }
        if starts {
            // Through a non-generic existential: the block captures no
            // metatype of the downstream, which need not be Sendable.
            let counter: any TableCounter = self
            publisher.queue.async { counter.count() }
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

    /// Counts each entry, and sends the counts so far every 50 ms and at
    /// the end: many small tables make few messages.
    func count() {
        let publisher = self.publisher
        var counts: [RowCount?] = []
        var lastSent = ContinuousClock.now
        for (name, kind) in zip(publisher.names, publisher.kinds) {
            guard let ticket = nextTicket() else { return }
            counts.append(try? publisher.dataSource.quickRowCount(ofTable: name, kind: kind, ticket: ticket))
            if counts.count == publisher.names.count || ContinuousClock.now - lastSent >= .milliseconds(50) {
                let message = ViewerMessage.tablesCounted(from: publisher.from, names: publisher.names, counts: counts)
                shared.withLock { $0.pending = message }
                deliver()
                lastSent = ContinuousClock.now
            }
        }
        shared.withLock { $0.isCounted = true }
        deliver()
    }

    /// The ticket of the next count, nil once cancelled.
    private func nextTicket() -> ReadTicket? {
        shared.withLock { shared in
            guard case .counting = shared.state else { return nil }
            let ticket = ReadTicket(timeLimit: PickerEntry.countTimeLimit)
            shared.ticket = ticket
            return ticket
        }
    }

    /// Delivers the pending counts while there is demand, then the
    /// completion once all are counted and delivered; unless another
    /// thread is delivering, which then does it.
    private func deliver() {
        while true {
            let next = shared.withLock { shared -> (Downstream, ViewerMessage?)? in
                guard !shared.isDelivering, case let .counting(downstream) = shared.state else { return nil }
                if let message = shared.pending, shared.demand > .none {
                    shared.pending = nil
                    shared.demand -= 1
                    shared.isDelivering = true
                    return (downstream, message)
                }
                guard shared.pending == nil, shared.isCounted else { return nil }
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
