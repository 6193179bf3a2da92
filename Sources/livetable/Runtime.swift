import Dispatch
import Foundation
import LiveTableCore

/// The terminal host of the app loop: it reads keys from stdin and the
/// terminal size after resizes and signals, sends them to the loop, copies
/// the screens the loop draws to the terminal, and suspends and exits the
/// process when the loop asks. The loop (`AppLoop`, in the core) runs
/// `update`, the effects and `render`.
///
/// The main thread runs `RunLoop.main.run()`, which drains the main queue,
/// where everything arrives: keys from a read source on stdin, resizes and
/// signals from signal sources, database values and write results from
/// `ReactiveGRDB` publishers. Nothing blocks it: writes run on the
/// database's own queues.
@MainActor
final class Runtime<Program: AppProgram>: AppHost where Program.Message: TerminalMessage {
    /// The app loop this runtime hosts.
    let loop: AppLoop<Program>
    private let terminal: Terminal
    /// Closes what the program uses (the database), at exit.
    private let close: @MainActor () -> Void
    /// Where keys go instead of the loop, when set: the demo's.
    private var keyHandler: (@MainActor (Key) -> Void)?
    private var input: (any DispatchSourceRead)?
    private var sources: [any DispatchSourceProtocol] = []
    /// The runtime this one handed the terminal over to, if any: kept
    /// alive with this one, which `run` keeps alive.
    private var successor: AnyObject?

    private init(terminal: Terminal, loop: AppLoop<Program>, close: @escaping @MainActor () -> Void) {
        self.terminal = terminal
        self.loop = loop
        self.close = close
    }

    /// Runs the app until it exits the process.
    ///
    /// - parameter terminal: The terminal, set up.
    /// - parameter loop: The app loop, not started.
    /// - parameter close: Closes what the program uses, at exit.
    /// - parameter started: Called once the first screen is drawn.
    static func run(
        terminal: Terminal,
        loop: AppLoop<Program>,
        close: @escaping @MainActor () -> Void,
        started: (Runtime) -> Void = { _ in }) -> Never
    {
        let runtime = Runtime(terminal: terminal, loop: loop, close: close)
        runtime.start()
        started(runtime)
        // The sources hold the runtime unowned, and the loop holds it
        // weakly: it must outlive the loop, which an optimized build would
        // not otherwise guarantee.
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
                #if DEBUG
                TestStall.stallIfAsked()
                #endif
                let keys = terminal.readKeys()
                if let keyHandler {
                    keys.forEach(keyHandler)
                } else {
                    loop.send(contentsOf: keys.map { Program.Message.key($0) })
                }
            }
        }
        input.resume()
        self.input = input

        sources += SignalSources.observe([SIGWINCH, SIGCONT]) { [unowned self] _ in
            redraw()
        }
        // Off the main thread: the signals that end the app act within
        // `QuittingExit.deadline` even while the main thread is busy.
        sources += SignalSources.observe([SIGINT, SIGTERM, SIGHUP, SIGQUIT], on: QuittingExit.signalQueue) { [unowned self] signal in
            DispatchQueue.main.async {
                MainActor.assumeIsolated { () -> Void in
                    self.exit(status: 128 + signal)
                }
            }
            QuittingExit.exitAtDeadline(status: 128 + signal)
        }
        sources += SignalSources.observe([SIGTSTP]) { [unowned self] _ in
            suspend()
        }

        loop.start(host: self)
        // The first resize starts the observation.
        loop.send(.resize(width: terminal.width, height: terminal.height))
    }

    /// Stops this runtime's loop, and runs `next` on the same terminal
    /// from now on: its keys, resizes, signals and screens. At exit, this
    /// runtime's `close` runs, then `close`.
    ///
    /// The demo plays the Hall of Fame, then hands the terminal over to
    /// the viewer this way: one process, one terminal, two programs.
    ///
    /// - parameter makeLoop: The app loop of the next program, not
    ///   started, for the terminal.
    /// - parameter close: Closes what the next program uses, at exit.
    /// - parameter started: Called once the next program's first screen is drawn.
    func handOver<Next: AppProgram>(
        to makeLoop: (Terminal) -> AppLoop<Next>,
        close: @escaping @MainActor () -> Void,
        started: (Runtime<Next>) -> Void = { _ in })
    where Next.Message: TerminalMessage
    {
        let next = makeLoop(terminal)
        loop.stop()
        input?.cancel()
        input = nil
        sources.forEach { $0.cancel() }
        sources = []
        let closeThis = self.close
        let runtime = Runtime<Next>(terminal: terminal, loop: next) {
            closeThis()
            close()
        }
        successor = runtime
        runtime.start()
        started(runtime)
    }

    /// Sends the keys read from now on to `handler` instead of the loop.
    func interceptKeys(_ handler: @escaping @MainActor (Key) -> Void) {
        keyHandler = handler
    }

    /// Reads the terminal size and draws everything again: after a resize,
    /// and when the app continues after a stop.
    private func redraw() {
        terminal.updateSize()
        loop.send(.resize(width: terminal.width, height: terminal.height))
    }

    // MARK: - AppHost

    func draw(_ screen: Screen) {
        terminal.draw(screen)
    }

    /// Gives the terminal back to the shell and stops (SIGTSTP, sent by
    /// `kill` since raw mode turns Ctrl-Z into a key); once continued, takes
    /// the screen back and redraws everything.
    func suspend() {
        terminal.suspend()
        var stop = sigaction()
        stop.__sigaction_handler.sa_handler = SIG_DFL
        var previous = sigaction()
        sigaction(SIGTSTP, &stop, &previous)
        // Every thread blocks SIGTSTP (`SignalSources.block`): this one
        // takes its own, with the default action, which stops the process.
        SignalSources.unblock([SIGTSTP])
        kill(getpid(), SIGTSTP)
        // Continued (SIGCONT redraws too), or not stopped at all, as in an
        // orphaned process group: give SIGTSTP back to its source, as it
        // was, so that the next one from outside suspends again, and take
        // the screen back.
        SignalSources.block([SIGTSTP])
        sigaction(SIGTSTP, &previous, nil)
        redraw()
    }

    func quit() {
        exit(status: 0)
    }

    func signal(_ signal: TerminalSignal) {
        terminal.signal(signal)
    }

    // MARK: - Exit

    /// Stops the loop, restores the terminal, closes the database and
    /// exits the process.
    func exit(status: Int32) -> Never {
        guard QuittingExit.claim.claim() else {
            // The signal's queue exits the process, having found the main
            // thread busy: nothing more to do here.
            while true { pause() }
        }
        // The refreshes of a stress test that have not started yet are
        // skipped; the other writes in flight are the user's, and end.
        loop.stop()
        terminal.restore()
        // Closing waits for them, and removes the -wal and -shm files, as a
        // user of SQLite tools expects from a clean exit.
        close()
        Foundation.exit(status)
    }
}

