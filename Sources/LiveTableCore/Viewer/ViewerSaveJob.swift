import Foundation
import OpenCombine
import Synchronization

/// A save of a sheet (`s`), as messages: `.saveProgressed` every 0.1 s
/// while it writes, then `.saved`, `.saveNeedsConfirmation` or
/// `.saveFailed`. It runs on `queue` from the first request; only the
/// newest message waits for demand. A cancel abandons its ticket: the read
/// stops, the export throws, and `SheetFile` removes what it wrote.
struct ViewerSaveJob: Publisher {
    typealias Output = ViewerMessage
    typealias Failure = Never

    let request: SaveRequest
    let dataSource: any ViewerDataSource
    let queue: DispatchQueue

    func receive<S: Subscriber>(subscriber: S) where S.Input == ViewerMessage, S.Failure == Never {
        subscriber.receive(subscription: SaveSubscription(publisher: self, downstream: subscriber))
    }

    /// What the queue runs: the whole save, reporting through `report`.
    /// Nil when it was stopped.
    static func run(
        _ request: SaveRequest, _ dataSource: any ViewerDataSource, ticket: ReadTicket,
        report: (ViewerMessage) -> Void) -> ViewerMessage?
    {
        let file = SheetFile(path: request.path)
        if !request.overwrite, file.exists {
            return .saveNeedsConfirmation(request)
        }
        var lastReport = ContinuousClock.now
        do {
            let summary = try file.write(overwrite: request.overwrite) { append in
                try dataSource.export(request.plan, format: request.format, ticket: ticket) { bytes, rows in
                    try append(bytes)
                    if ContinuousClock.now - lastReport >= .milliseconds(100) {
                        report(.saveProgressed(rows: rows))
                        lastReport = .now
                    }
                }
            }
            return .saved(request, summary)
        } catch SheetFile.Failure.exists {
            return .saveNeedsConfirmation(request)
        } catch {
            if ticket.shouldStop { return nil }
            return .saveFailed(error is SheetFile.Failure ? "\(error)" : "not saved: " + dataSource.describe(error))
        }
    }
}

/// What the queue runs.
private protocol SaveRunner: AnyObject, Sendable {
    func run()
}

/// The subscription of ``ViewerSaveJob``: waiting for demand, then saving,
/// then finished once its last message is delivered, or cancelled.
// @unchecked Sendable: the downstream, in `shared`, is called by one thread
// at a time (`isDelivering`).
private final class SaveSubscription<Downstream: Subscriber>: Subscription, SaveRunner, @unchecked Sendable
    where Downstream.Input == ViewerMessage, Downstream.Failure == Never
{
    private enum State {
        case waitingForDemand(Downstream)
        case saving(Downstream)
        case finished
    }

    /// What the queue and the subscriber's threads share.
    private struct Shared {
        var state: State
        var demand = Subscribers.Demand.none
        /// The newest message, waiting for demand.
        var pending: ViewerMessage?
        /// Once `pending` is delivered, the subscription finishes.
        var isDone = false
        var isDelivering = false
    }

    private let publisher: ViewerSaveJob
    private let shared: Mutex<Shared>
    private let ticket = ReadTicket()

    init(publisher: ViewerSaveJob, downstream: Downstream) {
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
            shared.state = .saving(downstream)
            return true
        }
        if starts {
            // Through a non-generic existential: the block captures no
            // metatype of the downstream, which need not be Sendable.
            let runner: any SaveRunner = self
            publisher.queue.async { runner.run() }
        }
        deliver()
    }

    func cancel() {
        shared.withLock { shared in
            shared.state = .finished
            shared.pending = nil
        }
        ticket.abandon()
    }

    func run() {
        let last = ViewerSaveJob.run(publisher.request, publisher.dataSource, ticket: ticket) { message in
            shared.withLock { $0.pending = message }
            deliver()
        }
        shared.withLock { shared in
            if let last { shared.pending = last }
            shared.isDone = true
        }
        deliver()
    }

    /// Delivers the pending message while there is demand, then the
    /// completion once done; unless another thread is delivering.
    private func deliver() {
        while true {
            let next = shared.withLock { shared -> (Downstream, ViewerMessage?)? in
                guard !shared.isDelivering, case let .saving(downstream) = shared.state else { return nil }
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
