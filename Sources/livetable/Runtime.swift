import Dispatch
import Foundation
import LiveTableCore
import OpenCombine
import ReactiveGRDB

/// The app's event loop on the main thread: every event becomes a
/// `Message`, each message goes through `update`, then `render`, then the
/// screen is copied to the terminal, and `update`'s effects run against the
/// database.
///
/// The main thread runs `RunLoop.main.run()`, which drains the main queue,
/// where everything arrives: keys from a read source on stdin, resizes and
/// signals from signal sources, database values and write results from
/// `ReactiveGRDB` publishers. Nothing blocks it: writes run on the
/// database's own queues.
@MainActor
final class Runtime {
    private var state: AppState
    private let terminal: Terminal
    private let database: AppDatabase
    private let demo: DemoPlayer?

    /// The running Hall of Fame observation.
    private var observation: AnyCancellable?
    /// What makes the observation see the writes of other processes.
    private var externalChanges: AnyCancellable?
    /// Writes and stress tests in flight, until they complete.
    private var operations: [Int: AnyCancellable] = [:]
    private var nextOperationID = 0
    /// What waits for the running stress test to end.
    private var stressTestWaiters: [@MainActor () -> Void] = []
    private var input: (any DispatchSourceRead)?
    private var sources: [any DispatchSourceProtocol] = []

    /// Messages sent while another is handled wait here, so that `update`
    /// always sees them one at a time and in order.
    private var queue: [Message] = []
    private var isHandling = false

    private init(terminal: Terminal, database: AppDatabase, demo: DemoPlayer?) {
        self.terminal = terminal
        self.database = database
        self.demo = demo
        self.state = AppState.initial(width: terminal.width, height: terminal.height, useColor: terminal.usesColor)
    }

    /// Runs the app until it exits the process.
    static func run(terminal: Terminal, database: AppDatabase, demo: DemoPlayer?) -> Never {
        let runtime = Runtime(terminal: terminal, database: database, demo: demo)
        runtime.start()
        // The sources hold the runtime unowned: it must outlive the loop,
        // which an optimized build would not otherwise guarantee.
        withExtendedLifetime(runtime) { () -> Never in
            while true {
                RunLoop.main.run()
            }
        }
    }

    private func start() {
        let input = DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO, queue: .main)
        input.setEventHandler { [unowned self] in
            MainActor.assumeIsolated {
                // Readable with no byte to read: the terminal is gone (hung
                // up without SIGHUP). Reading again would spin forever.
                if self.input?.data == 0 {
                    exit(status: 128 + SIGHUP)
                }
                let keys = terminal.readKeys()
                if let demo {
                    keys.forEach(demo.receive)
                } else {
                    send(contentsOf: keys.map(Message.key))
                }
            }
        }
        input.resume()
        self.input = input

        sources += SignalSources.observe([SIGWINCH, SIGCONT]) { [unowned self] _ in
            redraw()
        }
        sources += SignalSources.observe([SIGINT, SIGTERM, SIGHUP, SIGQUIT]) { [unowned self] signal in
            exit(status: 128 + signal)
        }
        sources += SignalSources.observe([SIGTSTP]) { [unowned self] _ in
            suspend()
        }

        // Before the observation starts, so that it misses no change.
        externalChanges = database.observeExternalChanges(onPollingFallback: { reason in
            DispatchQueue.main.async { [unowned self] in
                MainActor.assumeIsolated { send(.externalChangesUnavailable(reason)) }
            }
        })

