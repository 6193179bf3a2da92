import Dispatch
import Foundation

/// Delivers signals on the main queue, as events, instead of interrupting
/// whatever the main thread does.
enum SignalSources {
    /// The signals that the terminal app observes: resize, the job-control
    /// signals, and those that end it.
    static let observed: [Int32] = [SIGWINCH, SIGCONT, SIGTSTP, SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    /// Blocks `signals` in the calling thread, and so in every thread
    /// started from it afterwards, which inherits its mask: call it first
    /// thing in `main`, before any other thread exists.
    /// Why: libdispatch's signal source reads a signalfd, which sees a signal only while it is blocked.
    /// The main thread blocked none, so it could take a signal before the signalfd read it (a
    /// `kill -TSTP` from outside sometimes did not stop the app).
    static func block(_ signals: [Int32]) {
        setMask(SIG_BLOCK, signals)
    }

    /// Unblocks `signals` in the calling thread only: a command without a
    /// terminal app unblocks them on its main thread, where they take their
    /// default action (Ctrl-C ends `bench` or an export); suspending
    /// unblocks SIGTSTP there for its own `kill`.
    static func unblock(_ signals: [Int32]) {
        setMask(SIG_UNBLOCK, signals)
    }

    private static func setMask(_ how: Int32, _ signals: [Int32]) {
        var set = sigset_t()
        sigemptyset(&set)
        for signalNumber in signals {
            sigaddset(&set, signalNumber)
        }
        pthread_sigmask(how, &set, nil)
    }

    /// Starts a source for each signal. The sources must be kept alive.
    /// Each signal's default action is replaced by `SIG_IGN` first, so that it does not kill the process
    /// (or, for SIGWINCH, wake ncurses' own handler) before the source sees it.
    @MainActor
    static func observe(
        _ signals: [Int32],
        handler: @escaping @MainActor (Int32) -> Void) -> [any DispatchSourceSignal]
    {
        signals.map { signalNumber in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
            source.setEventHandler {
                MainActor.assumeIsolated {
                    handler(signalNumber)
                }
            }
            source.resume()
            return source
        }
    }

    /// Starts a source for each signal whose handler runs on `queue`, off
    /// the main thread: it acts even while the main thread is busy. The
    /// sources must be kept alive.
    static func observe(
        _ signals: [Int32], on queue: DispatchQueue,
        handler: @escaping @Sendable (Int32) -> Void) -> [any DispatchSourceSignal]
    {
        signals.map { signalNumber in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler {
                handler(signalNumber)
            }
            source.resume()
            return source
        }
    }
}
