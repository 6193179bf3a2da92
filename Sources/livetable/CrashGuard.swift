import Foundation

/// Restores the terminal when the process crashes, then lets the crash go
/// on (core dump, Swift backtrace) as if nothing had intervened.
/// A signal handler may only call async-signal-safe functions, which `endwin` is not: it writes
/// precomputed reset sequences with `write(2)`, and restores the saved modes with `tcsetattr`.
enum CrashGuard {
    /// The signals of a crash.
    static let signals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP]

    /// Installs the handlers. `resetSequence` leaves the app's screen;
    /// `terminalModes` are the modes to restore.
    @MainActor
    static func arm(terminalModes: termios?, resetSequence: [UInt8]) {
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, resetSequence.count))
        bytes.initialize(from: resetSequence, count: resetSequence.count)
        crashResetBytes = bytes
        crashResetCount = resetSequence.count
        if let terminalModes {
            crashTerminalModes.pointee = terminalModes
            crashHasTerminalModes = true
        }
        // A stack overflow can only be handled on another stack.
        let stackSize = 64 * 1024
        var stack = stack_t()
        stack.ss_sp = UnsafeMutableRawPointer.allocate(byteCount: stackSize, alignment: 16)
        stack.ss_size = stackSize
        stack.ss_flags = 0
        sigaltstack(&stack, nil)

        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = crashHandler
            action.sa_flags = SA_ONSTACK
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, crashPreviousActions + Int(signal))
        }
        crashIsArmed = true
    }

    /// Restores the terminal as the crash handler does, from any thread:
    /// for an exit that can not wait for the main thread (`endwin` must
    /// not run beside it). Does nothing once disarmed (the terminal
    /// restored already).
    static func restoreTerminalNow() {
        guard crashIsArmed else { return }
        restoreTerminalModes()
    }

    /// Puts the previous handlers back, once the terminal is restored.
    @MainActor
    static func disarm() {
        guard crashIsArmed else { return }
        crashIsArmed = false
        for signal in signals {
            sigaction(signal, crashPreviousActions + Int(signal), nil)
        }
    }
}

// The handler can only reach globals. They are written on the main thread
// before the handlers are installed, and only read afterwards.
nonisolated(unsafe) private var crashResetBytes: UnsafeMutablePointer<UInt8>?
nonisolated(unsafe) private var crashResetCount = 0
nonisolated(unsafe) private var crashHasTerminalModes = false
nonisolated(unsafe) private var crashIsArmed = false
nonisolated(unsafe) private let crashTerminalModes = UnsafeMutablePointer<termios>.allocate(capacity: 1)
nonisolated(unsafe) private let crashPreviousActions: UnsafeMutablePointer<sigaction> = {
    let actions = UnsafeMutablePointer<sigaction>.allocate(capacity: Int(NSIG))
    actions.initialize(repeating: sigaction(), count: Int(NSIG))
    return actions
}()

private func restoreTerminalModes() {
    if let bytes = crashResetBytes {
        _ = write(STDOUT_FILENO, bytes, crashResetCount)
    }
    if crashHasTerminalModes {
        _ = tcsetattr(STDIN_FILENO, TCSANOW, crashTerminalModes)
    }
}

private func crashHandler(_ signal: Int32) {
    restoreTerminalModes()
    // The previous handler (the default action, or Swift's backtracer)
    // handles the signal once this one returns.
    sigaction(signal, crashPreviousActions + Int(signal), nil)
    raise(signal)
}
