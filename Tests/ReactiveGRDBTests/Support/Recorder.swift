import Foundation
import OpenCombine
import XCTest

/// The history of a subscription: every value and every completion, in the
/// order they were received.
///
/// A well-behaved publisher sends at most one completion, and nothing after
/// it: the recording keeps whatever arrives, so that tests can see a
/// second completion or a value after the completion.
struct Recording<Input, Failure: Error> {
    /// An event received by a subscriber.
    enum Event {
        case value(Input)
        case completion(Subscribers.Completion<Failure>)
    }

    /// Every event, in order.
    var events: [Event] = []

    /// Every value, in order.
    var values: [Input] {
        events.compactMap { event in
            if case let .value(value) = event { return value }
            return nil
        }
    }

    /// Every completion, in order: more than one is a bug.
    var completions: [Subscribers.Completion<Failure>] {
        events.compactMap { event in
            if case let .completion(completion) = event { return completion }
            return nil
        }
    }

    /// The first completion, if received.
    var completion: Subscribers.Completion<Failure>? { completions.first }

    /// True if the publisher has completed, successfully or not.
    var isComplete: Bool { completion != nil }

    /// True if the publisher has completed successfully.
    var isFinished: Bool {
        if case .finished = completion { return true }
        return false
    }

    /// The error of a failed publisher.
    var failure: Failure? {
        if case let .failure(error) = completion { return error }
        return nil
    }
}

/// A subscriber that records the whole history of its subscription.
///
/// It requests `initialDemand` when subscribed (unlimited by default). Each
/// value is recorded, then `onValue` runs, and `receive(_:)` returns the
/// demand it returns (none by default): `onValue` may also request more, or
/// cancel, through the recorder it is given, while the value is being
/// received. Tests can request more and cancel whenever they want.
///
/// The optional `onEvent` closure runs on the delivering queue, before the
/// event is recorded, so that tests can check where and when it happens.
// @unchecked Sendable: the recording is `Synchronized`, and `subscription` is
// only accessed with `lock` held.
final class Recorder<Input, Failure: Error>: Subscriber, Cancellable, @unchecked Sendable {
    typealias Event = Recording<Input, Failure>.Event

    let recording = Synchronized(Recording<Input, Failure>())
    private let initialDemand: Subscribers.Demand
    private let onValue: ((Recorder, Input) -> Subscribers.Demand)?
    private let onEvent: ((Event) -> Void)?
    private var subscription: Subscription?
    private var isCancelled = false
    private let lock = NSLock()

    init(
        initialDemand: Subscribers.Demand = .unlimited,
        onValue: ((Recorder, Input) -> Subscribers.Demand)? = nil,
        onEvent: ((Event) -> Void)? = nil)
    {
        self.initialDemand = initialDemand
        self.onValue = onValue
        self.onEvent = onEvent
        RecorderScope.register(self)
    }

    deinit {
        subscription?.cancel()
    }

    /// The values received so far.
    var values: [Input] { recording.value.values }

    /// The first completion, if received.
    var completion: Subscribers.Completion<Failure>? { recording.value.completion }

    /// Every completion received so far: more than one is a bug.
    var completions: [Subscribers.Completion<Failure>] { recording.value.completions }

    /// Every event received so far.
    var events: [Event] { recording.value.events }

    /// Requests more values from the subscription.
    func request(_ demand: Subscribers.Demand) {
        lock.lock()
        let subscription = self.subscription
        lock.unlock()
        subscription?.request(demand)
    }

    /// Cancels the subscription.
    ///
    /// The recorder keeps the subscription, so that tests can check that
    /// requesting more after cancellation has no effect.
    func cancel() {
        lock.lock()
        let subscription = self.subscription
        isCancelled = true
        lock.unlock()
        subscription?.cancel()
    }

    // MARK: - Subscriber

    func receive(subscription: Subscription) {
        lock.lock()
        if isCancelled {
            lock.unlock()
            subscription.cancel()
            return
        }
        self.subscription = subscription
        lock.unlock()
        if initialDemand > .none {
            subscription.request(initialDemand)
        }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        onEvent?(.value(input))
        recording.update { $0.events.append(.value(input)) }
        return onValue?(self, input) ?? .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        onEvent?(.completion(completion))
        recording.update { $0.events.append(.completion(completion)) }
    }
}

extension Publisher {
    /// Subscribes a new recorder to the publisher, and returns it.
    func record(
        initialDemand: Subscribers.Demand = .unlimited,
        onValue: ((Recorder<Output, Failure>, Output) -> Subscribers.Demand)? = nil,
        onEvent: ((Recorder<Output, Failure>.Event) -> Void)? = nil)
    -> Recorder<Output, Failure>
    {
        let recorder = Recorder<Output, Failure>(initialDemand: initialDemand, onValue: onValue, onEvent: onEvent)
        subscribe(recorder)
        return recorder
    }
}

extension XCTestCase {
    /// Waits until the recording satisfies `condition`, and returns it.
    @discardableResult
    func wait<Input, Failure>(
        for recorder: Recorder<Input, Failure>,
        timeout: TimeInterval = defaultTimeout,
        file: StaticString = #filePath,
        line: UInt = #line,
        until condition: @escaping (Recording<Input, Failure>) -> Bool)
    -> Recording<Input, Failure>
    {
        wait(for: recorder.recording, timeout: timeout, file: file, line: line, until: condition)
    }

    /// Waits until the publisher completes, and returns the whole recording.
    @discardableResult
    func waitForCompletion<Input, Failure>(
        of recorder: Recorder<Input, Failure>,
        timeout: TimeInterval = defaultTimeout,
        file: StaticString = #filePath,
        line: UInt = #line)
    -> Recording<Input, Failure>
    {
        wait(for: recorder, timeout: timeout, file: file, line: line, until: \.isComplete)
    }

    /// Waits until the recorder has received `count` values, and returns the
    /// whole recording.
    @discardableResult
    func wait<Input, Failure>(
        for recorder: Recorder<Input, Failure>,
        valueCount count: Int,
        timeout: TimeInterval = defaultTimeout,
        file: StaticString = #filePath,
        line: UInt = #line)
    -> Recording<Input, Failure>
    {
        wait(for: recorder, timeout: timeout, file: file, line: line, until: { $0.values.count >= count })
    }
}

/// Cancels the recorders created in a scope, at the end of the scope.
///
/// A subscription retains its subscriber until it completes or is
/// cancelled, and a recorder retains its subscription: without an explicit
/// cancellation, a database observation would outlive its test.
enum RecorderScope {
    private static let stack = Synchronized<[[Cancellable]]>([])

    /// Runs `body`, then cancels the recorders it has created.
    static func run<T>(_ body: () throws -> T) rethrows -> T {
        stack.update { $0.append([]) }
        defer {
            var cancellables: [Cancellable] = []
            stack.update { cancellables = $0.removeLast() }
            cancellables.forEach { $0.cancel() }
        }
        return try body()
    }

    fileprivate static func register(_ cancellable: Cancellable) {
        stack.update { stack in
            if !stack.isEmpty {
                stack[stack.count - 1].append(cancellable)
            }
        }
    }
}
