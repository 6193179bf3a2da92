import Dispatch
import OpenCombine
import OpenCombineDispatch

// MARK: - Programs

/// A screen as the app loop runs it: its state, messages, `update`, `render`, and what each
/// effect of `update` does.
@MainActor
package protocol AppProgram {
    associatedtype State
    associatedtype Message
    associatedtype Effect
    /// The names of the screen's long-lived subscriptions (its
    /// observations and timers), one case per slot: a misspelt slot does
    /// not compile, where a string would open a second observation.
    associatedtype Slot: Hashable

    /// The commands that run when the loop starts, before any message:
    /// watches that the screen needs whatever its state.
    func start() -> [AppCommand<Message, Slot>]

    /// Applies a message to the state, and returns the effects to perform,
    /// in order. It must be pure, as `update(_:_:)` is.
    func update(_ state: inout State, _ message: Message) -> [Effect]

    func render(_ state: State) -> Screen

    /// Draws the state with a caption over its status line, for a
    /// `CaptionedProgram` (the demo's captions). The default covers the
    /// bottom line of `render(_:)` with the caption; a screen whose status
    /// line keeps other news (errors, progress) places it there instead.
    func render(_ state: State, caption: String) -> Screen

    func command(for effect: Effect) -> AppCommand<Message, Slot>

    /// True when `state` draws the same screen as `drawn`, the state last
    /// drawn: after the messages of its subscriptions, the loop then draws
    /// nothing. Asked only of a program whose `comparesDrawnStates` is true.
    func drawsSameScreen(_ state: State, as drawn: State) -> Bool

    /// True when the loop keeps the state drawn, to ask `drawsSameScreen`.
    /// The default: false (every burst draws).
    var comparesDrawnStates: Bool { get }
}

extension AppProgram {
    package func drawsSameScreen(_ state: State, as drawn: State) -> Bool {
        false
    }

    package var comparesDrawnStates: Bool { false }
}

/// What the app loop does to perform an effect: subscribe to a publisher
/// whose output comes back as messages, or hand the app to its host.
package enum AppCommand<Message, Slot: Hashable> {
    /// Subscribes to a long-lived publisher in place of the one that runs
    /// in `slot`, if any, which is cancelled. Only the latest of its
    /// messages that wait to be handled is kept: an observation delivers
    /// its latest value, never a backlog of stale ones.
    case observe(slot: Slot, AnyPublisher<Message, Never>)
    /// Subscribes to a publisher until it completes, and handles each of
    /// its messages in order: a write and its error, for example.
    case perform(AnyPublisher<Message, Never>)
    /// Asks the host to send the terminal a signal: the bell, a copy.
    case signal(TerminalSignal)
    /// Asks the host to give the terminal back and stop, until continued.
    case suspend
    /// Stops the loop, and asks the host to end the app.
    case quit
}

/// What a program asks of the terminal besides a screen, sent between two
/// screens.
package enum TerminalSignal: Equatable, Sendable {
    /// BEL.
    case bell
    /// `text` to the terminal's clipboard (OSC 52).
    case clipboard(String)
}

extension AppCommand {
    /// A one-shot timer in `slot`: one message, `message(now)`, at
    /// `deadline` (at once if it has passed), on the main queue; with a nil
    /// deadline, the timer that runs in `slot`, if any, is cancelled.
    static func timer(
        slot: Slot,
        at deadline: ContinuousClock.Instant?,
        message: @escaping (ContinuousClock.Instant) -> Message) -> AppCommand
    {
        guard let deadline else {
            return .observe(slot: slot, Empty().eraseToAnyPublisher())
        }
        let (seconds, attoseconds) = ContinuousClock.now.duration(to: deadline).components
        let nanoseconds = max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        return .observe(slot: slot, Just(())
            .delay(for: .nanoseconds(Int(nanoseconds)), scheduler: DispatchQueue.main.ocombine)
            .map { message(.now) }
            .eraseToAnyPublisher())
    }
}

// MARK: - Hosts

