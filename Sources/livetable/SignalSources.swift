import Dispatch
import Foundation

/// Delivers signals on the main queue, as events, instead of interrupting
/// whatever the main thread does.
enum SignalSources {
    /// Starts a source for each signal. The sources must be kept alive.
    ///
    /// Each signal's default action is replaced by `SIG_IGN` first, so that
    /// it does not kill the process (or, for SIGWINCH, wake ncurses' own
    /// handler) before the source sees it.
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
}
