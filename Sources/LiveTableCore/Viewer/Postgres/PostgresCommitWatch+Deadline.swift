import Foundation
import PostgresClient
#if canImport(Glibc)
import Glibc
#endif

/// A deadline on the watch's calls to the server, on our side.
///
/// A frozen network path (a proxy or a NAT box that stopped forwarding, a
/// peer whose kernel still ACKs while nothing answers) leaves libpq
/// waiting for an answer that does not come, for as long as the kernel
/// keeps the connection: the screen would say "live" while commits go
/// unseen. So a call that has not returned by the deadline is cut: the
/// connection's socket is shut down (`shutdown(2)`, from the deadline's
/// own queue), which makes libpq's call fail at once, and the call throws
/// "no answer from the server for 1 s": the watch's usual path for a lost
/// connection (`.lost`, then connecting again with backoff) takes over.
///
/// No libpq call is made from the deadline's queue, so the process's exit
/// gate (`ProcessExitGate`) has nothing to wait for here; the socket is
/// shut down only while the call that uses it runs (under `lock`), so the
/// descriptor cannot have been closed and reused by then.
// @unchecked Sendable: `call`, `hasFired` and `timer` are only accessed
// with `lock` held.
final class CommitPollDeadline: @unchecked Sendable {
    /// Seconds a call may wait for the server.
    let seconds: TimeInterval
    private let lock = NSLock()
    private let queue = DispatchQueue(label: "livetable.postgres.deadline", qos: .utility)
    /// The call that runs: its connection's socket, and since when.
    private var call: (socket: Int32, since: DispatchTime)?
    private var hasFired = false
    private var timer: DispatchSourceTimer?

    /// The deadline of a watch polling every `interval`: 20 polls, at
    /// least a second (a busy server, a slow network).
    init(interval: TimeInterval) {
        seconds = max(1, 20 * interval)
    }

    /// Starts checking the calls, four times per deadline: a call is cut
    /// within 1¼ deadlines, for four wake-ups a second at most (one timer
    /// rather than one per poll: the idle cost of the watch).
    func start() {
        lock.withLock {
            guard timer == nil else { return }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            let period = seconds / 4
            timer.schedule(
                deadline: .now() + period, repeating: period,
                leeway: .milliseconds(max(1, Int(period * 100))))
            timer.setEventHandler { [weak self] in self?.check() }
            self.timer = timer
            timer.resume()
        }
    }

    /// Stops checking.
    func stop() {
        lock.withLock {
            timer?.cancel()
            timer = nil
        }
    }

    /// Runs `body`, a call to the server on `connection`, and cuts it if it
    /// has not returned by the deadline.
    ///
    /// - throws: A connection error, "no answer from the server for 1 s",
    ///   when the call was cut (even if it returned meanwhile: its socket
    ///   is shut down); else what `body` throws.
    func run<T>(on connection: PostgresConnection, _ body: () throws -> T) throws -> T {
        let socket = connection.socket
        lock.withLock {
            call = (socket, .now())
            hasFired = false
        }
        let result = Result { try body() }
        let fired = lock.withLock { () -> Bool in
            call = nil
            return hasFired
        }
        if fired {
            throw PostgresError(
                kind: .connection,
                message: "no answer from the server for \(String(format: "%g", seconds)) s")
        }
        return try result.get()
    }

    private func check() {
        lock.withLock {
            guard let call, !hasFired, call.socket >= 0,
                  DispatchTime.now() >= call.since + seconds
            else { return }
            hasFired = true
            _ = shutdown(call.socket, Int32(SHUT_RDWR))
        }
    }
}