/// What runs an app loop: the terminal, a test, the benchmark. The loop
/// hands it each screen to draw, and the suspend and quit requests.
@MainActor
package protocol AppHost: AnyObject {
    /// Shows `screen`: called once after each burst of messages.
    func draw(_ screen: Screen)
    /// Gives the terminal back and stops until continued; the host sends
    /// the terminal size again when it takes the screen back.
    func suspend()
    /// Ends the app. The loop has stopped when it is called.
    func quit()
    /// Sends `signal` to the terminal, between two screens.
    func signal(_ signal: TerminalSignal)
}

extension AppHost {
    /// A host without a terminal (a test, the benchmark) ignores signals.
    package func signal(_ signal: TerminalSignal) {}
}

/// The messages that a terminal host sends to any program: the keys it
/// reads, and the size of the terminal.
package protocol TerminalMessage {
    static func key(_ key: Key) -> Self
    /// The terminal has this size, at start, after a resize, and after the
    /// app continues from a suspension.
    static func resize(width: Int, height: Int) -> Self
}

// MARK: - The loop

/// The app's only event loop: it owns the state and the message queue,
/// runs each message through `update`, performs the effects (against the
/// database, through `AppProgram.command(for:)`), and asks its host to draw
/// the state once per burst of messages.
@MainActor
package final class AppLoop<Program: AppProgram> {
    let program: Program
    package private(set) var state: Program.State

    private weak var host: (any AppHost)?
    private var isStarted = false
    /// True once the loop has stopped: on quit, or by `stop()`.
    private(set) var isStopped = false

    // MARK: Messages

    private struct Pending {
        var message: Program.Message
        var slot: Program.Slot?
    }

    private var queue: [Pending] = []
    /// True while messages are handled: messages sent meanwhile (by an
    /// effect that delivers at once) join the same burst.
    private var isHandling = false
    /// The state last drawn, and whether the next burst draws whatever it is.
    private var drawnState: Program.State?
    private var mustDraw = true
    private var isResumeScheduled = false

    // MARK: Subscriptions

    /// The running observations, by slot, and the id that tells their
    /// messages from those of the observations they replaced.
    private var observations: [Program.Slot: (id: Int, cancellable: AnyCancellable)] = [:]
    private var observationIDs: [Program.Slot: Int] = [:]
    /// The running `perform` subscriptions, until they complete.
    private var operations: [Int: AnyCancellable] = [:]
    private var nextSubscriptionID = 0

    private var waiters: [(condition: (Program.State) -> Bool, action: @MainActor () -> Void)] = []

    package init(program: Program, state: Program.State) {
        self.program = program
        self.state = state
    }

    /// The `perform` subscriptions that have not completed yet: writes in
    /// flight, a running stress test.
    var operationsInFlight: Int {
        operations.count
    }

    /// Starts the program's own commands, and draws on `host` from then
    /// on. The host then sends the first message (for a terminal program,
    /// `.resize` with the terminal size).
    package func start(host: any AppHost) {
        precondition(!isStarted, "An app loop starts once")
        isStarted = true
        self.host = host
        for command in program.start() {
            perform(command)
        }
    }

    package func send(_ message: Program.Message) {
        send(contentsOf: [message])
    }

    /// Handles the messages in order, after those that wait, then draws once: a burst of keys draws once.
    package func send(contentsOf messages: [Program.Message]) {
        guard !isStopped else { return }
        // The host's messages (keys, a resize, a redraw after a stop) draw.
        mustDraw = true
        queue += messages.map { Pending(message: $0, slot: nil) }
        handleQueue()
    }

    /// Runs `action` once the state meets `condition`: now if it does,
    /// otherwise after the first burst of messages that leads to it.
    package func when(
        _ condition: @escaping (Program.State) -> Bool,
        perform action: @escaping @MainActor () -> Void)
    {
        if condition(state) {
            action()
        } else {
            waiters.append((condition, action))
        }
    }

    /// Cancels every subscription and handles no more messages. The writes
    /// that have started end, and the stress test's refreshes that have not
    /// are skipped. Safe to call more than once.
    package func stop() {
        guard !isStopped else { return }
        isStopped = true
        queue = []
        waiters = []
        let cancellables = observations.values.map(\.cancellable) + operations.values
        observations = [:]
        observationIDs = [:]
        operations = [:]
        for cancellable in cancellables {
            cancellable.cancel()
        }
    }

    // MARK: - Handling messages

    private func handleQueue() {
        guard !isHandling, !isStopped, !queue.isEmpty else { return }
        isHandling = true
        while !isStopped, !queue.isEmpty {
            let message = queue.removeFirst().message
            for effect in program.update(&state, message) {
                perform(program.command(for: effect))
                if isStopped { break }
            }
        }
        isHandling = false
        guard !isStopped else { return }
        if mustDraw || drawnState.map({ !program.drawsSameScreen(state, as: $0) }) ?? true {
            host?.draw(program.render(state))
            // Kept only by a program that compares states: a copy kept would
            // make each change of the state copy it.
            drawnState = program.comparesDrawnStates ? state : nil
            mustDraw = false
        }
        runWaiters()
    }

    /// Queues a message of a subscription, to be handled with the others
    /// that arrive before the main queue runs the loop again.
    private func enqueue(_ message: Program.Message, slot: Program.Slot?) {
        guard !isStopped else { return }
        if let slot, let index = queue.firstIndex(where: { $0.slot == slot }) {
            queue.remove(at: index)
        }
        queue.append(Pending(message: message, slot: slot))
        guard !isHandling, !isResumeScheduled else { return }
        isResumeScheduled = true
        DispatchQueue.main.async { [weak self] in
            MainActor.assumeIsolated {
                guard let self else { return }
                self.isResumeScheduled = false
                self.handleQueue()
            }
        }
    }

    private func runWaiters() {
        guard !waiters.isEmpty else { return }
        let state = self.state
        var ready: [@MainActor () -> Void] = []
        waiters.removeAll { waiter in
            guard waiter.condition(state) else { return false }
            ready.append(waiter.action)
            return true
        }
        for action in ready {
            action()
        }
    }

    // MARK: - Commands

    private func perform(_ command: AppCommand<Program.Message, Program.Slot>) {
        switch command {
        case let .observe(slot, publisher):
            observe(publisher, in: slot)
        case let .perform(publisher):
            perform(publisher)
        case let .signal(signal):
            host?.signal(signal)
        case .suspend:
            host?.suspend()
        case .quit:
            stop()
            host?.quit()
        }
    }

    private func observe(_ publisher: AnyPublisher<Program.Message, Never>, in slot: Program.Slot) {
        observations[slot]?.cancellable.cancel()
        observations[slot] = nil
        // The replaced observation's messages are news of nothing shown.
        queue.removeAll { $0.slot == slot }
        let id = makeSubscriptionID()
        observationIDs[slot] = id
        var hasCompleted = false
        let cancellable = publisher.sink(
            receiveCompletion: { [weak self] _ in
                MainActor.assumeIsolated {
                    hasCompleted = true
                    guard let self, self.observationIDs[slot] == id else { return }
                    self.observations[slot] = nil
                }
            },
            receiveValue: { [weak self] message in
                MainActor.assumeIsolated {
                    // Not a value that a replaced observation had scheduled.
                    guard let self, self.observationIDs[slot] == id else { return }
                    self.enqueue(message, slot: slot)
                }
            })
        if !isStopped, !hasCompleted, observationIDs[slot] == id {
            observations[slot] = (id, cancellable)
        }
    }

    private func perform(_ publisher: AnyPublisher<Program.Message, Never>) {
        let id = makeSubscriptionID()
        var hasCompleted = false
        let cancellable = publisher.sink(
            receiveCompletion: { [weak self] _ in
                MainActor.assumeIsolated {
                    hasCompleted = true
                    self?.operations[id] = nil
                }
            },
            receiveValue: { [weak self] message in
                MainActor.assumeIsolated {
                    self?.enqueue(message, slot: nil)
                }
            })
        // Unless it completed while it subscribed.
        if !isStopped, !hasCompleted {
            operations[id] = cancellable
        }
    }

    private func makeSubscriptionID() -> Int {
        nextSubscriptionID += 1
        return nextSubscriptionID
    }
}