/// Who begins the exit first: the main thread or the queue of a signal.
private final class ExitClaim: @unchecked Sendable {  // The state is guarded by `condition`.
    private let condition = NSCondition()
    private var isClaimed = false

    /// Claims the exit; false when it was claimed already.
    func claim() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !isClaimed else { return false }
        isClaimed = true
        condition.broadcast()
        return true
    }

    /// Waits until the exit is claimed, for at most `timeout` seconds;
    /// true when it is.
    func waitForClaim(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while !isClaimed {
            if !condition.wait(until: deadline) { return isClaimed }
        }
        return true
    }
}

/// The exit that a signal asks for, which must happen even while the
/// main thread is busy.
private enum QuittingExit {
    /// Where the signals that end the app are handled.
    static let signalQueue = DispatchQueue(label: "livetable.signals")

    /// How long the main thread has to begin the exit that a signal asked
    /// for, before the signal's queue exits without it.
    static let deadline: TimeInterval = 0.09

    /// Set once the exit has begun, by the main thread or by the signal's
    /// queue: only one of them restores the terminal.
    static let claim = ExitClaim()

    /// Waits up to `deadline` for the main thread to begin the exit; when
    /// it is busy (a long job, a stuck main queue), restores the terminal
    /// as the crash handler does and exits the process from here, with
    /// `status`. The writes in flight are cut short, as by a kill: SQLite
    /// keeps the file consistent.
    static func exitAtDeadline(status: Int32) {
        guard !claim.waitForClaim(timeout: deadline), claim.claim() else { return }
        CrashGuard.restoreTerminalNow()
        // A save that runs leaves no part of a file, as on a clean exit.
        SheetFile.removeUnfinishedFiles()
        _exit(status)
    }
}
