import Dispatch

/// Hands values to a handler on the main queue, keeping only the latest of
/// those that arrive before the handler runs.
///
/// Database values come one main-queue block each. When the app handles
/// them more slowly than they come (a debug build under a busy writer),
/// handling each one replays a backlog of stale states after the writer
/// stops. Through a relay, a burst of values costs one update and one draw,
/// of the newest value.
///
/// For example:
///
/// ```swift
/// let relay = LatestValueRelay<HallOfFame> { hallOfFame in
///     runtime.send(.hallOfFame(hallOfFame))
/// }
/// relay.send(value1)
/// relay.send(value2) // value1 is dropped: only value2 is handled
/// ```
@MainActor
public final class LatestValueRelay<Value> {
    private let handler: @MainActor (Value) -> Void
    private var pending: Value?
    private var isScheduled = false
    private var isCancelled = false

    /// Creates a relay that hands values to `handler`.
    ///
    /// - parameter handler: Called on the main queue with the latest value,
    ///   once per burst.
    public init(handler: @escaping @MainActor (Value) -> Void) {
        self.handler = handler
    }

    /// Keeps `value` as the latest, and makes sure that the handler runs
    /// once it is the main queue's turn.
    ///
    /// For example:
    ///
    /// ```swift
    /// relay.send(hallOfFame)
    /// ```
    public func send(_ value: Value) {
        guard !isCancelled else { return }
        pending = value
        guard !isScheduled else { return }
        isScheduled = true
        // After the blocks already queued, which may hold newer values.
        DispatchQueue.main.async { [weak self] in
            MainActor.assumeIsolated {
                self?.deliver()
            }
        }
    }

    /// Drops the pending value and every later one: for the values of a
    /// replaced observation.
    ///
    /// For example:
    ///
    /// ```swift
    /// relay.cancel()
    /// ```
    public func cancel() {
        isCancelled = true
        pending = nil
    }

    private func deliver() {
        isScheduled = false
        guard let value = pending else { return }
        pending = nil
        handler(value)
    }
}
