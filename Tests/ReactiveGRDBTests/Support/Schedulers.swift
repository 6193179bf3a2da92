import Dispatch
import GRDB
import OpenCombine
import OpenCombineDispatch

/// Tells whether code runs on a given dispatch queue, without trapping as
/// `dispatchPrecondition` does, so that a wrong queue fails the test
/// instead of crashing it.
final class QueueMarker: Sendable {
    let queue: DispatchQueue
    private let key = DispatchSpecificKey<Void>()

    init(label: String, target: DispatchQueue? = nil) {
        queue = DispatchQueue(label: label, target: target)
        queue.setSpecific(key: key, value: ())
    }

    /// True if the current code runs on `queue`.
    var isCurrent: Bool {
        DispatchQueue.getSpecific(key: key) != nil
    }
}

/// An OpenCombine scheduler that runs actions on a dispatch queue, and
/// counts the actions it has been given, and those it has run.
///
/// Tests wait on the counts to know that a publisher has handed its result
/// to the scheduler, and that the scheduled action has run, whether it has
/// delivered the result or dropped it.
struct CountingScheduler: OpenCombine.Scheduler {
    typealias SchedulerTimeType = DispatchQueue.OCombine.SchedulerTimeType
    typealias SchedulerOptions = DispatchQueue.OCombine.SchedulerOptions

    let base: DispatchQueue.OCombine
    let scheduledCount = Synchronized(0)
    let executedCount = Synchronized(0)

    init(queue: DispatchQueue) {
        base = queue.ocombine
    }

    var now: SchedulerTimeType { base.now }
    var minimumTolerance: SchedulerTimeType.Stride { base.minimumTolerance }

    func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        scheduledCount.increment()
        base.schedule(options: options) {
            action()
            executedCount.increment()
        }
    }

    func schedule(
        after date: SchedulerTimeType,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void)
    {
        scheduledCount.increment()
        base.schedule(after: date, tolerance: tolerance, options: options) {
            action()
            executedCount.increment()
        }
    }

    func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void)
    -> Cancellable
    {
        scheduledCount.increment()
        return base.schedule(after: date, interval: interval, tolerance: tolerance, options: options) {
            action()
            executedCount.increment()
        }
    }
}

/// A `ValueObservationScheduler` that notifies values asynchronously on a
/// dispatch queue, and counts the notifications it has been given, and
/// those it has run.
///
/// Tests wait on the counts to know that a value is on its way to the
/// publisher, and that it has reached the publisher, whether the publisher
/// delivered it or dropped it.
final class CountingValueObservationScheduler: ValueObservationScheduler {
    let queue: DispatchQueue
    let scheduledCount = Synchronized(0)
    let executedCount = Synchronized(0)

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    func immediateInitialValue() -> Bool { false }

    func schedule(_ action: @escaping @Sendable () -> Void) {
        scheduledCount.increment()
        queue.async { [executedCount] in
            action()
            executedCount.increment()
        }
    }
}

/// Carries a value to another thread.
// @unchecked Sendable: the value is handed over, and no longer used by the
// sending thread.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
}

/// Subscribes `subscriber` to `publisher` from `queue`, asynchronously.
func subscribe<P: Publisher, S: Subscriber>(
    _ publisher: P,
    _ subscriber: S,
    from queue: DispatchQueue)
where P.Output == S.Input, P.Failure == S.Failure
{
    let subscription = UncheckedSendable(value: (publisher, subscriber))
    queue.async {
        let (publisher, subscriber) = subscription.value
        publisher.subscribe(subscriber)
    }
}