        // The first resize starts the observation.
        send(.resize(width: terminal.width, height: terminal.height))
        demo?.start(self)
    }

    // MARK: - Messages

    /// Updates the state with `message` and the messages it leads to, runs
    /// their effects, then draws the state once.
    func send(_ message: Message) {
        send(contentsOf: [message])
    }

    /// Updates the state with each message in order, runs their effects,
    /// then draws the state once: a burst of keys is drawn once.
    func send(contentsOf messages: [Message]) {
        queue += messages
        guard !isHandling else { return }
        isHandling = true
        defer { isHandling = false }
        while !queue.isEmpty {
            let message = queue.removeFirst()
            let effects = update(&state, message)
            for effect in effects {
                perform(effect)
            }
        }
        terminal.draw(render(state))
    }

    /// Reads the terminal size and draws everything again: after a resize,
    /// and when the app continues after a stop.
    private func redraw() {
        terminal.updateSize()
        send(.resize(width: terminal.width, height: terminal.height))
    }

    // MARK: - Effects

    private func perform(_ effect: Effect) {
        switch effect {
        case let .observe(request):
            observation?.cancel()
            observation = database.observeHallOfFame(request).sink(
                receiveCompletion: { [unowned self] completion in
                    MainActor.assumeIsolated {
                        if case let .failure(error) = completion {
                            send(.observationFailed(error.oneLineDescription))
                        }
                    }
                },
                receiveValue: { [unowned self] hallOfFame in
                    MainActor.assumeIsolated {
                        send(.hallOfFame(hallOfFame))
                    }
                })
        case .insertRandomPlayer:
            write(database.insertRandomPlayer())
        case let .updatePlayer(player):
            write(database.updatePlayer(player))
        case let .deletePlayer(id):
            write(database.deletePlayer(id: id))
        case .deleteAll:
            write(database.deleteAll())
        case .refresh:
            write(database.refresh())
        case .stressTest:
            stressTest()
        case .suspend:
            suspend()
        case .quit:
            exit(status: 0)
        }
    }

    /// Runs a write. Its changes come back through the observation; only
    /// its error comes back here.
    private func write<Output>(_ publisher: DatabasePublishers.Write<Output>) {
        track { [unowned self] done in
            publisher.sink(
                receiveCompletion: { completion in
                    MainActor.assumeIsolated {
                        done()
                        if case let .failure(error) = completion {
                            self.send(.writeFailed(error.oneLineDescription))
                        }
                    }
                },
                receiveValue: { _ in })
        }
    }

    private func stressTest() {
        let start = Date()
        track { [unowned self] done in
            database.stressTest().sink { progress in
                MainActor.assumeIsolated {
                    let ended = progress.completed + progress.failed
                    self.send(.stressProgress(completed: ended, total: progress.total))
                    if progress.isFinished {
                        done()
                        self.send(.stressFinished(
                            total: progress.total, failed: progress.failed,
                            seconds: Date().timeIntervalSince(start)))
                        self.stressTestDidEnd()
                    }
                }
            }
        }
    }

    /// Runs `action` once no stress test runs: now, or when the running
    /// one has ended and its result is on screen. All its refreshes have
    /// then committed.
    func whenStressTestIsOver(_ action: @escaping @MainActor () -> Void) {
        if state.isStressTestRunning {
            stressTestWaiters.append(action)
        } else {
            action()
        }
    }

    private func stressTestDidEnd() {
        let waiters = stressTestWaiters
        stressTestWaiters = []
        for waiter in waiters {
            waiter()
        }
    }

    /// Keeps the subscription that `subscribe` returns until it calls
    /// `done`, which may happen before `subscribe` returns.
    private func track(_ subscribe: (_ done: @escaping @MainActor () -> Void) -> AnyCancellable) {
        let id = nextOperationID
        nextOperationID += 1
        var isDone = false
        let cancellable = subscribe { [unowned self] in
            isDone = true
            operations[id] = nil
        }
        if !isDone {
            operations[id] = cancellable
        }
    }

    // MARK: - Exit

    /// Restores the terminal, closes the database and exits the process.
    func exit(status: Int32) -> Never {
        observation?.cancel()
        externalChanges?.cancel()
        terminal.restore()
        // The refreshes of a stress test that have not started yet are
        // skipped; the other writes in flight are the user's, and end.
        for operation in operations.values {
            operation.cancel()
        }
        // Closing waits for them, and removes the -wal and -shm files, as a
        // user of SQLite tools expects from a clean exit.
        try? database.close()
        Foundation.exit(status)
    }

    /// Gives the terminal back to the shell and stops (SIGTSTP, sent by
    /// `kill` since raw mode turns Ctrl-Z into a key); once continued, takes
    /// the screen back and redraws everything.
    private func suspend() {
        terminal.suspend()
        var stop = sigaction()
        stop.__sigaction_handler.sa_handler = SIG_DFL
        var previous = sigaction()
        sigaction(SIGTSTP, &stop, &previous)
        kill(getpid(), SIGTSTP)
        // Continued (SIGCONT redraws too), or not stopped at all, as in an
        // orphaned process group: give SIGTSTP back to its source, as it
        // was, so that the next one from outside suspends again, and take
        // the screen back.
        sigaction(SIGTSTP, &previous, nil)
        redraw()
    }
}
