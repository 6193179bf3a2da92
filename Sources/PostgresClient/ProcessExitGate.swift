import CLibPQ
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The door every libpq call that talks to a server goes through, closed
/// when the process exits.
/// libpq uses OpenSSL, which frees its state in an `atexit` handler: a thread still in libpq then
/// crashes the process after its work is done. So at exit, before OpenSSL's cleanup, new calls fail,
/// statements are canceled, attempts are abandoned, and the exit waits a bounded time for the rest.
// @unchecked Sendable: every field is guarded by `condition`.
final class ProcessExitGate: @unchecked Sendable {
    static let shared = ProcessExitGate()

    /// How long the exit waits for calls in flight, which were canceled:
    /// a server that does not answer must not hold the exit forever.
    static let exitWait: TimeInterval = 2

    /// Signalled when the gate closes, never cleared: a connection
    /// attempt polls it, and ends at once (nothing to cancel on a server
    /// yet, and through a frozen path it could take `connect_timeout`).
    let closing = WakeUpDescriptor()

    private let condition = NSCondition()
    private var isClosed = false
    /// The calls in libpq, by ticket, with the cancel handle of their
    /// connection (nil while connecting: nothing to cancel yet, `closing`
    /// ends it).
    private var inFlight: [Int: SideState?] = [:]
    private var nextTicket = 0

    private init() {}

    /// Registers the gate's close at exit, to run before OpenSSL's cleanup: called by ``LibPQ/load()``
    /// right after libpq's dlopen, which may have brought OpenSSL in.
    func closeAtExit() {
        // atexit handlers run in reverse order: OpenSSL's must be registered before ours. OpenSSL
        // registers it at its first initialisation, which libpq would do only later (its first SCRAM or
        // SSL): do it now, through libpq's handle (libcrypto is RTLD_LOCAL). Without OpenSSL, nothing to
        // order. An option must be given (none returns before any work): the error strings.
        typealias Initialize = @convention(c) (UInt64, UnsafeRawPointer?) -> Int32
        let loadCryptoStrings: UInt64 = 0x2  // OPENSSL_INIT_LOAD_CRYPTO_STRINGS
        if let symbol = lt_libpq_symbol("OPENSSL_init_crypto") {
            _ = unsafeBitCast(symbol, to: Initialize.self)(loadCryptoStrings, nil)
        }
        atexit { ProcessExitGate.shared.close(waiting: ProcessExitGate.exitWait) }
    }

    /// Runs `body`, a libpq call, unless the process exits.
    func pass<T>(_ side: SideState?, _ body: () throws -> T) throws -> T {
        let ticket = try enter(side)
        defer { leave(ticket) }
        return try body()
    }

    /// Runs `body` if the process does not exit, else does nothing: for
    /// releasing a connection (PQfinish ends an SSL session with OpenSSL),
    /// which at exit is better leaked than crashed.
    func passIfOpen(_ body: () -> Void) {
        guard let ticket = try? enter(nil) else { return }
        defer { leave(ticket) }
        body()
    }

    private func enter(_ side: SideState?) throws -> Int {
        condition.lock()
        defer { condition.unlock() }
        guard !isClosed else {
            throw PostgresError(kind: .connection, message: "the process is exiting")
        }
        nextTicket += 1
        inFlight[nextTicket] = side
        return nextTicket
    }

    private func leave(_ ticket: Int) {
        condition.lock()
        defer { condition.unlock() }
        inFlight[ticket] = nil
        if inFlight.isEmpty { condition.broadcast() }
    }

    /// Closes the gate, cancels the statements that run, and waits up to
    /// `timeout` for every call to leave libpq.
    func close(waiting timeout: TimeInterval) {
        condition.lock()
        isClosed = true
        let running = inFlight.values.compactMap { $0 }
        condition.unlock()
        closing.signal()
        // Out of the gate's lock: a cancel takes its connection's own lock
        // (and is sent from a queue of its own, so none of this waits).
        for side in running {
            side.cancel(markingCanceled: true)
        }
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !inFlight.isEmpty, condition.wait(until: deadline) {}
    }
}
